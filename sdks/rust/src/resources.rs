//! The account's other resources: custom images, volumes, secrets, MCP connections and the
//! command allowlist.

use crate::transport::Call;
use crate::types::{
    defaults, AllowedCommands, CommandRule, CreateImageOptions, Image, McpConnection, Queued,
    Secret, Volume,
};
use crate::{CairnError, Client};
use reqwest::Method;
use serde_json::json;

impl Client {
    /// Queues a build of a declarative image; poll [`Client::get_image`] until "completed".
    pub async fn create_image(&self, options: &CreateImageOptions) -> Result<Queued, CairnError> {
        let body = json!({
            "label": options.label,
            "base": options.base.as_deref().unwrap_or(defaults::CREATE_SANDBOX_IMAGE_BASE),
            "python_packages": options.python_packages,
            "apt_packages": options.apt_packages,
            "npm_packages": options.npm_packages,
        });
        self.transport
            .send(Call::new(Method::POST, &["v1", "images"]).json(&body))
            .await
    }

    pub async fn get_image(&self, image_id: &str) -> Result<Image, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "images", image_id]))
            .await
    }

    pub async fn list_images(&self) -> Result<Vec<Image>, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "images"]))
            .await
    }

    pub async fn delete_image(&self, image_id: &str) -> Result<(), CairnError> {
        self.transport
            .send_empty(Call::new(Method::DELETE, &["v1", "images", image_id]))
            .await
    }

    /// Queues a volume of `size_gb` (0 < size ≤ 1024); mount it once "ready".
    pub async fn create_volume(
        &self,
        size_gb: f64,
        label: Option<&str>,
    ) -> Result<Queued, CairnError> {
        let body = json!({ "size_gb": size_gb, "label": label });
        self.transport
            .send(Call::new(Method::POST, &["v1", "volumes"]).json(&body))
            .await
    }

    pub async fn get_volume(&self, volume_id: &str) -> Result<Volume, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "volumes", volume_id]))
            .await
    }

    pub async fn list_volumes(&self) -> Result<Vec<Volume>, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "volumes"]))
            .await
    }

    pub async fn delete_volume(&self, volume_id: &str) -> Result<(), CairnError> {
        self.transport
            .send_empty(Call::new(Method::DELETE, &["v1", "volumes", volume_id]))
            .await
    }

    /// Stores a secret the HTTP broker may send to `allowed_hosts` only; the value never returns.
    pub async fn create_secret(
        &self,
        name: &str,
        value: &str,
        allowed_hosts: &[&str],
    ) -> Result<Secret, CairnError> {
        let body = json!({ "name": name, "value": value, "allowed_hosts": allowed_hosts });
        self.transport
            .send(Call::new(Method::POST, &["v1", "secrets"]).json(&body))
            .await
    }

    pub async fn list_secrets(&self) -> Result<Vec<Secret>, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "secrets"]))
            .await
    }

    pub async fn delete_secret(&self, secret_id: &str) -> Result<(), CairnError> {
        self.transport
            .send_empty(Call::new(Method::DELETE, &["v1", "secrets", secret_id]))
            .await
    }

    /// A named grant of a catalog host (`slack`, `notion`, `linear`, `github`, …) to sandboxes.
    pub async fn create_mcp_connection(
        &self,
        label: &str,
        catalog_id: &str,
    ) -> Result<McpConnection, CairnError> {
        let body = json!({ "label": label, "catalog_id": catalog_id });
        self.transport
            .send(Call::new(Method::POST, &["v1", "mcp-connections"]).json(&body))
            .await
    }

    pub async fn list_mcp_connections(&self) -> Result<Vec<McpConnection>, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "mcp-connections"]))
            .await
    }

    pub async fn delete_mcp_connection(&self, connection_id: &str) -> Result<(), CairnError> {
        let call = Call::new(Method::DELETE, &["v1", "mcp-connections", connection_id]);
        self.transport.send_empty(call).await
    }

    pub async fn get_allowed_commands(&self) -> Result<AllowedCommands, CairnError> {
        let call = Call::new(Method::GET, &["v1", "account", "allowed-commands"]);
        self.transport.send(call).await
    }

    /// Replaces the allowlist (1–50 rules); exec then refuses other commands with 403.
    pub async fn set_allowed_commands(
        &self,
        rules: &[CommandRule],
    ) -> Result<AllowedCommands, CairnError> {
        let call = Call::new(Method::PUT, &["v1", "account", "allowed-commands"]);
        self.transport
            .send(call.json(&json!({ "rules": rules })))
            .await
    }

    /// Removes the allowlist: every command is allowed again.
    pub async fn clear_allowed_commands(&self) -> Result<(), CairnError> {
        let call = Call::new(Method::DELETE, &["v1", "account", "allowed-commands"]);
        self.transport.send_empty(call).await
    }
}
