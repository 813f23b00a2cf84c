// A background process's output as Server-Sent Events (GET …/processes/{id}/stream,
// docs/api.md#processes). StreamProcess hands each event to a callback; after a dropped
// connection or the server's 5-minute close it reconnects from the last event's NextOffset, so
// the callback sees every byte once, until the exit event.
package cairn

import (
	"context"
	"net/url"
	"strconv"
)

// StreamProcess follows a process's output from sinceOffset (0, or a NextOffset) and calls
// handle with each event, the last one of Type "exit". It returns nil after the exit event,
// the callback's error if it returns one (ErrStopStream: nil), ctx's error wrapped in a
// *ConnectionError when ctx ends, an *APIError when the server refuses (404 once the sandbox
// is gone), or a *ConnectionError after 3 failed connections in a row.
func (c *Client) StreamProcess(ctx context.Context, sessionID, processID string, sinceOffset int, handle func(ProcessEvent) error) error {
	since := sinceOffset
	resume := func() url.Values { return url.Values{"since_offset": {strconv.Itoa(since)}} }
	return followStream(ctx, c, processPath(sessionID, processID, "/stream"), resume, func(event ProcessEvent) (bool, error) {
		since = event.NextOffset
		return event.Type == "exit", handle(event)
	})
}
