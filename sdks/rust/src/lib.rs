//! Async Rust client for Cairn, the self-hostable control plane for AI agents: memory, sandboxes,
//! keys and the rest of the REST API under `/v1`.
//!
//! ```no_run
//! # async fn run() -> Result<(), cairn_client::CairnError> {
//! use cairn_client::{Client, CreateSandboxOptions, ExecOptions, RememberOptions};
//!
//! let client = Client::new("http://127.0.0.1:8090", "cairn_…")?;
//! client.remember("The team deploys on Tuesdays.", RememberOptions::default()).await?;
//! let found = client.recall("When do we deploy?", None, None).await?;
//! let output = client
//!     .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
//!         sandbox.exec("python3 --version", ExecOptions::default()).await
//!     })
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! Every method is one REST route, named as CONTRACT §7 names it for Rust; every failure is a
//! [`CairnError`]. Retry is off unless the builder asks for it, and then repeats only idempotent
//! verbs.

mod activity_stream;
mod base_url;
mod client;
mod envelope;
mod error;
mod exec_stream;
mod files;
mod follow_stream;
mod memory;
mod previews;
mod process_stream;
mod processes;
mod raw_file_streams;
mod raw_files;
mod resources;
mod retry;
mod sandboxes;
mod snapshots;
mod tools;
mod transport;
pub mod types;

pub use activity_stream::{ActivityEntry, ActivityStream};
pub use base_url::{normalize_base_url, DEFAULT_BASE_URL};
pub use client::{Client, ClientBuilder};
pub use error::{ApiErrorType, CairnError};
pub use exec_stream::ExecEventStream;
pub use process_stream::ProcessEventStream;
pub use retry::{parse_retry_after, RetryPolicy};
pub use sandboxes::SandboxSession;
pub use types::*;

#[cfg(test)]
mod tests {
    use super::sandboxes::sandbox_call_timeout;
    use std::time::Duration;

    #[test]
    fn sandbox_calls_wait_their_timeout_plus_fifteen_seconds() {
        assert_eq!(sandbox_call_timeout(Some(30), 30), Duration::from_secs(45));
        assert_eq!(
            sandbox_call_timeout(Some(100), 30),
            Duration::from_secs(115)
        );
        assert_eq!(sandbox_call_timeout(None, 30), Duration::from_secs(45));
        assert_eq!(sandbox_call_timeout(None, 15), Duration::from_secs(30));
    }
}

/// The README's examples compile (`cargo test` runs them as doctests, without running them).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
