// A sandbox's activity feed live (GET /v1/sandboxes/{id}/watch, docs/api.md#activity) as
// Server-Sent Events. WatchSandbox hands each new entry to a callback; after a dropped connection
// or the server's 5-minute close it reconnects from the last entry's Seq, so the callback sees
// each entry once, until the sandbox ends.
package cairn

import (
	"context"
	"net/url"
	"strconv"
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
	since := options.Since
	resume := func() url.Values {
		if since == nil {
			return nil
		}
		return url.Values{"since": {strconv.Itoa(*since)}}
	}
	return followStream(ctx, c, sandboxPath(sessionID, "/watch"), resume, func(event activityStreamEvent) (bool, error) {
		if event.Type == "end" {
			return true, nil
		}
		seq := event.Seq
		since = &seq
		return false, handle(event.ActivityEntry)
	})
}
