//! A background process's output as Server-Sent Events (`GET …/processes/{id}/stream`,
//! docs/api.md#processes). [`ProcessEventStream::next`] yields each event; after a dropped
//! connection or the server's 5-minute close it reconnects from the last event's `next_offset`,
//! so the caller sees every byte once, until the `exit` event.

use crate::sandboxes::SANDBOX_TIMEOUT_MARGIN;
use crate::transport::Call;
use crate::types::ProcessEvent;
use crate::{CairnError, Client};
use reqwest::Method;
use std::time::Duration;

/// Connections in a row that may fail (or break off) before the stream gives up.
const MAX_FAILURES: u32 = 3;
/// The server sends a keep-alive comment after 15 s without output: a connection silent for
/// longer is dead and is replaced.
pub(crate) const IDLE_TIMEOUT: Duration =
    Duration::from_secs(15).saturating_add(SANDBOX_TIMEOUT_MARGIN);

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
        ProcessEventStream {
            client: self.clone(),
            session_id: session_id.to_string(),
            process_id: process_id.to_string(),
            since: since_offset,
            response: None,
            events: EventBuffer::default(),
            failures: 0,
            finished: false,
        }
    }
}

/// The events of a process's output stream, read with `while let Some(event) = stream.next().await`.
#[derive(Debug)]
pub struct ProcessEventStream {
    client: Client,
    session_id: String,
    process_id: String,
    since: u64,
    response: Option<reqwest::Response>,
    events: EventBuffer,
    failures: u32,
    finished: bool,
}

impl ProcessEventStream {
    /// The next event; `None` after the `Exit` event or an error. An error is
    /// `CairnError::Api` when the server refuses (404 once the sandbox is gone),
    /// `CairnError::Connection` after 3 failed connections in a row, or `CairnError::Decode`.
    pub async fn next(&mut self) -> Option<Result<ProcessEvent, CairnError>> {
        if self.finished {
            return None;
        }
        let outcome = self.read().await;
        if !matches!(outcome, Ok(ProcessEvent::Output { .. })) {
            self.finished = true;
            self.response = None;
        }
        Some(outcome)
    }

    /// The offset after the last event read: where a new stream would resume.
    pub fn next_offset(&self) -> u64 {
        self.since
    }

    async fn read(&mut self) -> Result<ProcessEvent, CairnError> {
        loop {
            if let Some(event) = self.take_event()? {
                self.failures = 0;
                self.since = event.next_offset();
                return Ok(event);
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
        let call = Call::new(
            Method::GET,
            &[
                "v1",
                "sandboxes",
                &self.session_id,
                "processes",
                &self.process_id,
                "stream",
            ],
        )
        .query("since_offset", self.since);
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
    fn take_event(&mut self) -> Result<Option<ProcessEvent>, CairnError> {
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
        format!(
            "GET /v1/sandboxes/{}/processes/{}/stream",
            self.session_id, self.process_id
        )
    }
}

/// Server-Sent Events parsed out of the bytes read so far: each event's `data` lines, joined.
#[derive(Debug, Default)]
pub(crate) struct EventBuffer {
    /// Bytes of a line not complete yet.
    bytes: Vec<u8>,
    /// The `data` lines of the event being read.
    data: Vec<String>,
}

impl EventBuffer {
    pub(crate) fn extend(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
    }

    /// The data of the next complete event, if there is one.
    pub(crate) fn take(&mut self) -> Option<String> {
        while let Some(end) = self.bytes.iter().position(|&byte| byte == b'\n') {
            let line: Vec<u8> = self.bytes.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if let Some(value) = line.strip_prefix("data:") {
                self.data
                    .push(value.strip_prefix(' ').unwrap_or(value).to_string());
                continue;
            }
            if !line.is_empty() || self.data.is_empty() {
                continue; // a comment (": keep-alive"), an id or event line
            }
            let text = self.data.join("\n");
            self.data.clear();
            return Some(text);
        }
        None
    }
}
