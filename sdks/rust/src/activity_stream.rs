//! A sandbox's activity feed live (`GET /v1/sandboxes/{id}/watch`, docs/api.md#activity) as
//! Server-Sent Events. [`ActivityStream::next`] yields each new entry; after a dropped connection
//! or the server's 5-minute close it reconnects from the last entry's `seq`, so the caller sees
//! each entry once, until the sandbox ends.

use crate::process_stream::{EventBuffer, IDLE_TIMEOUT};
use crate::sandboxes::SandboxSession;
use crate::transport::Call;
use crate::types::SandboxLogOutputEntries;
use crate::{CairnError, Client};
use reqwest::Method;
use serde::Deserialize;

/// Connections in a row that may fail (or break off) before the stream gives up.
const MAX_FAILURES: u32 = 3;

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
            client: self.clone(),
            session_id: session_id.to_string(),
            since,
            response: None,
            events: EventBuffer::default(),
            failures: 0,
            finished: false,
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
    client: Client,
    session_id: String,
    since: Option<u64>,
    response: Option<reqwest::Response>,
    events: EventBuffer,
    failures: u32,
    finished: bool,
}

impl ActivityStream {
    /// The next entry; `None` once the sandbox has ended, or after an error. An error is
    /// `CairnError::Api` when the server refuses (404 for an unknown sandbox),
    /// `CairnError::Connection` after 3 failed connections in a row, or `CairnError::Decode`.
    pub async fn next(&mut self) -> Option<Result<ActivityEntry, CairnError>> {
        if self.finished {
            return None;
        }
        let outcome = self.read().await;
        if !matches!(outcome, Ok(Some(_))) {
            self.finished = true;
            self.response = None;
        }
        outcome.transpose()
    }

    /// The `seq` of the last entry read (or the `since` it started from): where a new stream
    /// would resume.
    pub fn last_seq(&self) -> Option<u64> {
        self.since
    }

    /// The next entry, or `None` at the end event.
    async fn read(&mut self) -> Result<Option<ActivityEntry>, CairnError> {
        loop {
            match self.take_event()? {
                Some(WatchEvent::End { .. }) => return Ok(None),
                Some(WatchEvent::Entry(entry)) => {
                    self.failures = 0;
                    self.since = Some(entry.seq);
                    return Ok(Some(entry));
                }
                None => {}
            }
            let Some(response) = self.response.as_mut() else {
                self.connect().await?;
                continue;
            };
            match tokio::time::timeout(IDLE_TIMEOUT, response.chunk()).await {
                Ok(Ok(Some(chunk))) => self.events.extend(&chunk),
                // The server closed the stream before the end (its time limit): resume.
                Ok(Ok(None)) => self.reset(),
                Ok(Err(source)) => {
                    self.reset();
                    self.failed(CairnError::connection(
                        format!("{} broke off: {source}", self.describe()),
                        source,
                    ))?;
                }
                Err(_) => {
                    self.reset();
                    self.failed(CairnError::Connection {
                        message: format!(
                            "{} sent nothing for {} s",
                            self.describe(),
                            IDLE_TIMEOUT.as_secs()
                        ),
                        source: None,
                    })?;
                }
            }
        }
    }

    async fn connect(&mut self) -> Result<(), CairnError> {
        let mut call = Call::new(Method::GET, &["v1", "sandboxes", &self.session_id, "watch"]);
        if let Some(since) = self.since {
            call = call.query("since", since);
        }
        match self.client.transport.open_stream(&call).await {
            Ok(response) => {
                self.response = Some(response);
                Ok(())
            }
            Err(error @ CairnError::Connection { .. }) => self.failed(error),
            Err(error) => Err(error),
        }
    }

    /// Counts a failed connection; the error once there were too many in a row.
    fn failed(&mut self, error: CairnError) -> Result<(), CairnError> {
        self.failures += 1;
        if self.failures > MAX_FAILURES {
            Err(error)
        } else {
            Ok(())
        }
    }

    fn reset(&mut self) {
        self.response = None;
        self.events = EventBuffer::default();
    }

    /// The next complete event in the buffer, if there is one.
    fn take_event(&mut self) -> Result<Option<WatchEvent>, CairnError> {
        let Some(text) = self.events.take() else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| CairnError::Decode {
                message: format!(
                    "{}: an event that does not decode: {source}",
                    self.describe()
                ),
                source: Some(source),
            })
    }

    fn describe(&self) -> String {
        format!("GET /v1/sandboxes/{}/watch", self.session_id)
    }
}
