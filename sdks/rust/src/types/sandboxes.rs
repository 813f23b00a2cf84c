//! Options of sandbox sessions, exec and the HTTP broker (CONTRACT §2.5–2.6); what they answer is
//! generated: `generated.rs`.

use super::SandboxSize;
use std::collections::BTreeMap;

/// Optional settings of a new sandbox; `Default` asks for a small sandbox with no extras.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CreateSandboxOptions {
    pub label: Option<String>,
    pub size: SandboxSize,
    pub storage_gb: Option<f64>,
    /// 1 up to the server's session cap (30 by default); sets `expires_at`.
    pub lifetime_minutes: Option<u32>,
    /// Secrets the session's HTTP broker may substitute.
    pub secret_names: Option<Vec<String>>,
    /// A completed custom image.
    pub image_id: Option<String>,
    /// MCP connections whose hosts the sandbox may reach.
    pub mcp_connection_names: Option<Vec<String>>,
    /// Volume id → absolute mount path.
    pub volume_mounts: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExecOptions {
    /// Seconds before the command is killed (1–100; the server's default is 30). The HTTP call
    /// waits this long plus 15 s, so the server's own answer arrives first.
    pub timeout: Option<u32>,
    /// What the command is for, in a few words (kept in logs).
    pub description: Option<String>,
}

/// A request the sandbox's broker makes on its behalf (`{{secret:<name>}}` placeholders allowed in
/// headers and body for secrets granted to the session and allowed for the URL's host).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpRequestOptions {
    /// Default "GET".
    pub method: Option<String>,
    pub url: String,
    pub headers: BTreeMap<String, String>,
    pub body: Option<String>,
    /// Seconds (1–60, default 15); the HTTP call waits this plus 15 s.
    pub timeout: Option<u32>,
}
