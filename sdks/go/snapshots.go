// Snapshots of a sandbox's files and its activity feed (docs/sandboxes.md#snapshots, #activity).
package cairn

import (
	"context"
	"net/url"
	"strconv"
)

// SnapshotOptions are the optional fields of CreateSnapshot and RestoreSnapshot.
type SnapshotOptions struct {
	Label string `json:"label,omitempty"`
}

// CreateSnapshot takes an immutable, consistent copy of the sandbox's /workspace and /tmp.
func (c *Client) CreateSnapshot(ctx context.Context, sessionID string, options SnapshotOptions) (*CreateSnapshotOutput, error) {
	var result CreateSnapshotOutput
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/snapshots"), options, &result))
}

// ListSnapshots lists the sandbox's snapshots, newest first.
func (c *Client) ListSnapshots(ctx context.Context, sessionID string) ([]CreateSnapshotOutput, error) {
	return getList[CreateSnapshotOutput](ctx, c, sandboxPath(sessionID, "/snapshots"))
}

// GetSnapshot returns one snapshot.
func (c *Client) GetSnapshot(ctx context.Context, snapshotID string) (*CreateSnapshotOutput, error) {
	var result CreateSnapshotOutput
	return done(&result, c.get(ctx, "/v1/snapshots/"+segment(snapshotID), &result))
}

// DeleteSnapshot deletes a snapshot and its data. It needs an admin key: a member key gets an
// *APIError with Code "insufficient_role" (403).
func (c *Client) DeleteSnapshot(ctx context.Context, snapshotID string) error {
	return c.delete(ctx, "/v1/snapshots/"+segment(snapshotID))
}

// RestoreSnapshot creates a new sandbox whose files are the snapshot's.
func (c *Client) RestoreSnapshot(ctx context.Context, snapshotID string, options SnapshotOptions) (*SandboxCreated, error) {
	var result SandboxCreated
	return done(&result, c.post(ctx, "/v1/snapshots/"+segment(snapshotID)+"/restore", options, &result))
}

// SandboxLog returns a page of the sandbox's activity, newest first; limit 0 means 50.
func (c *Client) SandboxLog(ctx context.Context, sessionID string, limit, offset int) (*SandboxLogOutput, error) {
	if limit == 0 {
		limit = defaultSandboxLogLimit
	}
	values := url.Values{}
	values.Set("limit", strconv.Itoa(limit))
	values.Set("offset", strconv.Itoa(offset))
	var result SandboxLogOutput
	return done(&result, c.send(ctx, call{method: "GET", path: sandboxPath(sessionID, "/log"), query: values}, &result))
}

// CreateAPIKeyWithRole makes an API key of a role: "admin" or "member" (a member key cannot
// delete snapshots or mint takeover tokens).
func (c *Client) CreateAPIKeyWithRole(ctx context.Context, accessToken, name, role string) (*APIKeyCreated, error) {
	var result APIKeyCreated
	body := map[string]string{"name": name, "role": role}
	request := call{method: "POST", path: "/v1/api-keys", body: body, credential: accessToken}
	return done(&result, c.send(ctx, request, &result))
}
