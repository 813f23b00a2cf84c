// Tools by name: every tool the server offers, built-in and from plugins, through the generic
// routes GET /v1/tools and POST /v1/tools/{name}. Plugin tools are unknown to this package, so
// CallTool decodes the output into whatever the caller passes.
package cairn

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// ToolAnnotations is what a client may assume about calling a tool.
type ToolAnnotations struct {
	ReadOnly    bool `json:"read_only"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	OpenWorld   bool `json:"open_world"`
}

// ToolHTTPRoute is a tool's own REST route.
type ToolHTTPRoute struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

// Tool is one tool the server offers: a built-in operation, or a plugin's ("<plugin>.<tool>").
type Tool struct {
	// Name is what CallTool takes.
	Name string `json:"name"`
	// Plugin is the plugin that adds the tool; nil for a built-in one.
	Plugin       *string         `json:"plugin"`
	Group        string          `json:"group"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Annotations  ToolAnnotations `json:"annotations"`
	InputSchema  map[string]any  `json:"input_schema"`
	OutputSchema map[string]any  `json:"output_schema"`
	// MCPName is the tool's MCP name; nil when MCP does not offer it.
	MCPName *string `json:"mcp_name"`
	// HTTP is the tool's own REST route; nil when it has none.
	HTTP *ToolHTTPRoute `json:"http"`
}

// ToolList is the answer of ListTools.
type ToolList struct {
	Tools []Tool `json:"tools"`
}

// ToolCallOption changes one CallTool request.
type ToolCallOption func(*call)

// WithIdempotencyKey sends an Idempotency-Key: a repeat with the same key and input replays the
// first answer instead of running the tool again.
func WithIdempotencyKey(key string) ToolCallOption {
	return func(request *call) { request.headers = map[string]string{"Idempotency-Key": key} }
}

// WithCallTimeout sets how long this call waits for its answer, instead of the client's timeout
// or a sandbox-side timeout's wait.
func WithCallTimeout(timeout time.Duration) ToolCallOption {
	return func(request *call) { request.timeout = timeout }
}

// ListTools lists every tool the server offers, built-in and from plugins, with its input and
// output JSON Schemas.
func (c *Client) ListTools(ctx context.Context) (*ToolList, error) {
	var result ToolList
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/tools"}, &result))
}

// CallTool calls a tool by name ("recall", "<plugin>.<tool>") with its wire input (a struct or a
// map; nil sends {}) through the same checks as its own route, and decodes its output into out
// (a pointer; nil drops it). A route that answers nothing answers {} here. An input with a
// positive sandbox-side "timeout" in seconds (exec, http_request) is waited for that plus 15 s,
// as Exec is; any other call waits the client's timeout.
func (c *Client) CallTool(ctx context.Context, name string, input any, out any, options ...ToolCallOption) error {
	if input == nil {
		input = map[string]any{}
	}
	path := "/v1/tools/" + segment(name)
	body, err := json.Marshal(input)
	if err != nil {
		return fmt.Errorf("cairn: encoding the POST %s body: %w", path, err)
	}
	request := call{method: "POST", path: path, body: json.RawMessage(body), timeout: sandboxWait(body)}
	for _, option := range options {
		option(&request)
	}
	return c.send(ctx, request, out)
}

// sandboxWait is the HTTP wait for an encoded tool input whose top-level "timeout" is a positive
// number of seconds: that plus the sandbox margin. Zero (the client's timeout) otherwise, and for
// a value too large for a Duration (the server refuses it at once anyway).
func sandboxWait(body []byte) time.Duration {
	var fields map[string]any
	if json.Unmarshal(body, &fields) != nil {
		return 0
	}
	seconds, isNumber := fields["timeout"].(float64)
	if !isNumber || seconds <= 0 || seconds > maxSandboxSeconds {
		return 0
	}
	return time.Duration(seconds*float64(time.Second)) + sandboxTimeoutMargin
}

// maxSandboxSeconds keeps a sandbox-side timeout plus the margin within a Duration.
const maxSandboxSeconds = float64(math.MaxInt64/int64(time.Second)) - 3600
