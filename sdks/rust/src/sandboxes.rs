//! Sandbox sessions, exec and the HTTP broker, and [`SandboxSession`], one sandbox's calls
//! without repeating its id.

use crate::transport::Call;
use crate::types::{
    defaults, CreateSandboxOptions, ExecOptions, ExecResult, HttpRequestOptions, HttpResponse,
    Sandbox, SandboxCreated,
};
use crate::{CairnError, Client};
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Value};
use std::future::Future;
use std::time::Duration;

/// Extra HTTP wait beyond a sandbox-side timeout, so the server's own answer arrives first.
pub(crate) const SANDBOX_TIMEOUT_MARGIN: Duration = Duration::from_secs(15);

/// The HTTP timeout of a sandbox-side operation that may run `seconds` (or the server's default).
pub(crate) fn sandbox_call_timeout(seconds: Option<u32>, default_seconds: u32) -> Duration {
    Duration::from_secs(u64::from(seconds.unwrap_or(default_seconds))) + SANDBOX_TIMEOUT_MARGIN
}

fn create_body(options: &CreateSandboxOptions, count: u32) -> Value {
    json!({
        "label": options.label,
        "size": options.size,
        "storage_gb": options.storage_gb,
        "lifetime_minutes": options.lifetime_minutes,
        "count": count,
        "secret_names": options.secret_names,
        "image_id": options.image_id,
        "mcp_connection_names": options.mcp_connection_names,
        "volume_mounts": options.volume_mounts,
    })
}

/// The exec route's JSON body, shared by `exec` and `exec_stream`.
pub(crate) fn exec_body(command: &str, options: ExecOptions) -> Value {
    let timeout = options.timeout.unwrap_or(defaults::EXEC_TIMEOUT);
    let mut body = json!({ "command": command, "timeout": timeout });
    if let Some(description) = options.description {
        body["description"] = description.into();
    }
    if let Some(max_output_bytes) = options.max_output_bytes {
        body["max_output_bytes"] = max_output_bytes.into();
    }
    if let Some(keep) = options.keep {
        body["keep"] = keep.as_str().into();
    }
    body
}

/// The create route answers one object for one sandbox and a list for several.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    Many(Vec<SandboxCreated>),
    One(Box<SandboxCreated>),
}

impl Client {
    pub async fn create_sandbox(
        &self,
        options: &CreateSandboxOptions,
    ) -> Result<SandboxCreated, CairnError> {
        let call = Call::new(Method::POST, &["v1", "sandboxes"]).json(&create_body(options, 1));
        self.transport.send(call).await
    }

    /// `count` sandboxes (1–10) in one all-or-nothing call.
    pub async fn create_sandbox_batch(
        &self,
        count: u32,
        options: &CreateSandboxOptions,
    ) -> Result<Vec<SandboxCreated>, CairnError> {
        let call = Call::new(Method::POST, &["v1", "sandboxes"]).json(&create_body(options, count));
        Ok(match self.transport.send(call).await? {
            OneOrMany::Many(sandboxes) => sandboxes,
            OneOrMany::One(sandbox) => vec![*sandbox],
        })
    }

