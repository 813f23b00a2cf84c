// Previews of sandbox ports and the takeover terminal's token and recording
// (docs/sandboxes.md#previews, #takeover-terminal).
package cairn

import (
	"context"
	"strconv"
)

func previewPath(sessionID string, port int, action string) string {
	return sandboxPath(sessionID, "/preview/"+strconv.Itoa(port)+action)
}

// PreviewOptions are the optional fields of Preview; TTLSeconds 0 means the server's default (900).
type PreviewOptions struct {
	TTLSeconds int `json:"ttl_seconds,omitempty"`
}

// Preview returns a URL that reaches port inside the sandbox (HTTP and WebSocket) until
// ExpiresAt. The URL is its own authorization: share it as a secret.
func (c *Client) Preview(ctx context.Context, sessionID string, port int, options PreviewOptions) (*CreatePreviewOutput, error) {
	var result CreatePreviewOutput
	return done(&result, c.post(ctx, previewPath(sessionID, port, ""), options, &result))
}

// RevokePreview ends a preview URL at once; revoking one twice is no error.
func (c *Client) RevokePreview(ctx context.Context, sessionID string, port int, tokenID string) (*RevokePreviewOutput, error) {
	var result RevokePreviewOutput
	body := map[string]string{"token_id": tokenID}
	return done(&result, c.post(ctx, previewPath(sessionID, port, "/revoke"), body, &result))
}

// ListPreviews lists the sandbox's unexpired previews (their ids, not their URLs).
func (c *Client) ListPreviews(ctx context.Context, sessionID string) (*ListPreviewsOutput, error) {
	var result ListPreviewsOutput
	return done(&result, c.send(ctx, call{method: "GET", path: sandboxPath(sessionID, "/previews")}, &result))
}

// TakeoverToken mints a single-use token (valid 60 s) that opens the sandbox's terminal as a
// WebSocket: GET /v1/sandboxes/{id}/takeover?token=…. It needs an admin key.
func (c *Client) TakeoverToken(ctx context.Context, sessionID string, readOnly bool) (*TakeoverTokenOutput, error) {
	var result TakeoverTokenOutput
	body := map[string]bool{"read_only": readOnly}
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/takeover-token"), body, &result))
}

// TakeoverRecording returns what the takeover terminal was sent and showed (the last 1 MiB).
func (c *Client) TakeoverRecording(ctx context.Context, sessionID string) (*TakeoverRecordingOutput, error) {
	var result TakeoverRecordingOutput
	return done(&result, c.send(ctx, call{method: "GET", path: sandboxPath(sessionID, "/takeover/recording")}, &result))
}

// Preview returns a URL reaching port inside this sandbox.
func (s *SandboxSession) Preview(ctx context.Context, port int, options PreviewOptions) (*CreatePreviewOutput, error) {
	return s.client.Preview(ctx, s.ID, port, options)
}

// RevokePreview ends one of this sandbox's preview URLs.
func (s *SandboxSession) RevokePreview(ctx context.Context, port int, tokenID string) (*RevokePreviewOutput, error) {
	return s.client.RevokePreview(ctx, s.ID, port, tokenID)
}

// TakeoverToken mints a single-use token for this sandbox's terminal.
func (s *SandboxSession) TakeoverToken(ctx context.Context, readOnly bool) (*TakeoverTokenOutput, error) {
	return s.client.TakeoverToken(ctx, s.ID, readOnly)
}
