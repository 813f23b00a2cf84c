//! Turning a non-2xx answer into [`CairnError::Api`]: the body's `error.code` and `error.message`
//! when present, else `"error"` and `HTTP <status>`; `retryable` as the server says, else true
//! exactly for 5xx (CONTRACT §7). A body that is not the envelope (a proxy's HTML page) still makes
//! an error, described by those defaults.

use crate::retry::parse_retry_after;
use crate::CairnError;
use serde_json::Value;
use std::time::SystemTime;

pub(crate) fn api_error(
    status: u16,
    retry_after: Option<&str>,
    request_id: Option<&str>,
    body: &[u8],
) -> CairnError {
    let parsed: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let envelope = parsed.get("error").filter(|error| error.is_object());
    let text = |name: &str| {
        envelope
            .and_then(|error| error.get(name))
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    CairnError::Api {
        status,
        code: text("code").unwrap_or_else(|| "error".to_string()),
        message: text("message").unwrap_or_else(|| format!("HTTP {status}")),
        retryable: envelope
            .and_then(|error| error.get("retryable"))
            .and_then(Value::as_bool)
            .unwrap_or(status >= 500),
        remediation: text("remediation"),
        details: envelope
            .and_then(|error| error.get("details"))
            .cloned()
            .map(Box::new),
        retry_after_seconds: retry_after
            .and_then(|value| parse_retry_after(value, SystemTime::now()))
            // Rounded up so the wait is never shorter than asked; saturated past 136 years.
            .map(|wait| {
                u32::try_from(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
                    .unwrap_or(u32::MAX)
            }),
        request_id: request_id.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApiErrorType;

    #[test]
    fn an_envelope_gives_every_field() {
        let body = br#"{"error":{"code":"rate_limited","message":"Slow down","retryable":true,
            "remediation":"Wait","details":{"bucket":"memory_ops"}}}"#;
        let error = api_error(429, Some("3"), Some("abc"), body);
        let CairnError::Api {
            status,
            code,
            message,
            retryable,
            remediation,
            details,
            retry_after_seconds,
            request_id,
        } = &error
        else {
            panic!("not an API error: {error:?}");
        };
        assert_eq!(
            (*status, code.as_str(), message.as_str()),
            (429, "rate_limited", "Slow down")
        );
        assert!(*retryable);
        assert_eq!(remediation.as_deref(), Some("Wait"));
        assert_eq!(details.as_ref().unwrap()["bucket"], "memory_ops");
        assert_eq!(*retry_after_seconds, Some(3));
        assert_eq!(request_id.as_deref(), Some("abc"));
        assert_eq!(error.to_string(), "Slow down [rate_limited] (HTTP 429)");
        assert_eq!(error.api_error_type(), None);
    }

    #[test]
    fn a_body_without_the_envelope_gets_the_defaults() {
        for body in [
            &b"<html>Bad gateway</html>"[..],
            b"",
            b"{}",
            br#"{"error":"x"}"#,
        ] {
            let error = api_error(502, None, None, body);
            assert_eq!(error.code(), Some("error"));
            assert_eq!(error.to_string(), "HTTP 502 [error] (HTTP 502)");
            assert!(error.is_retryable(), "a 5xx without retryable is retryable");
            assert_eq!(
                error.api_error_type(),
                Some(ApiErrorType::ServiceUnavailable)
            );
        }
        let client_error = api_error(404, None, None, b"not json");
        assert!(
            !client_error.is_retryable(),
            "a 4xx without retryable is not"
        );
        assert_eq!(client_error.api_error_type(), None);
    }

    #[test]
    fn an_explicit_retryable_wins_over_the_status() {
        let body =
            br#"{"error":{"code":"sandbox_operation_failed","message":"m","retryable":false}}"#;
        assert!(!api_error(502, None, None, body).is_retryable());
        let body = br#"{"error":{"code":"rate_limited","message":"m","retryable":true}}"#;
        assert!(api_error(429, None, None, body).is_retryable());
    }

    #[test]
    fn codes_fall_into_the_contract_families() {
        let family =
            |code: &str, status: u16| ApiErrorType::of(code, status).map(ApiErrorType::as_str);
        assert_eq!(
            family("concurrent_sandbox_limit_reached", 429),
            Some("quota_exceeded")
        );
        assert_eq!(
            family("global_build_capacity_reached", 429),
            Some("quota_exceeded")
        );
        assert_eq!(
            family("command_not_allowed", 403),
            Some("capability_denied")
        );
        assert_eq!(
            family("path_outside_sandbox", 403),
            Some("capability_denied")
        );
        assert_eq!(family("egress_denied", 403), Some("egress_denied"));
        assert_eq!(family("sandbox_not_ready", 409), Some("sandbox_not_ready"));
        assert_eq!(
            family("service_unavailable", 503),
            Some("service_unavailable")
        );
        assert_eq!(family("internal_error", 500), Some("service_unavailable"));
        assert_eq!(family("not_found", 404), None);
        assert_eq!(family("rate_limited", 429), None);
    }
}
