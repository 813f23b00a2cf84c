//! A background process's output as Server-Sent Events (`GET …/processes/{id}/stream`,
//! docs/api.md#processes). [`ProcessEventStream::next`] yields each event; after a dropped
//! connection or the server's 5-minute close it reconnects from the last event's `next_offset`,
//! so the caller sees every byte once, until the `exit` event.

use crate::follow_stream::StreamFollower;
use crate::types::ProcessEvent;
use crate::{CairnError, Client};

impl Client {
    /// The process's output from `since_offset` (0, or a `next_offset`) as a stream of
    /// [`ProcessEvent`]s, the last one `Exit`. Nothing is sent until the first
    /// [`ProcessEventStream::next`]; drop the stream to stop reading.
    pub fn stream_process(
        &self,
        session_id: &str,
        process_id: &str,
        since_offset: u64,
    ) -> ProcessEventStream {
        let path = [
            "v1",
            "sandboxes",
            session_id,
            "processes",
            process_id,
            "stream",
        ];
        ProcessEventStream {
            follower: StreamFollower::new(self, &path),
            since: since_offset,
        }
    }
}

/// The events of a process's output stream, read with `while let Some(event) = stream.next().await`.
#[derive(Debug)]
pub struct ProcessEventStream {
    follower: StreamFollower,
    since: u64,
}

impl ProcessEventStream {
    /// The next event; `None` after the `Exit` event or an error. An error is
    /// `CairnError::Api` when the server refuses (404 once the sandbox is gone),
    /// `CairnError::Connection` after 3 failed connections in a row, or `CairnError::Decode`.
    pub async fn next(&mut self) -> Option<Result<ProcessEvent, CairnError>> {
        let resume = Some(("since_offset", self.since));
        let outcome = self.follower.next::<ProcessEvent>(resume).await?;
        if let Ok(event) = &outcome {
            self.since = event.next_offset();
            if !matches!(event, ProcessEvent::Output { .. }) {
                self.follower.finish();
            }
        }
        Some(outcome)
    }

    /// The offset after the last event read: where a new stream would resume.
    pub fn next_offset(&self) -> u64 {
        self.since
    }
}
