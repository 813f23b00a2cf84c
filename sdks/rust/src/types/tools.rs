//! Tools by name (`GET /v1/tools`, `POST /v1/tools/{name}`): the listing and a call's options.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What a client may assume about calling a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolAnnotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// A tool's own REST route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolHttpRoute {
    pub method: String,
    pub path: String,
}

/// One tool the server offers: a built-in operation, or a plugin's (`<plugin>.<tool>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// What `call_tool` takes.
    pub name: String,
    /// The plugin that adds the tool; `None` for a built-in one.
    pub plugin: Option<String>,
    pub group: String,
    pub title: String,
    pub description: String,
    pub annotations: ToolAnnotations,
    /// JSON Schema of the input `call_tool` sends.
    pub input_schema: serde_json::Value,
    pub output_schema: serde_json::Value,
    /// The tool's MCP name; `None` when MCP does not offer it.
    pub mcp_name: Option<String>,
    /// The tool's own REST route; `None` when it has none.
    pub http: Option<ToolHttpRoute>,
}

/// What `list_tools` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolList {
    pub tools: Vec<Tool>,
}

/// Options of `call_tool_with`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallToolOptions {
    /// Sent as `Idempotency-Key`: a repeat with the same key and input replays the first answer.
    pub idempotency_key: Option<String>,
    /// Overrides the wait: by default the client's timeout, or, when the input has a positive
    /// sandbox-side `timeout` in seconds (exec, http_request), that plus 15 s, as `exec` waits.
    pub timeout: Option<Duration>,
}
