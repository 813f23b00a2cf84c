// A sandbox's activity feed live (GET /v1/sandboxes/{id}/watch, docs/api.md#activity) as
// Server-Sent Events. WatchSandbox hands each new entry to a callback; after a dropped connection
// or the server's 5-minute close it reconnects from the last entry's Seq, so the callback sees
// each entry once, until the sandbox ends.
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
	"time"
)

// ActivityEntry is one entry of a sandbox's activity feed, as SandboxLog pages them.
type ActivityEntry = SandboxLogOutputEntries

// WatchOptions says where a watch starts.
type WatchOptions struct {
	// Since replays the entries after this Seq that the server still keeps, then follows; nil
	// follows only what happens from now on.
	Since *int
}

// activityStreamEvent is an event as sent: an entry, or the end event (Type "end").
type activityStreamEvent struct {
	Type string `json:"type"`
	ActivityEntry
}

// WatchSandbox follows a sandbox's activity feed and calls handle with each new entry, oldest
// first. It returns nil when the sandbox ends, the callback's error if it returns one
// (ErrStopStream: nil), ctx's error wrapped in a *ConnectionError when ctx ends, an *APIError
// when the server refuses (404 for an unknown sandbox), or a *ConnectionError after 3 failed
// connections in a row.
func (c *Client) WatchSandbox(ctx context.Context, sessionID string, options WatchOptions, handle func(ActivityEntry) error) error {
	path := sandboxPath(sessionID, "/watch")
	since := options.Since
	for failures := 0; ; {
		progressed, finished, err := c.watchOnce(ctx, path, &since, handle)
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

// watchOnce reads one connection's entries; its results mean what streamOnce's do.
func (c *Client) watchOnce(ctx context.Context, path string, since **int, handle func(ActivityEntry) error) (progressed, finished bool, err error) {
	connection, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := time.AfterFunc(streamIdleTimeout, cancel)
	defer idle.Stop()
	target := c.baseURL + path
	if *since != nil {
		target += "?" + url.Values{"since": {strconv.Itoa(**since)}}.Encode()
	}
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
		var event activityStreamEvent
		if err := json.Unmarshal(data, &event); err != nil {
			return progressed, true, fmt.Errorf("cairn: GET %s sent an event that does not decode: %w", path, err)
		}
		if event.Type == "end" {
			return progressed, true, nil
		}
		progressed = true
		seq := event.Seq
		*since = &seq
		if err := handle(event.ActivityEntry); err != nil {
			return true, true, err
		}
	}
}
