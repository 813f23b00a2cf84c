//! Following a Server-Sent Events stream that the server ends now and then (its 5-minute close, a
//! dropped connection): [`crate::ProcessEventStream`] and [`crate::ActivityStream`] both read
//! through a [`StreamFollower`], which reconnects from where the last event left off, so the
//! caller sees each event once.

use crate::sandboxes::SANDBOX_TIMEOUT_MARGIN;
use crate::transport::Call;
use crate::{CairnError, Client};
use reqwest::Method;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// Connections in a row that may fail (or break off) before the stream gives up.
const MAX_FAILURES: u32 = 3;
/// The server sends a keep-alive comment after 15 s without output: a connection silent for
/// longer is dead and is replaced.
pub(crate) const IDLE_TIMEOUT: Duration =
    Duration::from_secs(15).saturating_add(SANDBOX_TIMEOUT_MARGIN);

/// The events of one `GET` stream, over as many connections as it takes.
#[derive(Debug)]
pub(crate) struct StreamFollower {
    client: Client,
    /// The stream's path, as segments (`["v1", "sandboxes", id, "watch"]`).
    path: Vec<String>,
    response: Option<reqwest::Response>,
    events: EventBuffer,
    failures: u32,
    finished: bool,
}

impl StreamFollower {
    pub(crate) fn new(client: &Client, path: &[&str]) -> Self {
        Self {
            client: client.clone(),
            path: path.iter().map(|segment| segment.to_string()).collect(),
            response: None,
            events: EventBuffer::default(),
            failures: 0,
            finished: false,
        }
    }

    /// The next event; `None` after [`Self::finish`] or an error. A (re)connection asks for the
    /// events after `resume` (a query parameter and its value; `None`: only new ones). An error
    /// is `CairnError::Api` when the server refuses, `CairnError::Connection` after 3 failed
    /// connections in a row, or `CairnError::Decode`.
    pub(crate) async fn next<Event: DeserializeOwned>(
        &mut self,
        resume: Option<(&'static str, u64)>,
    ) -> Option<Result<Event, CairnError>> {
        if self.finished {
            return None;
        }
        let outcome = self.read(resume).await;
        if outcome.is_err() {
            self.finish();
        }
        Some(outcome)
    }

    /// Ends the stream at a terminal event: the connection closes and `next` yields `None`.
    pub(crate) fn finish(&mut self) {
        self.finished = true;
        self.response = None;
    }

    async fn read<Event: DeserializeOwned>(
        &mut self,
        resume: Option<(&'static str, u64)>,
    ) -> Result<Event, CairnError> {
        loop {
            if let Some(event) = self.take_event()? {
                self.failures = 0;
                return Ok(event);
            }
            let Some(response) = self.response.as_mut() else {
                self.connect(resume).await?;
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

    async fn connect(&mut self, resume: Option<(&'static str, u64)>) -> Result<(), CairnError> {
        let segments: Vec<&str> = self.path.iter().map(String::as_str).collect();
        let mut call = Call::new(Method::GET, &segments);
        if let Some((name, value)) = resume {
            call = call.query(name, value);
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
    fn take_event<Event: DeserializeOwned>(&mut self) -> Result<Option<Event>, CairnError> {
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
        format!("GET /{}", self.path.join("/"))
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
