//! Options of sandbox sessions, exec and the HTTP broker (CONTRACT §2.5–2.6); what they answer is
//! generated: `generated.rs`.

use super::SandboxSize;
use serde::{Deserialize, Serialize};
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
    /// Seconds before the command is killed (1–100, or up to 3600 with
    /// [`crate::Client::exec_stream`]; the server's default is 30). The HTTP call of `exec` waits
    /// this long plus 15 s, so the server's own answer arrives first.
    pub timeout: Option<u32>,
    /// What the command is for, in a few words (kept in logs).
    pub description: Option<String>,
    /// Cuts each of stdout and stderr to this many bytes (1–1048576), with a marker line where it
    /// cut; the answer's `stdout_omitted_bytes` and `stderr_omitted_bytes` count what went. It
    /// cuts `exec`'s answer only, not `exec_stream`'s events.
    pub max_output_bytes: Option<u32>,
    /// Which part a cut keeps (the server's default: [`OutputKeep::Both`]).
    pub keep: Option<OutputKeep>,
}

/// Which part of an output a byte budget keeps (`max_output_bytes` on exec and view, `max_bytes`
/// on process output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputKeep {
    Head,
    Tail,
    /// Half at each end, the marker between.
    Both,
}

impl OutputKeep {
    /// The wire name: "head", "tail" or "both".
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Head => "head",
            Self::Tail => "tail",
            Self::Both => "both",
        }
    }
}

/// One event of a streamed exec ([`crate::Client::exec_stream`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExecEvent {
    /// A piece of the output as the command wrote it: `stdout_chunk`, or for stderr
    /// `stderr_chunk` (then `stdout_chunk` is empty).
    Output {
        #[serde(default)]
        stdout_chunk: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stderr_chunk: Option<String>,
    },
    /// The last event: the fields of `exec`'s answer without `stdout` and `stderr`.
    Exit {
        exit_code: i32,
        timed_out: bool,
        truncated: bool,
        #[serde(default)]
        stdout_omitted_bytes: u64,
        #[serde(default)]
        stderr_omitted_bytes: u64,
        duration_ms: u64,
    },
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
