// Sandbox methods: create (one or several), get, list, destroy, exec and the HTTP broker.
package cairn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

type createSandboxBody struct {
	CreateSandboxRequest
	Count int `json:"count"`
}

func (request CreateSandboxRequest) withDefaults() CreateSandboxRequest {
	if request.Size == "" {
		request.Size = defaultCreateSandboxSize
	}
	return request
}

// CreateSandbox starts one sandbox.
func (c *Client) CreateSandbox(ctx context.Context, request CreateSandboxRequest) (*SandboxCreated, error) {
	var result SandboxCreated
	body := createSandboxBody{request.withDefaults(), 1}
	return done(&result, c.send(ctx, call{method: "POST", path: "/v1/sandboxes", body: body}, &result))
}

// CreateSandboxes starts count sandboxes (1–10) in one all-or-nothing call.
func (c *Client) CreateSandboxes(ctx context.Context, count int, request CreateSandboxRequest) ([]SandboxCreated, error) {
	var raw json.RawMessage
	body := createSandboxBody{request.withDefaults(), count}
	if err := c.send(ctx, call{method: "POST", path: "/v1/sandboxes", body: body}, &raw); err != nil {
		return nil, err
	}
	// The server answers a count of 1 with one object, anything more with an array.
	var many []SandboxCreated
	if err := json.Unmarshal(raw, &many); err == nil {
		return many, nil
	}
	var one SandboxCreated
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, fmt.Errorf("cairn: POST /v1/sandboxes answered a body that does not decode: %w", err)
	}
	return []SandboxCreated{one}, nil
}

// GetSandbox returns a sandbox, also after it was destroyed.
func (c *Client) GetSandbox(ctx context.Context, sessionID string) (*Sandbox, error) {
	var result Sandbox
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/sandboxes/" + segment(sessionID)}, &result))
}

// ListSandboxes lists the account's sandboxes, only the active ones when activeOnly.
func (c *Client) ListSandboxes(ctx context.Context, activeOnly bool) ([]Sandbox, error) {
	var result []Sandbox
	query := url.Values{"active_only": {strconv.FormatBool(activeOnly)}}
	err := c.send(ctx, call{method: "GET", path: "/v1/sandboxes", query: query}, &result)
	return result, err
}

// DestroySandbox ends a sandbox.
func (c *Client) DestroySandbox(ctx context.Context, sessionID string) error {
	return c.send(ctx, call{method: "DELETE", path: "/v1/sandboxes/" + segment(sessionID)}, nil)
}

func sandboxPath(sessionID, rest string) string {
	return "/v1/sandboxes/" + segment(sessionID) + rest
}

// Exec runs a shell command in the sandbox. The HTTP call waits the command's timeout (default
// 30 s) plus 15 s, whatever WithTimeout says, so the server's timed_out answer arrives first.
func (c *Client) Exec(ctx context.Context, sessionID string, request ExecRequest) (*ExecResult, error) {
	if request.Timeout == 0 {
		request.Timeout = defaultExecTimeout
	}
	var result ExecResult
	httpTimeout := time.Duration(request.Timeout)*time.Second + sandboxTimeoutMargin
	post := call{method: "POST", path: sandboxPath(sessionID, "/exec"), body: request, timeout: httpTimeout}
	return done(&result, c.send(ctx, post, &result))
}

// HTTPRequest has the broker, outside the sandbox, make an HTTP request through the sandbox's
// egress policy, substituting granted secrets. The HTTP call waits its timeout plus 15 s.
func (c *Client) HTTPRequest(ctx context.Context, sessionID string, request SandboxHTTPRequest) (*SandboxHTTPResponse, error) {
	if request.Method == "" {
		request.Method = defaultHTTPRequestMethod
	}
	if request.Headers == nil {
		request.Headers = map[string]string{}
	}
	if request.Timeout == 0 {
		request.Timeout = defaultHTTPRequestTimeout
	}
	var result SandboxHTTPResponse
	httpTimeout := time.Duration(request.Timeout)*time.Second + sandboxTimeoutMargin
	post := call{method: "POST", path: sandboxPath(sessionID, "/http-request"), body: request, timeout: httpTimeout}
	return done(&result, c.send(ctx, post, &result))
}
