//! The SDK's one error type. Every failure is a [`CairnError`]: `Api` when the server answered with
//! its error envelope (CONTRACT §5), `Connection` when no usable answer came, `Decode` when an answer
//! did not have the documented shape, `Config` when the client was set up wrongly, `Io` when the
//! caller's own writer failed during a streamed download.

use std::time::Duration;

/// What went wrong in a call.
#[derive(Debug, thiserror::Error)]
pub enum CairnError {
    /// The server answered with a non-2xx status.
    #[error("{message} [{code}] (HTTP {status})")]
    Api {
        status: u16,
        /// The envelope's `error.code`, or `"error"` when the body had none.
        code: String,
        /// The envelope's `error.message`, or `HTTP <status>` when the body had none.
        message: String,
        /// As the server says; without a value, true exactly for 5xx answers.
        retryable: bool,
        remediation: Option<String>,
        /// Boxed so `Result<_, CairnError>` stays small on the success path.
        details: Option<Box<serde_json::Value>>,
        /// From `Retry-After` (seconds or an HTTP date), when the server says how long to wait.
        /// Whole seconds rather than a `Duration`, which keeps the error under clippy's
        /// `result_large_err` size for callers; [`CairnError::retry_after`] gives the `Duration`.
        retry_after_seconds: Option<u32>,
        /// The server's `X-Request-ID`, for support and logs.
        request_id: Option<String>,
    },
    /// No answer came: the connection failed, broke off or timed out.
    #[error("{message}")]
    Connection {
        message: String,
        #[source]
        source: Option<reqwest::Error>,
    },
    /// An answer came but was not the JSON the contract documents.
    #[error("{message}")]
    Decode {
        message: String,
        #[source]
        source: Option<serde_json::Error>,
    },
    /// The client was configured wrongly (a base URL the rule refuses, a missing API key).
    #[error("{0}")]
    Config(String),
    /// The caller's writer failed while a download was streamed into it
    /// ([`Client::download_file_to`](crate::Client::download_file_to)).
    #[error("{message}")]
    Io {
        message: String,
        #[source]
        source: std::io::Error,
    },
}

/// The family of an API error (CONTRACT §5's SDK error classes), for code that handles families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiErrorType {
    /// Any `*_limit_reached` or `*_capacity_reached` code.
    QuotaExceeded,
    /// `command_not_allowed`, `path_outside_sandbox`.
    CapabilityDenied,
    EgressDenied,
    SandboxNotReady,
    /// `service_unavailable`, and any other 5xx answer.
    ServiceUnavailable,
}

impl ApiErrorType {
    /// The family of a code and status, or `None` for codes outside every family (`not_found`, …).
    pub fn of(code: &str, status: u16) -> Option<Self> {
        if code.ends_with("_limit_reached") || code.ends_with("_capacity_reached") {
            Some(Self::QuotaExceeded)
        } else if code == "command_not_allowed" || code == "path_outside_sandbox" {
            Some(Self::CapabilityDenied)
        } else if code == "egress_denied" {
            Some(Self::EgressDenied)
        } else if code == "sandbox_not_ready" {
            Some(Self::SandboxNotReady)
        } else if code == "service_unavailable" || status >= 500 {
            Some(Self::ServiceUnavailable)
        } else {
            None
        }
    }

    /// The snake_case name every Cairn SDK uses (`quota_exceeded`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::QuotaExceeded => "quota_exceeded",
            Self::CapabilityDenied => "capability_denied",
            Self::EgressDenied => "egress_denied",
            Self::SandboxNotReady => "sandbox_not_ready",
            Self::ServiceUnavailable => "service_unavailable",
        }
    }
}

impl CairnError {
    /// The HTTP status of an API error.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The error code of an API error (`not_found`, `rate_limited`, …).
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Api { code, .. } => Some(code),
            _ => None,
        }
    }

    /// The family of an API error, if it belongs to one.
    pub fn api_error_type(&self) -> Option<ApiErrorType> {
        match self {
            Self::Api { code, status, .. } => ApiErrorType::of(code, *status),
            _ => None,
        }
    }

    /// Whether trying the same call again later may succeed: the server's word for API errors;
    /// connection failures are retryable, decoding, configuration and local I/O failures are not.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Api { retryable, .. } => *retryable,
            Self::Connection { .. } => true,
            Self::Decode { .. } | Self::Config(_) | Self::Io { .. } => false,
        }
    }

    /// How long the server asked to wait before trying again.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Api {
                retry_after_seconds,
                ..
            } => retry_after_seconds.map(|seconds| Duration::from_secs(seconds.into())),
            _ => None,
        }
    }

    pub(crate) fn connection(message: String, source: reqwest::Error) -> Self {
        Self::Connection {
            message,
            source: Some(source),
        }
    }
}
