//! A streamed exec (`POST …/exec` with `Accept: text/event-stream`, docs/api.md#streamed-exec):
//! [`ExecEventStream::next`] yields the command's output as it writes it, then its `Exit` event.
//! Nothing reconnects (a POST is not replayed); dropping the stream closes it, which kills the
//! command.

use crate::envelope::api_error;
use crate::follow_stream::{EventBuffer, IDLE_TIMEOUT};
use crate::sandboxes::exec_body;
use crate::transport::Call;
use crate::types::{ExecEvent, ExecOptions};
use crate::{CairnError, Client};
use reqwest::Method;
use serde_json::{json, Value};

impl Client {
    /// Runs a shell command and streams its output: [`ExecEvent::Output`]s as the command writes
    /// them, then one [`ExecEvent::Exit`]. `options.timeout` may be up to 3600 s here. A refusal
    /// before the command starts is `CairnError::Api`, as from `exec`; so is a failure after it
    /// started (the server's `error` event). Nothing is sent until the first
    /// [`ExecEventStream::next`]; dropping the stream closes it and kills the command.
    pub fn exec_stream(
        &self,
        session_id: &str,
        command: &str,
        options: ExecOptions,
    ) -> ExecEventStream {
        ExecEventStream {
            client: self.clone(),
            session_id: session_id.to_string(),
            body: exec_body(command, options),
            response: None,
            events: EventBuffer::default(),
            finished: false,
        }
    }
}

/// The events of a streamed exec, read with `while let Some(event) = stream.next().await`.
#[derive(Debug)]
pub struct ExecEventStream {
    client: Client,
    session_id: String,
    body: Value,
    response: Option<reqwest::Response>,
    events: EventBuffer,
    finished: bool,
}

impl ExecEventStream {
    /// The next event; `None` after the `Exit` event or an error. An error is `CairnError::Api`
    /// for a refusal or a failure after the command started, `CairnError::Connection` when the
    /// connection fails, breaks off or ends before the exit, or `CairnError::Decode`.
    pub async fn next(&mut self) -> Option<Result<ExecEvent, CairnError>> {
        if self.finished {
            return None;
        }
        let outcome = self.read().await;
        if !matches!(outcome, Ok(ExecEvent::Output { .. })) {
            self.finished = true;
            // Closing the connection kills the command, if it still runs.
            self.response = None;
        }
        Some(outcome)
    }

    async fn read(&mut self) -> Result<ExecEvent, CairnError> {
        if self.response.is_none() {
            let call = Call::new(Method::POST, &["v1", "sandboxes", &self.session_id, "exec"])
                .json(&self.body);
            self.response = Some(self.client.transport.open_stream(&call).await?);
        }
        loop {
            if let Some(text) = self.events.take() {
                return self.decode(&text);
            }
            let Some(response) = self.response.as_mut() else {
                unreachable!("the stream is open until it finishes");
            };
            match tokio::time::timeout(IDLE_TIMEOUT, response.chunk()).await {
                Ok(Ok(Some(chunk))) => self.events.extend(&chunk),
                Ok(Ok(None)) => {
                    return Err(CairnError::Connection {
                        message: format!("{} ended before the command did", self.describe()),
                        source: None,
                    })
                }
                Ok(Err(source)) => {
                    let message = format!("{} broke off: {source}", self.describe());
                    return Err(CairnError::connection(message, source));
                }
                Err(_) => {
                    return Err(CairnError::Connection {
                        message: format!(
                            "{} sent nothing for {} s",
                            self.describe(),
                            IDLE_TIMEOUT.as_secs()
                        ),
                        source: None,
                    })
                }
            }
        }
    }

    /// The event, or the API error an `error` event carries.
    fn decode(&self, text: &str) -> Result<ExecEvent, CairnError> {
        let undecodable = |source: serde_json::Error| CairnError::Decode {
            message: format!(
                "{}: an event that does not decode: {source}",
                self.describe()
            ),
            source: Some(source),
        };
        let value: Value = serde_json::from_str(text).map_err(undecodable)?;
        if value.get("type").and_then(Value::as_str) == Some("error") {
            let status = value
                .get("status")
                .and_then(Value::as_u64)
                .and_then(|status| u16::try_from(status).ok())
                .unwrap_or(500);
            let envelope = json!({ "error": value.get("error") }).to_string();
            return Err(api_error(status, None, None, envelope.as_bytes()));
        }
        serde_json::from_value(value).map_err(undecodable)
    }

    fn describe(&self) -> String {
        format!("POST /v1/sandboxes/{}/exec", self.session_id)
    }
}
