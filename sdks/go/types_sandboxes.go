// Typed shapes of the sandbox routes: sessions, exec, the HTTP broker, files and language
// servers. Request structs carry json tags for the wire; the methods fill in the documented
// defaults before sending, so a zero field means "the default".
package cairn

// Sandbox is one sandbox session, active or destroyed.
type Sandbox struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"`
	Label       *string `json:"label"`
	CreatedAt   string  `json:"created_at"`
	DestroyedAt *string `json:"destroyed_at"`
	ExpiresAt   string  `json:"expires_at"`
	// EndedReason is nil while active, else "destroyed" or "expired".
	EndedReason *string `json:"ended_reason"`
	// Runtime is "local" or "kubernetes".
	Runtime string `json:"runtime"`
	// Connect is nil once destroyed.
	Connect *SandboxConnect `json:"connect"`
}

// SandboxConnect says how to reach an active sandbox.
type SandboxConnect struct {
	PodName *string `json:"pod_name"`
	Note    string  `json:"note"`
}

// SandboxCreated is a new sandbox and the account's usage after creating it.
type SandboxCreated struct {
	Sandbox
	Usage UsageSummary `json:"usage"`
}

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

// ExecRequest is a shell command to run in the sandbox (cwd /workspace).
type ExecRequest struct {
	Command string `json:"command"`
	// Timeout in seconds, 1–100 (zero: 30). The HTTP call waits this plus 15 s.
	Timeout     int    `json:"timeout"`
	Description string `json:"description,omitempty"`
}

// ExecResult is what the command did.
type ExecResult struct {
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	TimedOut   bool   `json:"timed_out"`
	Truncated  bool   `json:"truncated"`
	DurationMS int    `json:"duration_ms"`
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

// SandboxHTTPResponse is the broker's answer, with secret values redacted.
type SandboxHTTPResponse struct {
	StatusCode int               `json:"status_code"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	Truncated  bool              `json:"truncated"`
}

// FileCreateRequest writes (creates or overwrites) a file.
type FileCreateRequest struct {
	Path        string `json:"path"`
	Content     string `json:"content"`
	Description string `json:"description,omitempty"`
}

// FileWritten is the file as written.
type FileWritten struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	Created bool   `json:"created"`
}

// ViewRequest reads a file, or lines [start, end] of it (1-indexed).
type ViewRequest struct {
	Path        string  `json:"path"`
	ViewRange   *[2]int `json:"view_range"`
	Description string  `json:"description,omitempty"`
}

// FileView is a file's content.
type FileView struct {
	Content     string   `json:"content"`
	Lines       int      `json:"lines"`
	IsDirectory bool     `json:"is_directory"`
	Entries     []string `json:"entries"`
}

// StrReplaceRequest replaces OldStr, which must be unique unless ReplaceAll.
type StrReplaceRequest struct {
	Path        string `json:"path"`
	OldStr      string `json:"old_str"`
	NewStr      string `json:"new_str"`
	ReplaceAll  bool   `json:"replace_all"`
	Description string `json:"description,omitempty"`
}

// StrReplaceResult counts what changed.
type StrReplaceResult struct {
	Path        string `json:"path"`
	Replaced    int    `json:"replaced"`
	Occurrences int    `json:"occurrences"`
}

// FileEntry is one file or directory (directories end with "/").
type FileEntry struct {
	Path       string `json:"path"`
	IsDir      bool   `json:"is_dir"`
	Size       int64  `json:"size"`
	ModifiedAt string `json:"modified_at"`
}

// LsResult lists a directory, sorted by path.
type LsResult struct {
	Entries []FileEntry `json:"entries"`
}

// GlobRequest finds files matching a pattern such as "**/*.py" under Path (default "/").
type GlobRequest struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// GlobResult is the matching files.
type GlobResult struct {
	Matches []FileEntry `json:"matches"`
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

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// GrepResult is the matches; Error says why a search stopped (an invalid regex, a timeout).
type GrepResult struct {
	Matches   []GrepMatch `json:"matches"`
	Error     *string     `json:"error"`
	Truncated bool        `json:"truncated"`
}

// LSPStarted names a language server running in the sandbox.
type LSPStarted struct {
	LSPID string `json:"lsp_id"`
}

// LSPStatus is "opened" or "stopped".
type LSPStatus struct {
	Status string `json:"status"`
}

// LSPCompletion is the raw LSP CompletionItem objects.
type LSPCompletion struct {
	Items []map[string]any `json:"items"`
}