    /// A session, also once destroyed (then `status` is "destroyed").
    pub async fn get_sandbox(&self, session_id: &str) -> Result<Sandbox, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "sandboxes", session_id]))
            .await
    }

    pub async fn list_sandboxes(&self, active_only: bool) -> Result<Vec<Sandbox>, CairnError> {
        let call = Call::new(Method::GET, &["v1", "sandboxes"]).query("active_only", active_only);
        self.transport.send(call).await
    }

    pub async fn destroy_sandbox(&self, session_id: &str) -> Result<(), CairnError> {
        let call = Call::new(Method::DELETE, &["v1", "sandboxes", session_id]);
        self.transport.send_empty(call).await
    }

    /// Runs a shell command (cwd /workspace); the HTTP call waits its timeout (default 30 s) + 15 s.
    pub async fn exec(
        &self,
        session_id: &str,
        command: &str,
        options: ExecOptions,
    ) -> Result<ExecResult, CairnError> {
        let timeout = options.timeout.unwrap_or(defaults::EXEC_TIMEOUT);
        let body = exec_body(command, options);
        let call = Call::new(Method::POST, &["v1", "sandboxes", session_id, "exec"])
            .json(&body)
            .timeout(sandbox_call_timeout(Some(timeout), defaults::EXEC_TIMEOUT));
        self.transport.send(call).await
    }

    /// An HTTP request made by the sandbox's broker, through its egress policy.
    pub async fn http_request(
        &self,
        session_id: &str,
        request: HttpRequestOptions,
    ) -> Result<HttpResponse, CairnError> {
        let timeout = request.timeout.unwrap_or(defaults::HTTP_REQUEST_TIMEOUT);
        let body = json!({
            "method": request.method.as_deref().unwrap_or(defaults::HTTP_REQUEST_METHOD),
            "url": request.url,
            "headers": request.headers,
            "body": request.body,
            "timeout": timeout,
        });
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "http-request"],
        )
        .json(&body)
        .timeout(sandbox_call_timeout(
            Some(timeout),
            defaults::HTTP_REQUEST_TIMEOUT,
        ));
        self.transport.send(call).await
    }

    /// A new sandbox as a [`SandboxSession`]. Rust has no async drop: call
    /// [`SandboxSession::destroy`] when done, or use [`Client::with_sandbox`].
    pub async fn sandbox(
        &self,
        options: &CreateSandboxOptions,
    ) -> Result<SandboxSession, CairnError> {
        let created = self.create_sandbox(options).await?;
        Ok(SandboxSession {
            client: self.clone(),
            sandbox: created.sandbox,
        })
    }

    /// Creates a sandbox, runs `work` with it, and destroys it afterwards whatever `work` returned.
    /// `work`'s error type only needs `From<CairnError>`, so `anyhow::Error` and the like fit.
    pub async fn with_sandbox<T, E, F, Fut>(
        &self,
        options: &CreateSandboxOptions,
        work: F,
    ) -> Result<T, E>
    where
        E: From<CairnError>,
        F: FnOnce(SandboxSession) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let session = self.sandbox(options).await?;
        let id = session.id().to_string();
        let outcome = work(session).await;
        let destroyed = self.destroy_sandbox(&id).await;
        match destroyed {
            // Already gone (expired, or destroyed by `work`): nothing left to clean up.
            Err(CairnError::Api { status: 404, .. }) | Ok(()) => outcome,
            Err(error) => outcome.and(Err(error.into())),
        }
    }
}

/// One sandbox's calls without repeating its id.
#[derive(Debug, Clone)]
pub struct SandboxSession {
    pub(crate) client: Client,
    /// The session as created.
    pub sandbox: Sandbox,
}

impl SandboxSession {
    pub fn id(&self) -> &str {
        &self.sandbox.id
    }

    pub async fn exec(
        &self,
        command: &str,
        options: ExecOptions,
    ) -> Result<ExecResult, CairnError> {
        self.client.exec(self.id(), command, options).await
    }

    /// [`Client::exec_stream`] for this sandbox.
    pub fn exec_stream(&self, command: &str, options: ExecOptions) -> crate::ExecEventStream {
        self.client.exec_stream(self.id(), command, options)
    }

    pub async fn http_request(
        &self,
        request: HttpRequestOptions,
    ) -> Result<HttpResponse, CairnError> {
        self.client.http_request(self.id(), request).await
    }

    /// The session's current state.
    pub async fn refresh(&self) -> Result<Sandbox, CairnError> {
        self.client.get_sandbox(self.id()).await
    }

    pub async fn destroy(self) -> Result<(), CairnError> {
        self.client.destroy_sandbox(self.id()).await
    }

    /// The client the session was made with, for the file and LSP calls on `id()`.
    pub fn client(&self) -> &Client {
        &self.client
    }
}
