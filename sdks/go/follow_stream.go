// Following a Server-Sent Events stream that the server ends now and then (its 5-minute close, a
// dropped connection): StreamProcess and WatchSandbox both reconnect from where the last event
// left off until a terminal event, so their callbacks see each event once.
package cairn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrStopStream, returned by a StreamProcess, WatchSandbox or ExecStream callback, ends the stream
// without an error.
var ErrStopStream = errors.New("cairn: stop the stream")

// streamFailures is how many connections in a row may fail (or break off) before a followed
// stream gives up.
const streamFailures = 3

// streamIdleTimeout: the server sends a keep-alive comment after 15 s without output, so a
// connection silent for longer is dead and is replaced.
const streamIdleTimeout = 15*time.Second + sandboxTimeoutMargin

// followStream reads the events at path over as many connections as it takes, each opened with
// the query resume gives then (where the last event left off; nil for none), and hands each event
// to handle until it says done or returns an error. It returns nil when done, handle's error
// (ErrStopStream: nil), ctx's error wrapped in a *ConnectionError when ctx ends, an *APIError when
// the server refuses, or a *ConnectionError after streamFailures failed connections in a row.
func followStream[Event any](ctx context.Context, c *Client, path string, resume func() url.Values, handle func(Event) (done bool, err error)) error {
	for failures := 0; ; {
		progressed, finished, err := followOnce(ctx, c, path, resume(), handle)
		if finished {
			if errors.Is(err, ErrStopStream) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return &ConnectionError{Method: http.MethodGet, Path: path, Err: ctx.Err()}
		}
		if progressed {
			failures = 0
		}
		if err != nil {
			failures++
			if failures > streamFailures {
				return &ConnectionError{Method: http.MethodGet, Path: path, Err: err}
			}
		}
		// The server closed the stream before the end (its time limit): resume where it stopped.
	}
}

// followOnce reads one connection's events. finished means followStream is done (handle said so
// or failed, the server refused, or an event did not decode: the error, if any, in err); otherwise
// err is why the connection failed (nil: the server closed it), and progressed whether any event
// came.
func followOnce[Event any](ctx context.Context, c *Client, path string, query url.Values, handle func(Event) (bool, error)) (progressed, finished bool, err error) {
	connection, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := time.AfterFunc(streamIdleTimeout, cancel)
	defer idle.Stop()
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	request, err := http.NewRequestWithContext(connection, http.MethodGet, target, nil)
	if err != nil {
		return false, true, fmt.Errorf("cairn: building GET %s: %w", path, err)
	}
	c.identify(request, "text/event-stream")
	response, err := c.httpClient.Do(request)
	if err != nil {
		return false, false, err
	}
	defer response.Body.Close()
	if response.StatusCode < 200 || response.StatusCode >= 300 {
		answer, _ := io.ReadAll(response.Body)
		return false, true, ParseAPIError(response.StatusCode, response.Header, answer).wrap()
	}
	events := eventReader{lines: bufio.NewReader(response.Body), idle: idle}
	for {
		data, err := events.next()
		if errors.Is(err, io.EOF) {
			return progressed, false, nil
		}
		if err != nil {
			return progressed, false, err
		}
		var event Event
		if err := json.Unmarshal(data, &event); err != nil {
			return progressed, true, fmt.Errorf("cairn: GET %s sent an event that does not decode: %w", path, err)
		}
		if done, err := handle(event); done || err != nil {
			return true, true, err
		}
		progressed = true
	}
}

// eventReader reads Server-Sent Events from a response body, one event's data at a time.
type eventReader struct {
	lines *bufio.Reader
	// idle is reset at every line (keep-alive comments included); when it fires it cancels the
	// connection's context, so a silent connection ends.
	idle *time.Timer
}

// next returns the next event's data lines joined; io.EOF when the stream ended between events,
// io.ErrUnexpectedEOF when it ended inside a line.
func (r *eventReader) next() ([]byte, error) {
	var data []string
	for {
		line, err := r.lines.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line != "" {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		r.idle.Reset(streamIdleTimeout)
		line = strings.TrimRight(line, "\r\n")
		if value, isData := strings.CutPrefix(line, "data:"); isData {
			data = append(data, strings.TrimPrefix(value, " "))
			continue
		}
		if line != "" || len(data) == 0 {
			continue // a comment (": keep-alive"), an id or event line
		}
		return []byte(strings.Join(data, "\n")), nil
	}
}
