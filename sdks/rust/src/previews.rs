//! Previews of sandbox ports and the takeover terminal's token and recording
//! (docs/sandboxes.md#previews, #takeover-terminal).

use crate::transport::Call;
use crate::types::{
    CreatePreviewOutput, ListPreviewsOutput, RevokePreviewOutput, TakeoverRecordingOutput,
    TakeoverTokenOutput,
};
use crate::{CairnError, Client, SandboxSession};
use reqwest::Method;
use serde_json::json;

impl Client {
    /// A URL that reaches `port` inside the sandbox (HTTP and WebSocket) until `expires_at`; the
    /// URL is its own authorization. `ttl_seconds`: 30 to 86400, `None` for the default (900).
    pub async fn preview(
        &self,
        session_id: &str,
        port: u16,
        ttl_seconds: Option<u32>,
    ) -> Result<CreatePreviewOutput, CairnError> {
        let port = port.to_string();
        let body = match ttl_seconds {
            Some(ttl) => json!({ "ttl_seconds": ttl }),
            None => json!({}),
        };
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "preview", &port],
        );
        self.transport.send(call.json(&body)).await
    }

    /// Ends a preview URL at once; revoking one twice is no error.
    pub async fn revoke_preview(
        &self,
        session_id: &str,
        port: u16,
        token_id: &str,
    ) -> Result<RevokePreviewOutput, CairnError> {
        let port = port.to_string();
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "preview", &port, "revoke"],
        );
        self.transport
            .send(call.json(&json!({ "token_id": token_id })))
            .await
    }

    /// The sandbox's unexpired previews (their ids, not their URLs).
    pub async fn list_previews(&self, session_id: &str) -> Result<ListPreviewsOutput, CairnError> {
        let call = Call::new(Method::GET, &["v1", "sandboxes", session_id, "previews"]);
        self.transport.send(call).await
    }

    /// A single-use token (60 s) that opens the sandbox's terminal as a WebSocket,
    /// `GET /v1/sandboxes/{id}/takeover?token=…`. Needs an admin key.
    pub async fn takeover_token(
        &self,
        session_id: &str,
        read_only: bool,
    ) -> Result<TakeoverTokenOutput, CairnError> {
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "takeover-token"],
        );
        self.transport
            .send(call.json(&json!({ "read_only": read_only })))
            .await
    }

    /// What the takeover terminal was sent and showed (the last 1 MiB).
    pub async fn takeover_recording(
        &self,
        session_id: &str,
    ) -> Result<TakeoverRecordingOutput, CairnError> {
        let call = Call::new(
            Method::GET,
            &["v1", "sandboxes", session_id, "takeover", "recording"],
        );
        self.transport.send(call).await
    }
}

impl SandboxSession {
    pub async fn preview(
        &self,
        port: u16,
        ttl_seconds: Option<u32>,
    ) -> Result<CreatePreviewOutput, CairnError> {
        self.client.preview(self.id(), port, ttl_seconds).await
    }

    pub async fn revoke_preview(
        &self,
        port: u16,
        token_id: &str,
    ) -> Result<RevokePreviewOutput, CairnError> {
        self.client.revoke_preview(self.id(), port, token_id).await
    }

    pub async fn takeover_token(&self, read_only: bool) -> Result<TakeoverTokenOutput, CairnError> {
        self.client.takeover_token(self.id(), read_only).await
    }
}
