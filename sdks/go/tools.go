// Tools by name: every tool the server offers, built-in and from plugins, through the generic
// routes GET /v1/tools and POST /v1/tools/{name}. Plugin tools are unknown to this package, so
// CallTool decodes the output into whatever the caller passes.
package cairn

import "context"

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

// ListTools lists every tool the server offers, built-in and from plugins, with its input and
// output JSON Schemas.
func (c *Client) ListTools(ctx context.Context) (*ToolList, error) {
	var result ToolList
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/tools"}, &result))
}

// CallTool calls a tool by name ("recall", "<plugin>.<tool>") with its wire input (a struct or a
// map; nil sends {}) through the same checks as its own route, and decodes its output into out
// (a pointer; nil drops it). A route that answers nothing answers {} here.
func (c *Client) CallTool(ctx context.Context, name string, input any, out any, options ...ToolCallOption) error {
	if input == nil {
		input = map[string]any{}
	}
	request := call{method: "POST", path: "/v1/tools/" + segment(name), body: input}
	for _, option := range options {
		option(&request)
	}
	return c.send(ctx, request, out)
}
