//! Options of the background-process routes (docs/api.md#processes) and the events of their
//! output stream; what the JSON routes answer (`BackgroundProcess`, `ProcessList`,
//! `ProcessOutput`, `ProcessInputResult`) is generated: `generated.rs`.

use super::OutputKeep;
use serde::{Deserialize, Serialize};

/// Optional settings of a background process; `Default` runs it until the sandbox ends.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StartProcessOptions {
    /// What the command is for, in a few words.
    pub description: Option<String>,
    /// Seconds (1–604800) after which it is stopped (`timed_out`); never later than the sandbox's end.
    pub max_runtime_seconds: Option<u32>,
}

/// Where a read of a process's output starts and how long it waits.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProcessOutputOptions {
    /// 0, or the `next_offset` of the previous read: nothing is lost or repeated.
    pub since_offset: u64,
    /// At most this many bytes of both streams (1–1048576; default 65536).
    pub max_bytes: Option<u32>,
    /// [`OutputKeep::Head`] (the server's default) reads the page from `since_offset`;
    /// [`OutputKeep::Tail`] and [`OutputKeep::Both`] read to the newest output and keep its last
    /// `max_bytes` (or half at each end): the answer's `omitted_range` and `omitted_bytes` name
    /// what was left out.
    pub keep: Option<OutputKeep>,
    /// Seconds (0–60) to wait for output past `since_offset` or the end; the HTTP call waits
    /// this plus 15 s.
    pub wait_seconds: Option<u32>,
}

/// One event of a process's output stream ([`crate::Client::stream_process`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProcessEvent {
    /// A chunk of one stream (the other chunk is empty).
    Output {
        #[serde(default)]
        stdout_chunk: String,
        #[serde(default)]
        stderr_chunk: String,
        next_offset: u64,
        /// On the first event only: bytes before it were dropped by the server.
        #[serde(default)]
        truncated: bool,
    },
    /// The last event: the process ended ("exited", "killed", "timed_out") and all its output
    /// was sent.
    Exit {
        status: String,
        exit_code: Option<u64>,
        next_offset: u64,
    },
}

impl ProcessEvent {
    /// The offset after this event, where a read or a new stream resumes.
    pub fn next_offset(&self) -> u64 {
        match self {
            Self::Output { next_offset, .. } | Self::Exit { next_offset, .. } => *next_offset,
        }
    }
}
