// WithSandbox and SandboxSession: one sandbox's calls without repeating its id, and a sandbox
// that is destroyed when the work is done, whatever the work did.
package cairn

import (
	"context"
	"errors"
	"io"
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

// ExecStream runs a shell command and hands its output to handle as it comes; see
// Client.ExecStream.
func (s *SandboxSession) ExecStream(ctx context.Context, request ExecRequest, handle func(ExecEvent) error) (*ExecEvent, error) {
	return s.client.ExecStream(ctx, s.ID, request, handle)
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

// UploadFile writes a reader's bytes to a file; see Client.UploadFile.
func (s *SandboxSession) UploadFile(ctx context.Context, path string, body io.Reader) (*FileWritten, error) {
	return s.client.UploadFile(ctx, s.ID, path, body)
}

// DownloadFile copies a file's bytes into a writer; see Client.DownloadFile.
func (s *SandboxSession) DownloadFile(ctx context.Context, path string, destination io.Writer) (int64, error) {
	return s.client.DownloadFile(ctx, s.ID, path, destination)
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

// StartProcess starts a background process; see Client.StartProcess.
func (s *SandboxSession) StartProcess(ctx context.Context, request StartProcessRequest) (*BackgroundProcess, error) {
	return s.client.StartProcess(ctx, s.ID, request)
}

// ListProcesses lists the sandbox's background processes.
func (s *SandboxSession) ListProcesses(ctx context.Context) (*ProcessList, error) {
	return s.client.ListProcesses(ctx, s.ID)
}

// GetProcess returns one background process's state.
func (s *SandboxSession) GetProcess(ctx context.Context, processID string) (*BackgroundProcess, error) {
	return s.client.GetProcess(ctx, s.ID, processID)
}

// ProcessOutput reads a process's output from an offset; see Client.ProcessOutput.
func (s *SandboxSession) ProcessOutput(ctx context.Context, processID string, options ProcessOutputOptions) (*ProcessOutput, error) {
	return s.client.ProcessOutput(ctx, s.ID, processID, options)
}

// StreamProcess follows a process's output as events; see Client.StreamProcess.
func (s *SandboxSession) StreamProcess(ctx context.Context, processID string, sinceOffset int, handle func(ProcessEvent) error) error {
	return s.client.StreamProcess(ctx, s.ID, processID, sinceOffset, handle)
}

// Watch follows the sandbox's activity feed; see Client.WatchSandbox.
func (s *SandboxSession) Watch(ctx context.Context, options WatchOptions, handle func(ActivityEntry) error) error {
	return s.client.WatchSandbox(ctx, s.ID, options, handle)
}

// ProcessInput writes to a process's stdin; see Client.ProcessInput.
func (s *SandboxSession) ProcessInput(ctx context.Context, processID string, request ProcessInputRequest) (*ProcessInputResult, error) {
	return s.client.ProcessInput(ctx, s.ID, processID, request)
}

// StopProcess stops a background process; see Client.StopProcess.
func (s *SandboxSession) StopProcess(ctx context.Context, processID string) (*BackgroundProcess, error) {
	return s.client.StopProcess(ctx, s.ID, processID)
}

// WaitProcess waits for a background process to end; see Client.WaitProcess.
func (s *SandboxSession) WaitProcess(ctx context.Context, processID string, timeoutSeconds int) (*BackgroundProcess, error) {
	return s.client.WaitProcess(ctx, s.ID, processID, timeoutSeconds)
}
