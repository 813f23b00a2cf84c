// What the background-process routes take (docs/api.md#processes), and the events of their
// output stream. What the JSON routes answer (BackgroundProcess, ProcessList, ProcessOutput,
// ProcessInputResult) is in types_generated.go.
package cairn

// StartProcessRequest is a shell command to start in the background of a sandbox.
type StartProcessRequest struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
	// MaxRuntimeSeconds stops it after that long, 1–604800 (nil: when the sandbox ends).
	MaxRuntimeSeconds *int `json:"max_runtime_seconds"`
}

// ProcessOutputOptions says where a read of a process's output starts and how long it waits.
type ProcessOutputOptions struct {
	// SinceOffset is 0, or the NextOffset of the previous read: nothing is lost or repeated.
	SinceOffset int
	// MaxBytes is 1–1048576 (zero: 65536), both streams together.
	MaxBytes int
	// Keep is KeepHead (empty: the page from SinceOffset), or KeepTail or KeepBoth: read to the
	// newest output and keep its last MaxBytes (or half at each end); the answer's OmittedRange
	// and OmittedBytes name what was left out.
	Keep string
	// WaitSeconds, 0–60, waits that long for output past SinceOffset or the end; the HTTP call
	// waits it plus 15 s.
	WaitSeconds int
}

// ProcessInputRequest is text for a process's stdin; EOF closes stdin after it.
type ProcessInputRequest struct {
	// Data is written as UTF-8 (add "\n" for a line).
	Data string `json:"data"`
	EOF  bool   `json:"eof"`
}

// ProcessEvent is one event of a process's output stream. Type "output" carries a chunk of one
// stream (the other chunk is empty); the last event has Type "exit", with Status and ExitCode.
// NextOffset is where a read or a new stream resumes after it.
type ProcessEvent struct {
	Type        string `json:"type"`
	StdoutChunk string `json:"stdout_chunk"`
	StderrChunk string `json:"stderr_chunk"`
	NextOffset  int    `json:"next_offset"`
	// Truncated (on the first event only): bytes before it were dropped by the server.
	Truncated bool `json:"truncated"`
	// Status is "exited", "killed" or "timed_out" on the exit event.
	Status   string `json:"status,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
}
