//! A sandbox's activity feed live (`GET /v1/sandboxes/{id}/watch`, docs/api.md#activity) as
//! Server-Sent Events. [`ActivityStream::next`] yields each new entry; after a dropped connection
//! or the server's 5-minute close it reconnects from the last entry's `seq`, so the caller sees
//! each entry once, until the sandbox ends.

use crate::follow_stream::StreamFollower;
use crate::sandboxes::SandboxSession;
use crate::types::SandboxLogOutputEntries;
use crate::{CairnError, Client};
use serde::Deserialize;

/// One entry of a sandbox's activity feed, as [`Client::sandbox_log`] pages them.
pub type ActivityEntry = SandboxLogOutputEntries;

/// An event as sent: an entry, or the end event (`{"type": "end"}`).
#[derive(Deserialize)]
#[serde(untagged)]
enum WatchEvent {
    End {
        #[serde(rename = "type")]
        #[allow(dead_code)] // only "end" is sent
        kind: String,
    },
    Entry(ActivityEntry),
}

impl Client {
    /// The sandbox's new activity entries, oldest first: with `since` `None` only what happens
    /// from now on, with `Some(seq)` first the entries after `seq` the server still keeps.
    /// Nothing is sent until the first [`ActivityStream::next`]; drop the stream to stop reading.
    pub fn watch_sandbox(&self, session_id: &str, since: Option<u64>) -> ActivityStream {
        ActivityStream {
            follower: StreamFollower::new(self, &["v1", "sandboxes", session_id, "watch"]),
            since,
        }
    }
}

impl SandboxSession {
    /// [`Client::watch_sandbox`] for this sandbox.
    pub fn watch(&self, since: Option<u64>) -> ActivityStream {
        self.client.watch_sandbox(self.id(), since)
    }
}

/// The entries of a sandbox's activity feed, read with `while let Some(entry) = stream.next().await`.
#[derive(Debug)]
pub struct ActivityStream {
    follower: StreamFollower,
    since: Option<u64>,
}

impl ActivityStream {
    /// The next entry; `None` once the sandbox has ended, or after an error. An error is
    /// `CairnError::Api` when the server refuses (404 for an unknown sandbox),
    /// `CairnError::Connection` after 3 failed connections in a row, or `CairnError::Decode`.
    pub async fn next(&mut self) -> Option<Result<ActivityEntry, CairnError>> {
        let resume = self.since.map(|seq| ("since", seq));
        match self.follower.next(resume).await? {
            Ok(WatchEvent::Entry(entry)) => {
                self.since = Some(entry.seq);
                Some(Ok(entry))
            }
            Ok(WatchEvent::End { .. }) => {
                self.follower.finish();
                None
            }
            Err(error) => Some(Err(error)),
        }
    }

    /// The `seq` of the last entry read (or the `since` it started from): where a new stream
    /// would resume.
    pub fn last_seq(&self) -> Option<u64> {
        self.since
    }
}
