//! Background processes in a sandbox (docs/api.md#processes): start one without waiting, read its
//! output by offset, write its stdin, wait for it, stop it. [`Client::stream_process`]
//! (`process_stream.rs`) follows the output as events.

use crate::sandboxes::{sandbox_call_timeout, SANDBOX_TIMEOUT_MARGIN};
use crate::transport::Call;
use crate::types::{
    defaults, BackgroundProcess, OutputKeep, ProcessInputResult, ProcessList, ProcessOutput,
    ProcessOutputOptions, StartProcessOptions,
};
use crate::{CairnError, Client, SandboxSession};
use reqwest::Method;
use serde_json::json;
use std::time::Duration;

/// Extra wait on a stop beyond the client's timeout: SIGTERM, SIGKILL 5 s later, then the answer.
const STOP_MARGIN: Duration = Duration::from_secs(10);

impl Client {
    /// Starts a shell command in the sandbox without waiting for it; answers at once with its
    /// `process_id`. It runs until it exits, is stopped, reaches `max_runtime_seconds` or the
    /// sandbox ends.
    pub async fn start_process(
        &self,
        session_id: &str,
        command: &str,
        options: StartProcessOptions,
    ) -> Result<BackgroundProcess, CairnError> {
        let mut body =
            json!({ "command": command, "max_runtime_seconds": options.max_runtime_seconds });
        if let Some(description) = options.description {
            body["description"] = description.into();
        }
        let call = Call::new(Method::POST, &["v1", "sandboxes", session_id, "processes"]);
        self.transport.send(call.json(&body)).await
    }

    /// The sandbox's background processes, running and recently ended, oldest first.
    pub async fn list_processes(&self, session_id: &str) -> Result<ProcessList, CairnError> {
        let call = Call::new(Method::GET, &["v1", "sandboxes", session_id, "processes"]);
        self.transport.send(call).await
    }

    pub async fn get_process(
        &self,
        session_id: &str,
        process_id: &str,
    ) -> Result<BackgroundProcess, CairnError> {
        let call = Call::new(
            Method::GET,
            &["v1", "sandboxes", session_id, "processes", process_id],
        );
        self.transport.send(call).await
    }

    /// Stdout and stderr from `options.since_offset`; read again from the answer's `next_offset`.
    pub async fn process_output(
        &self,
        session_id: &str,
        process_id: &str,
        options: ProcessOutputOptions,
    ) -> Result<ProcessOutput, CairnError> {
        let wait_seconds = options
            .wait_seconds
            .unwrap_or(defaults::PROCESS_OUTPUT_WAIT_SECONDS);
        let mut call = Call::new(
            Method::GET,
            &[
                "v1",
                "sandboxes",
                session_id,
                "processes",
                process_id,
                "output",
            ],
        )
        .query("since_offset", options.since_offset)
        .query(
            "max_bytes",
            options
                .max_bytes
                .unwrap_or(defaults::PROCESS_OUTPUT_MAX_BYTES),
        )
        .query("wait_seconds", wait_seconds)
        .query_if("keep", options.keep.map(OutputKeep::as_str));
        if wait_seconds > 0 {
            call = call.timeout(sandbox_call_timeout(Some(wait_seconds), 0));
        }
        self.transport.send(call).await
    }

    /// Writes `data` to the process's stdin (add `\n` for a line); `eof` closes it afterwards.
    /// Until the process has read the previous input another is refused (409
    /// `process_stdin_busy`, retryable).
    pub async fn process_input(
        &self,
        session_id: &str,
        process_id: &str,
        data: &str,
        eof: bool,
    ) -> Result<ProcessInputResult, CairnError> {
        let call = Call::new(
            Method::POST,
            &[
                "v1",
                "sandboxes",
                session_id,
                "processes",
                process_id,
                "input",
            ],
        );
        self.transport
            .send(call.json(&json!({ "data": data, "eof": eof })))
            .await
    }

    /// SIGTERM to the process and what it started, SIGKILL 5 s later; answers its final state.
    /// The HTTP call waits the client's timeout plus 10 s.
    pub async fn stop_process(
        &self,
        session_id: &str,
        process_id: &str,
    ) -> Result<BackgroundProcess, CairnError> {
        let call = Call::new(
            Method::POST,
            &[
                "v1",
                "sandboxes",
                session_id,
                "processes",
                process_id,
                "stop",
            ],
        )
        .json(&json!({}))
        .timeout(self.transport.timeout + STOP_MARGIN);
        self.transport.send(call).await
    }

    /// Waits up to `timeout_seconds` (1–100; default 30) for the process to end; its state
    /// either way (`status` "running": not ended yet). The HTTP call waits that plus 15 s.
    pub async fn wait_process(
        &self,
        session_id: &str,
        process_id: &str,
        timeout_seconds: Option<u32>,
    ) -> Result<BackgroundProcess, CairnError> {
        let seconds = timeout_seconds.unwrap_or(defaults::PROCESS_WAIT_TIMEOUT_SECONDS);
        let call = Call::new(
            Method::POST,
            &[
                "v1",
                "sandboxes",
                session_id,
                "processes",
                process_id,
                "wait",
            ],
        )
        .json(&json!({ "timeout_seconds": seconds }))
        .timeout(Duration::from_secs(u64::from(seconds)) + SANDBOX_TIMEOUT_MARGIN);
        self.transport.send(call).await
    }
}

impl SandboxSession {
    pub async fn start_process(
        &self,
        command: &str,
        options: StartProcessOptions,
    ) -> Result<BackgroundProcess, CairnError> {
        self.client.start_process(self.id(), command, options).await
    }

    pub async fn list_processes(&self) -> Result<ProcessList, CairnError> {
        self.client.list_processes(self.id()).await
    }

    pub async fn get_process(&self, process_id: &str) -> Result<BackgroundProcess, CairnError> {
        self.client.get_process(self.id(), process_id).await
    }

    pub async fn process_output(
        &self,
        process_id: &str,
        options: ProcessOutputOptions,
    ) -> Result<ProcessOutput, CairnError> {
        self.client
            .process_output(self.id(), process_id, options)
            .await
    }

    pub async fn process_input(
        &self,
        process_id: &str,
        data: &str,
        eof: bool,
    ) -> Result<ProcessInputResult, CairnError> {
        self.client
            .process_input(self.id(), process_id, data, eof)
            .await
    }

    pub async fn stop_process(&self, process_id: &str) -> Result<BackgroundProcess, CairnError> {
        self.client.stop_process(self.id(), process_id).await
    }

    pub async fn wait_process(
        &self,
        process_id: &str,
        timeout_seconds: Option<u32>,
    ) -> Result<BackgroundProcess, CairnError> {
        self.client
            .wait_process(self.id(), process_id, timeout_seconds)
            .await
    }

    /// [`Client::stream_process`] for this sandbox.
    pub fn stream_process(&self, process_id: &str, since_offset: u64) -> crate::ProcessEventStream {
        self.client
            .stream_process(self.id(), process_id, since_offset)
    }
}
