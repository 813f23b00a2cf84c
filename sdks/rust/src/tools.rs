//! Tools by name: every tool the server offers, built-in and from plugins, through the generic
//! routes. Plugin tools are unknown to this crate, so a call takes and returns plain JSON.

use crate::sandboxes::SANDBOX_TIMEOUT_MARGIN;
use crate::transport::Call;
use crate::types::{CallToolOptions, ToolList};
use crate::{CairnError, Client};
use reqwest::Method;
use serde_json::Value;
use std::time::Duration;

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
    /// An input with a positive sandbox-side `timeout` in seconds (exec, http_request) is waited
    /// for that plus 15 s, as `exec` is; any other call waits the client's timeout.
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
        if let Some(timeout) = options.timeout.or_else(|| sandbox_wait(&input)) {
            call = call.timeout(timeout);
        }
        self.transport.send(call).await
    }
}

/// The HTTP wait for an input whose top-level `timeout` is a positive number of seconds (exec's,
/// http_request's): that plus the margin exec gets. None (the client's timeout) otherwise, and for
/// a value too large for a `Duration` (the server refuses it at once anyway).
fn sandbox_wait(input: &Value) -> Option<Duration> {
    let seconds = input
        .get("timeout")?
        .as_f64()
        .filter(|seconds| *seconds > 0.0)?;
    let wait = Duration::try_from_secs_f64(seconds).ok()?;
    wait.checked_add(SANDBOX_TIMEOUT_MARGIN)
}

#[cfg(test)]
mod tests {
    use super::sandbox_wait;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn only_a_positive_top_level_number_of_seconds_is_waited_for() {
        let wait = |input| sandbox_wait(&input);
        assert_eq!(
            wait(json!({"timeout": 100})),
            Some(Duration::from_secs(115))
        );
        assert_eq!(
            wait(json!({"timeout": 2.5})),
            Some(Duration::from_millis(17_500))
        );
        for input in [
            json!({"q": "deploy day"}),
            json!({"timeout": 0}),
            json!({"timeout": -5}),
            json!({"timeout": "100"}),
            json!({"timeout": null}),
            json!({"options": {"timeout": 100}}),
            json!({"timeout": 1e300}),
            json!([1, 2]),
        ] {
            assert_eq!(wait(input.clone()), None, "{input}");
        }
    }
}
