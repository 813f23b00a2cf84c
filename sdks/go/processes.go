// Background processes in a sandbox (docs/api.md#processes): start one without waiting, read its
// output by offset, write its stdin, wait for it, stop it. StreamProcess (process_stream.go)
// follows the output as events.
package cairn

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// stopMargin is the extra wait on a stop beyond the client's timeout: SIGTERM, then SIGKILL
// 5 s later, and the answer once the process has ended.
const stopMargin = 10 * time.Second

func processesPath(sessionID string) string {
	return sandboxPath(sessionID, "/processes")
}

func processPath(sessionID, processID, action string) string {
	return processesPath(sessionID) + "/" + segment(processID) + action
}

// StartProcess starts a shell command in the sandbox without waiting for it and answers at once
// with its ProcessID. It runs until it exits, is stopped, reaches MaxRuntimeSeconds or the
// sandbox ends.
func (c *Client) StartProcess(ctx context.Context, sessionID string, request StartProcessRequest) (*BackgroundProcess, error) {
	var result BackgroundProcess
	return done(&result, c.post(ctx, processesPath(sessionID), request, &result))
}

// ListProcesses lists the sandbox's background processes, running and recently ended, oldest first.
func (c *Client) ListProcesses(ctx context.Context, sessionID string) (*ProcessList, error) {
	var result ProcessList
	return done(&result, c.send(ctx, call{method: "GET", path: processesPath(sessionID)}, &result))
}

// GetProcess returns one background process's state.
func (c *Client) GetProcess(ctx context.Context, sessionID, processID string) (*BackgroundProcess, error) {
	var result BackgroundProcess
	return done(&result, c.send(ctx, call{method: "GET", path: processPath(sessionID, processID, "")}, &result))
}

// ProcessOutput reads a process's stdout and stderr from options.SinceOffset; read again from
// the answer's NextOffset to go on.
func (c *Client) ProcessOutput(ctx context.Context, sessionID, processID string, options ProcessOutputOptions) (*ProcessOutput, error) {
	if options.MaxBytes == 0 {
		options.MaxBytes = defaultProcessOutputMaxBytes
	}
	query := url.Values{
		"since_offset": {strconv.Itoa(options.SinceOffset)},
		"max_bytes":    {strconv.Itoa(options.MaxBytes)},
		"wait_seconds": {strconv.Itoa(options.WaitSeconds)},
	}
	if options.Keep != "" {
		query.Set("keep", options.Keep)
	}
	get := call{method: "GET", path: processPath(sessionID, processID, "/output"), query: query}
	if options.WaitSeconds > 0 {
		get.timeout = time.Duration(options.WaitSeconds)*time.Second + sandboxTimeoutMargin
	}
	var result ProcessOutput
	return done(&result, c.send(ctx, get, &result))
}

// ProcessInput writes to a process's stdin, closing it afterwards when request.EOF. Until the
// process has read the previous input another is refused (409 process_stdin_busy, retryable).
func (c *Client) ProcessInput(ctx context.Context, sessionID, processID string, request ProcessInputRequest) (*ProcessInputResult, error) {
	var result ProcessInputResult
	return done(&result, c.post(ctx, processPath(sessionID, processID, "/input"), request, &result))
}

// StopProcess sends SIGTERM to the process and what it started, SIGKILL 5 s later, and answers
// its final state; the HTTP call waits the client's timeout plus 10 s.
func (c *Client) StopProcess(ctx context.Context, sessionID, processID string) (*BackgroundProcess, error) {
	post := call{method: "POST", path: processPath(sessionID, processID, "/stop"), body: map[string]any{}}
	if c.timeout > 0 {
		post.timeout = c.timeout + stopMargin
	}
	var result BackgroundProcess
	return done(&result, c.send(ctx, post, &result))
}

// WaitProcess waits up to timeoutSeconds (1–100; zero: 30) for the process to end and answers
// its state either way (Status "running": not ended yet). The HTTP call waits that plus 15 s.
func (c *Client) WaitProcess(ctx context.Context, sessionID, processID string, timeoutSeconds int) (*BackgroundProcess, error) {
	if timeoutSeconds == 0 {
		timeoutSeconds = defaultProcessWaitTimeoutSeconds
	}
	post := call{
		method:  "POST",
		path:    processPath(sessionID, processID, "/wait"),
		body:    map[string]int{"timeout_seconds": timeoutSeconds},
		timeout: time.Duration(timeoutSeconds)*time.Second + sandboxTimeoutMargin,
	}
	var result BackgroundProcess
	return done(&result, c.send(ctx, post, &result))
}
