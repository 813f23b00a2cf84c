//! Tools by name: every tool the server offers, built-in and from plugins, through the generic
//! routes. Plugin tools are unknown to this crate, so a call takes and returns plain JSON.

use crate::transport::Call;
use crate::types::{CallToolOptions, ToolList};
use crate::{CairnError, Client};
use reqwest::Method;
use serde_json::Value;

impl Client {
    /// Every tool the server offers, built-in and from plugins, with its input and output JSON
    /// Schemas.
    pub async fn list_tools(&self) -> Result<ToolList, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "tools"]))
            .await
    }

    /// Calls a tool by name (`recall`, `<plugin>.<tool>`) with its wire input, through the same
    /// checks as its own route, and returns its output (`{}` for a route that answers nothing).
    pub async fn call_tool(&self, name: &str, input: Value) -> Result<Value, CairnError> {
        self.call_tool_with(name, input, CallToolOptions::default())
            .await
    }

    /// `call_tool` with an idempotency key or its own timeout.
    pub async fn call_tool_with(
        &self,
        name: &str,
        input: Value,
        options: CallToolOptions,
    ) -> Result<Value, CairnError> {
        let mut call = Call::new(Method::POST, &["v1", "tools", name]).json(&input);
        if let Some(key) = options.idempotency_key {
            call = call.header("idempotency-key", key);
        }
        if let Some(timeout) = options.timeout {
            call = call.timeout(timeout);
        }
        self.transport.send(call).await
    }
}
