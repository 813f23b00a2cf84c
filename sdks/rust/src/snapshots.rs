//! Snapshots of a sandbox's files and its activity feed (docs/sandboxes.md#snapshots, #activity),
//! and API keys with a role (docs/api.md#api-key-roles).

use crate::transport::{Call, Credential};
use crate::types::defaults;
use crate::types::{ApiKeyCreated, CreateSnapshotOutput, SandboxCreated, SandboxLogOutput};
use crate::{CairnError, Client};
use reqwest::Method;
use serde_json::json;

impl Client {
    /// An immutable, consistent copy of the sandbox's /workspace and /tmp.
    pub async fn create_snapshot(
        &self,
        session_id: &str,
        label: Option<&str>,
    ) -> Result<CreateSnapshotOutput, CairnError> {
        let call = Call::new(Method::POST, &["v1", "sandboxes", session_id, "snapshots"]);
        self.transport
            .send(call.json(&json!({ "label": label })))
            .await
    }

    /// The sandbox's snapshots, newest first.
    pub async fn list_snapshots(
        &self,
        session_id: &str,
    ) -> Result<Vec<CreateSnapshotOutput>, CairnError> {
        let call = Call::new(Method::GET, &["v1", "sandboxes", session_id, "snapshots"]);
        self.transport.send(call).await
    }

    pub async fn get_snapshot(
        &self,
        snapshot_id: &str,
    ) -> Result<CreateSnapshotOutput, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "snapshots", snapshot_id]))
            .await
    }

    /// Needs an admin key: a member key gets `CairnError::Api` with code `insufficient_role` (403).
    pub async fn delete_snapshot(&self, snapshot_id: &str) -> Result<(), CairnError> {
        self.transport
            .send_empty(Call::new(Method::DELETE, &["v1", "snapshots", snapshot_id]))
            .await
    }

    /// A new sandbox whose files are the snapshot's.
    pub async fn restore_snapshot(
        &self,
        snapshot_id: &str,
        label: Option<&str>,
    ) -> Result<SandboxCreated, CairnError> {
        let call = Call::new(Method::POST, &["v1", "snapshots", snapshot_id, "restore"]);
        self.transport
            .send(call.json(&json!({ "label": label })))
            .await
    }

    /// A page of the sandbox's activity, newest first; `limit` `None` for 50.
    pub async fn sandbox_log(
        &self,
        session_id: &str,
        limit: Option<u32>,
        offset: u32,
    ) -> Result<SandboxLogOutput, CairnError> {
        let call = Call::new(Method::GET, &["v1", "sandboxes", session_id, "log"])
            .query("limit", limit.unwrap_or(defaults::SANDBOX_LOG_LIMIT))
            .query("offset", offset);
        self.transport.send(call).await
    }

    /// An API key of a role: `"admin"` or `"member"` (cannot delete snapshots or mint takeover
    /// tokens), made with a dashboard token.
    pub async fn create_api_key_with_role(
        &self,
        access_token: &str,
        name: &str,
        role: &str,
    ) -> Result<ApiKeyCreated, CairnError> {
        let call = Call::new(Method::POST, &["v1", "api-keys"])
            .json(&json!({ "name": name, "role": role }));
        self.transport
            .send(call.credential(Credential::Token(access_token)))
            .await
    }
}
