// A background process's output as Server-Sent Events (GET …/processes/{id}/stream,
// docs/api.md#processes). StreamProcess hands each event to a callback; after a dropped
// connection or the server's 5-minute close it reconnects from the last event's NextOffset, so
// the callback sees every byte once, until the exit event.
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
	"strconv"
	"strings"
	"time"
)

// ErrStopStream, returned by a StreamProcess callback, ends the stream without an error.
var ErrStopStream = errors.New("cairn: stop the stream")

// streamFailures is how many connections in a row may fail (or break off) before StreamProcess
// gives up.
const streamFailures = 3

// streamIdleTimeout: the server sends a keep-alive comment after 15 s without output, so a
// connection silent for longer is dead and is replaced.
const streamIdleTimeout = 15*time.Second + sandboxTimeoutMargin

// StreamProcess follows a process's output from sinceOffset (0, or a NextOffset) and calls
// handle with each event, the last one of Type "exit". It returns nil after the exit event,
// the callback's error if it returns one (ErrStopStream: nil), ctx's error wrapped in a
// *ConnectionError when ctx ends, an *APIError when the server refuses (404 once the sandbox
// is gone), or a *ConnectionError after 3 failed connections in a row.
func (c *Client) StreamProcess(ctx context.Context, sessionID, processID string, sinceOffset int, handle func(ProcessEvent) error) error {
	path := processPath(sessionID, processID, "/stream")
	since := sinceOffset
	for failures := 0; ; {
		progressed, finished, err := c.streamOnce(ctx, path, &since, handle)
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

// streamOnce reads one connection's events. finished means StreamProcess is done (the exit
// event, the callback's error or the server's refusal, in err); otherwise err is why the
// connection failed (nil: the server closed it), and progressed whether any event came.
func (c *Client) streamOnce(ctx context.Context, path string, since *int, handle func(ProcessEvent) error) (progressed, finished bool, err error) {
	connection, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := time.AfterFunc(streamIdleTimeout, cancel)
	defer idle.Stop()
	target := c.baseURL + path + "?" + url.Values{"since_offset": {strconv.Itoa(*since)}}.Encode()
	request, err := http.NewRequestWithContext(connection, http.MethodGet, target, nil)
	if err != nil {
		return false, true, fmt.Errorf("cairn: building GET %s: %w", path, err)
	}
	request.Header.Set("Accept", "text/event-stream")
	request.Header.Set("User-Agent", "cairn-go/"+Version)
	if c.apiKey != "" {
		request.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
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
		var event ProcessEvent
		if err := json.Unmarshal(data, &event); err != nil {
			return progressed, true, fmt.Errorf("cairn: GET %s sent an event that does not decode: %w", path, err)
		}
		progressed = true
		*since = event.NextOffset
		if err := handle(event); err != nil {
			return true, true, err
		}
		if event.Type == "exit" {
			return true, true, nil
		}
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
