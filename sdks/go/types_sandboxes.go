// What the sandbox routes take: sessions, exec, the HTTP broker, files and language servers.
// Request structs carry json tags for the wire; the methods fill in the documented defaults before
// sending, so a zero field means "the default". What the routes answer is in types_generated.go.
package cairn

// CreateSandboxRequest holds the optional settings of a new sandbox.
type CreateSandboxRequest struct {
	Label string `json:"label,omitempty"`
	// Size is "small" (the default), "medium" or "large".
	Size      string   `json:"size"`
	StorageGB *float64 `json:"storage_gb,omitempty"`
	// LifetimeMinutes ends the sandbox after that long (zero: the server's maximum).
	LifetimeMinutes int `json:"lifetime_minutes,omitempty"`
	// SecretNames grants those secrets to this sandbox's HTTP broker.
	SecretNames []string `json:"secret_names,omitempty"`
	// ImageID is a completed custom image of this account.
	ImageID            string   `json:"image_id,omitempty"`
	MCPConnectionNames []string `json:"mcp_connection_names,omitempty"`
	// VolumeMounts maps a ready volume's id to an absolute mount path.
	VolumeMounts map[string]string `json:"volume_mounts,omitempty"`
}

// Which part of an output a byte budget keeps (ExecRequest.Keep, ViewRequest.Keep,
// ProcessOutputOptions.Keep): the head, the tail, or half of each with a marker between.
const (
	KeepHead = "head"
	KeepTail = "tail"
	KeepBoth = "both"
)

// ExecRequest is a shell command to run in the sandbox (cwd /workspace).
type ExecRequest struct {
	Command string `json:"command"`
	// Timeout in seconds, 1–100, or up to 3600 with ExecStream (zero: 30). The HTTP call of Exec
	// waits this plus 15 s.
	Timeout     int    `json:"timeout"`
	Description string `json:"description,omitempty"`
	// MaxOutputBytes, 1–1048576, cuts each of stdout and stderr to that many bytes, with a marker
	// where it cut; the answer's StdoutOmittedBytes and StderrOmittedBytes count what went (zero:
	// no budget). It cuts Exec's answer only, not ExecStream's events.
	MaxOutputBytes int `json:"max_output_bytes,omitempty"`
	// Keep is which part a cut keeps: KeepHead, KeepTail or KeepBoth (empty: both).
	Keep string `json:"keep,omitempty"`
}

// ExecEvent is one event of a streamed exec (ExecStream). Type "output" carries a piece of the
// output as the command wrote it: StdoutChunk, or StderrChunk for stderr (StdoutChunk is then
// empty). The last event has Type "exit" and the other fields of Exec's answer.
type ExecEvent struct {
	Type        string `json:"type"`
	StdoutChunk string `json:"stdout_chunk"`
	StderrChunk string `json:"stderr_chunk,omitempty"`
	// The rest is set on the exit event only.
	ExitCode           int  `json:"exit_code"`
	TimedOut           bool `json:"timed_out"`
	Truncated          bool `json:"truncated"`
	StdoutOmittedBytes int  `json:"stdout_omitted_bytes"`
	StderrOmittedBytes int  `json:"stderr_omitted_bytes"`
	DurationMS         int  `json:"duration_ms"`
}

// SandboxHTTPRequest is an HTTP request the broker makes for the sandbox, outside it. Headers
// and Body may contain {{secret:<name>}} for secrets granted to the sandbox.
type SandboxHTTPRequest struct {
	// Method defaults to "GET".
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    *string           `json:"body"`
	// Timeout in seconds, 1–60 (zero: 15). The HTTP call waits this plus 15 s.
	Timeout int `json:"timeout"`
}

// FileCreateRequest writes (creates or overwrites) a file. Encoding is "utf-8" (the default:
// Content is text) or "base64" (Content is base64, written as its exact bytes, at most 10 MiB);
// larger files go through UploadFile.
type FileCreateRequest struct {
	Path        string `json:"path"`
	Content     string `json:"content"`
	Encoding    string `json:"encoding,omitempty"`
	Description string `json:"description,omitempty"`
}

// ViewRequest reads a file, or lines [start, end] of it (1-indexed). With Encoding "base64" the
// answer's Content is the file's exact bytes in base64; with "utf-8" (the default) a file that is
// not UTF-8 text is refused (file_not_utf8).
type ViewRequest struct {
	Path        string  `json:"path"`
	ViewRange   *[2]int `json:"view_range"`
	Encoding    string  `json:"encoding,omitempty"`
	Description string  `json:"description,omitempty"`
	// MaxOutputBytes, 1–26214400, cuts the text (after ViewRange) to that many bytes, with a
	// marker where it cut; the answer's Truncated, OmittedBytes and OmittedLines say what went
	// (zero: no budget).
	MaxOutputBytes int `json:"max_output_bytes,omitempty"`
	// Keep is which part a cut keeps: KeepHead, KeepTail or KeepBoth (empty: head).
	Keep string `json:"keep,omitempty"`
}

// StrReplaceRequest replaces OldStr, which must be unique unless ReplaceAll.
type StrReplaceRequest struct {
	Path        string `json:"path"`
	OldStr      string `json:"old_str"`
	NewStr      string `json:"new_str"`
	ReplaceAll  bool   `json:"replace_all"`
	Description string `json:"description,omitempty"`
}

// GlobRequest finds files matching a pattern such as "**/*.py" under Path (default "/").
type GlobRequest struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// GrepRequest searches file contents for a regular expression.
type GrepRequest struct {
	Pattern string `json:"pattern"`
	// Path defaults to "/" (the workspace).
	Path string `json:"path"`
	// Glob filters the files searched (empty: every file).
	Glob string `json:"glob,omitempty"`
	// MaxMatches is 1–5000 (zero: 500).
	MaxMatches int `json:"max_matches"`
}
