// File and language-server methods inside a sandbox. Paths are relative to /workspace, or
// absolute inside /workspace, /tmp or a mounted volume.
package cairn

import "context"

func (c *Client) post(ctx context.Context, path string, body, result any) error {
	return c.send(ctx, call{method: "POST", path: path, body: body}, result)
}

// FileCreate writes a file, creating or overwriting it.
func (c *Client) FileCreate(ctx context.Context, sessionID string, request FileCreateRequest) (*FileWritten, error) {
	var result FileWritten
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/files"), request, &result))
}

// View reads a file, or a range of its lines.
func (c *Client) View(ctx context.Context, sessionID string, request ViewRequest) (*FileView, error) {
	var result FileView
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/files/view"), request, &result))
}

// StrReplace edits a file in place.
func (c *Client) StrReplace(ctx context.Context, sessionID string, request StrReplaceRequest) (*StrReplaceResult, error) {
	var result StrReplaceResult
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/files/str-replace"), request, &result))
}

// Ls lists a directory (empty path: the workspace).
func (c *Client) Ls(ctx context.Context, sessionID, path string) (*LsResult, error) {
	if path == "" {
		path = defaultLsPath
	}
	var result LsResult
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/files/ls"), map[string]string{"path": path}, &result))
}

// Glob finds files by pattern.
func (c *Client) Glob(ctx context.Context, sessionID string, request GlobRequest) (*GlobResult, error) {
	if request.Path == "" {
		request.Path = defaultGlobPath
	}
	var result GlobResult
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/files/glob"), request, &result))
}

// Grep searches file contents.
func (c *Client) Grep(ctx context.Context, sessionID string, request GrepRequest) (*GrepResult, error) {
	if request.Path == "" {
		request.Path = defaultGrepPath
	}
	if request.MaxMatches == 0 {
		request.MaxMatches = defaultGrepMaxMatches
	}
	var result GrepResult
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/files/grep"), request, &result))
}

func lspPath(sessionID, lspID, action string) string {
	return sandboxPath(sessionID, "/lsp/"+segment(lspID)+"/"+action)
}

// LSPStart starts a language server ("python", "typescript", …) in the sandbox.
func (c *Client) LSPStart(ctx context.Context, sessionID, language string) (*LSPStarted, error) {
	var result LSPStarted
	body := map[string]string{"language": language}
	return done(&result, c.post(ctx, sandboxPath(sessionID, "/lsp/start"), body, &result))
}

// LSPOpen sends a document's whole content to the language server.
func (c *Client) LSPOpen(ctx context.Context, sessionID, lspID, path, content string) (*LSPStatus, error) {
	var result LSPStatus
	body := map[string]string{"path": path, "content": content}
	return done(&result, c.post(ctx, lspPath(sessionID, lspID, "open"), body, &result))
}

// LSPCompletion asks for completions at a 0-indexed line and character.
func (c *Client) LSPCompletion(ctx context.Context, sessionID, lspID, path string, line, character int) (*LSPCompletion, error) {
	var result LSPCompletion
	body := map[string]any{"path": path, "line": line, "character": character}
	return done(&result, c.post(ctx, lspPath(sessionID, lspID, "completion"), body, &result))
}

// LSPStop stops the language server.
func (c *Client) LSPStop(ctx context.Context, sessionID, lspID string) (*LSPStatus, error) {
	var result LSPStatus
	return done(&result, c.post(ctx, lspPath(sessionID, lspID, "stop"), map[string]any{}, &result))
}
