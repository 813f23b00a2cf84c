// WithSandbox and SandboxSession: one sandbox's calls without repeating its id, and a sandbox
// that is destroyed when the work is done, whatever the work did.
package cairn

import (
	"context"
	"errors"
)

// SandboxSession is one sandbox's calls; WithSandbox hands one to its work.
type SandboxSession struct {
	client  *Client
	ID      string
	Sandbox SandboxCreated
}

// Session wraps an existing sandbox by id.
func (c *Client) Session(sessionID string) *SandboxSession {
	return &SandboxSession{client: c, ID: sessionID}
}

// WithSandbox creates a sandbox, runs work with it, and destroys it afterwards, also when work
// fails or panics and when ctx is cancelled. Work's error comes first; a failed destroy joins it.
func (c *Client) WithSandbox(ctx context.Context, request CreateSandboxRequest, work func(ctx context.Context, sandbox *SandboxSession) error) (err error) {
	created, err := c.CreateSandbox(ctx, request)
	if err != nil {
		return err
	}
	session := &SandboxSession{client: c, ID: created.ID, Sandbox: *created}
	defer func() {
		// Cleanup outlives a cancelled ctx, bounded on its own.
		cleanupContext, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
		defer cancel()
		destroyError := c.DestroySandbox(cleanupContext, session.ID)
		var apiError *APIError
		if errors.As(destroyError, &apiError) && apiError.StatusCode == 404 {
			destroyError = nil // already gone: expired, or destroyed by the work
		}
		if destroyError != nil {
			err = errors.Join(err, destroyError)
		}
	}()
	return work(ctx, session)
}

// Exec runs a shell command; see Client.Exec.
func (s *SandboxSession) Exec(ctx context.Context, request ExecRequest) (*ExecResult, error) {
	return s.client.Exec(ctx, s.ID, request)
}

// HTTPRequest makes a request through the broker; see Client.HTTPRequest.
func (s *SandboxSession) HTTPRequest(ctx context.Context, request SandboxHTTPRequest) (*SandboxHTTPResponse, error) {
	return s.client.HTTPRequest(ctx, s.ID, request)
}

// FileCreate writes a file.
func (s *SandboxSession) FileCreate(ctx context.Context, request FileCreateRequest) (*FileWritten, error) {
	return s.client.FileCreate(ctx, s.ID, request)
}

// View reads a file.
func (s *SandboxSession) View(ctx context.Context, request ViewRequest) (*FileView, error) {
	return s.client.View(ctx, s.ID, request)
}

// StrReplace edits a file in place.
func (s *SandboxSession) StrReplace(ctx context.Context, request StrReplaceRequest) (*StrReplaceResult, error) {
	return s.client.StrReplace(ctx, s.ID, request)
}

// Ls lists a directory.
func (s *SandboxSession) Ls(ctx context.Context, path string) (*LsResult, error) {
	return s.client.Ls(ctx, s.ID, path)
}

// Glob finds files by pattern.
func (s *SandboxSession) Glob(ctx context.Context, request GlobRequest) (*GlobResult, error) {
	return s.client.Glob(ctx, s.ID, request)
}

// Grep searches file contents.
func (s *SandboxSession) Grep(ctx context.Context, request GrepRequest) (*GrepResult, error) {
	return s.client.Grep(ctx, s.ID, request)
}

// LSPStart starts a language server in the sandbox.
func (s *SandboxSession) LSPStart(ctx context.Context, language string) (*LSPStarted, error) {
	return s.client.LSPStart(ctx, s.ID, language)
}

// LSPOpen sends a document's whole content to a language server.
func (s *SandboxSession) LSPOpen(ctx context.Context, lspID, path, content string) (*LSPStatus, error) {
	return s.client.LSPOpen(ctx, s.ID, lspID, path, content)
}

// LSPCompletion asks a language server for completions at a 0-indexed position.
func (s *SandboxSession) LSPCompletion(ctx context.Context, lspID, path string, line, character int) (*LSPCompletion, error) {
	return s.client.LSPCompletion(ctx, s.ID, lspID, path, line, character)
}

// LSPStop stops a language server.
func (s *SandboxSession) LSPStop(ctx context.Context, lspID string) (*LSPStatus, error) {
	return s.client.LSPStop(ctx, s.ID, lspID)
}

// Destroy ends the sandbox now.
func (s *SandboxSession) Destroy(ctx context.Context) error {
	return s.client.DestroySandbox(ctx, s.ID)
}
