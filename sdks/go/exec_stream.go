// A streamed exec (POST …/exec with Accept: text/event-stream, docs/api.md#streamed-exec): the
// command's output handed to a callback as the command writes it, then its exit event. Nothing
// reconnects (a POST is not replayed): closing the stream kills the command.
package cairn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// execStreamEvent is an event as sent: an ExecEvent, or an error event's status and envelope.
type execStreamEvent struct {
	ExecEvent
	Status int             `json:"status"`
	Error  json.RawMessage `json:"error"`
}

// ExecStream runs a shell command like Exec and calls handle with each event as it comes: Type
// "output" (StdoutChunk, or StderrChunk for stderr) while the command runs, then one "exit"
// event, which it also returns. request.Timeout may be up to 3600 s here. A refusal before the
// command starts is an *APIError (or its family's wrapper) as from Exec; a failure after it
// started (the server's error event) is one too. Returning an error from handle closes the
// stream, which kills the command, and ExecStream returns that error (ErrStopStream: nil, nil);
// so does ctx ending (a *ConnectionError wrapping ctx's error).
func (c *Client) ExecStream(ctx context.Context, sessionID string, request ExecRequest, handle func(ExecEvent) error) (*ExecEvent, error) {
	if request.Timeout == 0 {
		request.Timeout = defaultExecTimeout
	}
	path := sandboxPath(sessionID, "/exec")
	body, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("cairn: encoding the POST %s body: %w", path, err)
	}
	// Cancelling the connection closes the stream: the server then kills the command.
	connection, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(streamIdleTimeout, func() { cancel(errStreamIdle) })
	defer idle.Stop()
	post, err := http.NewRequestWithContext(connection, http.MethodPost, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("cairn: building POST %s: %w", path, err)
	}
	c.identify(post, "text/event-stream")
	post.Header.Set("Content-Type", "application/json")
	response, err := c.httpClient.Do(post)
	if err != nil {
		return nil, &ConnectionError{Method: http.MethodPost, Path: path, Err: connectionCause(connection, err)}
	}
	defer response.Body.Close()
	if response.StatusCode < 200 || response.StatusCode >= 300 {
		answer, _ := io.ReadAll(response.Body)
		return nil, ParseAPIError(response.StatusCode, response.Header, answer).wrap()
	}
	events := eventReader{lines: bufio.NewReader(response.Body), idle: idle}
	for {
		data, err := events.next()
		if errors.Is(err, io.EOF) {
			err = errors.New("the stream ended before the command did")
		}
		if err != nil {
			return nil, &ConnectionError{Method: http.MethodPost, Path: path, Err: connectionCause(connection, err)}
		}
		var event execStreamEvent
		if err := json.Unmarshal(data, &event); err != nil {
			return nil, fmt.Errorf("cairn: POST %s sent an event that does not decode: %w", path, err)
		}
		if event.Type == "error" {
			envelope := append(append([]byte(`{"error":`), event.Error...), '}')
			return nil, ParseAPIError(event.Status, http.Header{}, envelope).wrap()
		}
		if err := handle(event.ExecEvent); err != nil {
			if errors.Is(err, ErrStopStream) {
				return nil, nil
			}
			return nil, err
		}
		if event.Type == "exit" {
			return &event.ExecEvent, nil
		}
	}
}

// errStreamIdle: no event or keep-alive came for longer than the server lets pass.
var errStreamIdle = fmt.Errorf("no event or keep-alive for %v", streamIdleTimeout)

// connectionCause is why a streamed connection failed: why its context ended (the caller's ctx,
// or the idle timer; the failed read itself says only "context canceled"), else err.
func connectionCause(connection context.Context, err error) error {
	if cause := context.Cause(connection); cause != nil {
		return cause
	}
	return err
}
