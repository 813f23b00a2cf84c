//! Sandbox sessions, exec and the HTTP broker (CONTRACT §2.5–2.6).

use super::Usage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// CPU and memory class of a sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxSize {
    #[default]
    Small,
    Medium,
    Large,
}

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sandbox {
    pub id: String,
    /// "active" or "destroyed".
    pub status: String,
    pub label: Option<String>,
    pub created_at: String,
    pub destroyed_at: Option<String>,
    pub expires_at: String,
    /// None while active, else "destroyed" or "expired".
    pub ended_reason: Option<String>,
    /// "local" or "kubernetes".
    pub runtime: String,
    /// None once destroyed.
    pub connect: Option<SandboxConnect>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxConnect {
    pub pod_name: Option<String>,
    pub note: String,
}

/// A new sandbox and the account's usage after creating it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxCreated {
    #[serde(flatten)]
    pub sandbox: Sandbox,
    pub usage: Usage,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExecOptions {
    /// Seconds before the command is killed (1–100; the server's default is 30). The HTTP call
    /// waits this long plus 15 s, so the server's own answer arrives first.
    pub timeout: Option<u32>,
    /// What the command is for, in a few words (kept in logs).
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecResult {
    pub exit_code: i32,
    /// Capped at 1 MiB.
    pub stdout: String,
    /// Capped at 256 KiB.
    pub stderr: String,
    pub timed_out: bool,
    pub truncated: bool,
    pub duration_ms: u64,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpResponse {
    pub status_code: u16,
    pub headers: BTreeMap<String, String>,
    pub body: String,
    pub truncated: bool,
}
