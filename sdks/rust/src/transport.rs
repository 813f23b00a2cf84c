//! One HTTP exchange with the server, and the opt-in retry around it. Every client method builds a
//! [`Call`] and hands it to [`Transport::send`]; nothing else in the crate touches reqwest.

use crate::envelope::api_error;
use crate::retry::{is_idempotent, is_retry_status, RetryPolicy};
use crate::CairnError;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER, USER_AGENT};
use reqwest::{Method, Url};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;

const CLIENT_NAME: &str = concat!("cairn-client-rust/", env!("CARGO_PKG_VERSION"));

#[derive(Debug)]
pub(crate) struct Transport {
    pub(crate) http: reqwest::Client,
    pub(crate) base_url: Url,
    pub(crate) api_key: Option<String>,
    pub(crate) timeout: Duration,
    pub(crate) retry: Option<RetryPolicy>,
}

/// Which bearer credential a call carries.
pub(crate) enum Credential<'a> {
    /// The client's API key (most routes).
    ApiKey,
    /// A dashboard token from signup or login (the API-key routes).
    Token(&'a str),
    /// None (signup, login).
    None,
}

pub(crate) struct Call<'a> {
    method: Method,
    segments: Vec<&'a str>,
    query: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
    credential: Credential<'a>,
    timeout: Option<Duration>,
    headers: Vec<(&'static str, String)>,
    /// The body and the answer are bytes (the raw file routes), not JSON.
    raw: bool,
}

impl<'a> Call<'a> {
    /// A call to the path made of `segments` (each percent-encoded) under the base URL.
    pub(crate) fn new(method: Method, segments: &[&'a str]) -> Self {
        Self {
            method,
            segments: segments.to_vec(),
            query: Vec::new(),
            body: None,
            credential: Credential::ApiKey,
            timeout: None,
            headers: Vec::new(),
            raw: false,
        }
    }

    /// A call whose body (if any) and answer are bytes: `application/octet-stream`.
    pub(crate) fn raw(mut self, body: Option<Vec<u8>>) -> Self {
        self.raw = true;
        self.body = body;
        self
    }

    pub(crate) fn json(mut self, body: &impl Serialize) -> Self {
        // Request types are plain data with string keys: serialising them cannot fail.
        self.body = Some(serde_json::to_vec(body).expect("request bodies serialise to JSON"));
        self
    }

    pub(crate) fn query(mut self, name: &'static str, value: impl ToString) -> Self {
        self.query.push((name, value.to_string()));
        self
    }

    pub(crate) fn query_if(self, name: &'static str, value: Option<&str>) -> Self {
        match value {
            Some(value) => self.query(name, value),
            None => self,
        }
    }

    pub(crate) fn credential(mut self, credential: Credential<'a>) -> Self {
        self.credential = credential;
        self
    }

    /// Overrides the client's timeout (exec and the broker wait for their sandbox-side timeout).
    pub(crate) fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// An extra request header (an `Idempotency-Key`).
    pub(crate) fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub(crate) fn describe(&self) -> String {
        format!("{} /{}", self.method, self.segments.join("/"))
    }
}

impl Transport {
    /// Sends the call and decodes the JSON answer.
    pub(crate) async fn send<T: DeserializeOwned>(&self, call: Call<'_>) -> Result<T, CairnError> {
        let description = call.describe();
        let body = self.exchange(call).await?;
        serde_json::from_slice(&body).map_err(|source| CairnError::Decode {
            message: format!("{description}: the answer is not the documented JSON: {source}"),
            source: Some(source),
        })
    }

    /// Sends a raw call and returns the answer's bytes exactly.
    pub(crate) async fn send_bytes(&self, call: Call<'_>) -> Result<Vec<u8>, CairnError> {
        self.exchange(call).await
    }

    /// Sends a call whose success has no body (204).
    pub(crate) async fn send_empty(&self, call: Call<'_>) -> Result<(), CairnError> {
        self.exchange(call).await.map(drop)
    }

    /// The body of a 2xx answer, after the retries the policy allows.
    async fn exchange(&self, call: Call<'_>) -> Result<Vec<u8>, CairnError> {
        let retry = self.retry.filter(|_| is_idempotent(&call.method));
        let mut attempt = 0;
        loop {
            let can_retry = retry.is_some_and(|policy| attempt < policy.max_retries);
            let backoff = || retry.map_or(Duration::ZERO, |policy| policy.backoff(attempt));
            let failure = match self.attempt(&call).await {
                Ok(body) => return Ok(body),
                Err(failure) => failure,
            };
            let wait = match &failure {
                CairnError::Connection { .. } if can_retry => backoff(),
                CairnError::Api { status, .. } if can_retry && is_retry_status(*status) => {
                    failure.retry_after().unwrap_or_else(backoff)
                }
                _ => return Err(failure),
            };
            if retry.is_some_and(|policy| wait > policy.max_delay) {
                return Err(failure);
            }
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    async fn attempt(&self, call: &Call<'_>) -> Result<Vec<u8>, CairnError> {
        let timeout = call.timeout.unwrap_or(self.timeout);
        let mut request = self
            .http
            .request(call.method.clone(), self.url(call))
            .header(
                ACCEPT,
                if call.raw {
                    "application/octet-stream, application/json"
                } else {
                    "application/json"
                },
            )
            .header(USER_AGENT, CLIENT_NAME)
            .timeout(timeout);
        for (name, value) in &call.headers {
            request = request.header(*name, value);
        }
        let credential = match call.credential {
            Credential::ApiKey => self.api_key.as_deref(),
            Credential::Token(token) => Some(token),
            Credential::None => None,
        };
        if let Some(credential) = credential {
            request = request.header(AUTHORIZATION, format!("Bearer {credential}"));
        }
        if let Some(body) = &call.body {
            request = request
                .header(
                    CONTENT_TYPE,
                    if call.raw {
                        "application/octet-stream"
                    } else {
                        "application/json"
                    },
                )
                .body(body.clone());
        }
        let failed = |source: reqwest::Error| {
            let reason = if source.is_timeout() {
                format!("no answer within {} s", timeout.as_secs_f64())
            } else {
                chain(&source)
            };
            CairnError::connection(format!("{} failed: {reason}", call.describe()), source)
        };
        let response = request.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        let (retry_after, request_id) = refusal_headers(&response);
        let body = response.bytes().await.map_err(failed)?.to_vec();
        if (200..300).contains(&status) {
            // A 204 has no body; decoding it as `()` wants JSON null.
            return Ok(if body.is_empty() && !call.raw {
                b"null".to_vec()
            } else {
                body
            });
        }
        Err(api_error(
            status,
            retry_after.as_deref(),
            request_id.as_deref(),
            &body,
        ))
    }

    /// Opens a Server-Sent Events answer (a process's output stream, a streamed exec with its
    /// JSON body) and returns it unread. The client's timeout bounds the wait for the answer's
    /// head only: the stream itself lasts as long as the server keeps it open, and its reader
    /// bounds each wait for more.
    pub(crate) async fn open_stream(
        &self,
        call: &Call<'_>,
    ) -> Result<reqwest::Response, CairnError> {
        let mut request = self
            .http
            .request(call.method.clone(), self.url(call))
            .header(ACCEPT, "text/event-stream")
            .header(USER_AGENT, CLIENT_NAME);
        if let Some(credential) = self.api_key.as_deref() {
            request = request.header(AUTHORIZATION, format!("Bearer {credential}"));
        }
        if let Some(body) = &call.body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        let response = match tokio::time::timeout(self.timeout, request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(source)) => {
                let message = format!("{} failed: {}", call.describe(), chain(&source));
                return Err(CairnError::connection(message, source));
            }
            Err(_) => {
                return Err(CairnError::Connection {
                    message: format!(
                        "{} failed: no answer within {} s",
                        call.describe(),
                        self.timeout.as_secs_f64()
                    ),
                    source: None,
                })
            }
        };
        success(response).await
    }

    /// Sends a raw call once (a streamed body cannot be sent again, so never retried), with
    /// `body` streamed when given, and returns a 2xx answer unread, for its body to be streamed
    /// too. The call's timeout bounds the whole transfer.
    pub(crate) async fn send_raw_streamed(
        &self,
        call: &Call<'_>,
        body: Option<reqwest::Body>,
    ) -> Result<reqwest::Response, CairnError> {
        let timeout = call.timeout.unwrap_or(self.timeout);
        let mut request = self
            .http
            .request(call.method.clone(), self.url(call))
            .header(ACCEPT, "application/octet-stream, application/json")
            .header(USER_AGENT, CLIENT_NAME)
            .timeout(timeout);
        if let Some(credential) = self.api_key.as_deref() {
            request = request.header(AUTHORIZATION, format!("Bearer {credential}"));
        }
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, "application/octet-stream")
                .body(body);
        }
        let response = request.send().await.map_err(|source| {
            let reason = if source.is_timeout() {
                format!("no answer within {} s", timeout.as_secs_f64())
            } else {
                chain(&source)
            };
            CairnError::connection(format!("{} failed: {reason}", call.describe()), source)
        })?;
        success(response).await
    }

    fn url(&self, call: &Call<'_>) -> Url {
        let mut url = self.base_url.clone();
        url.path_segments_mut()
            .expect("the base URL rule admits only http(s) URLs, which have paths")
            .pop_if_empty()
            .extend(&call.segments);
        if !call.query.is_empty() {
            url.query_pairs_mut().extend_pairs(&call.query);
        }
        url
    }
}

/// The `Retry-After` and `X-Request-ID` an API error carries.
fn refusal_headers(response: &reqwest::Response) -> (Option<String>, Option<String>) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    (header(RETRY_AFTER.as_str()), header("x-request-id"))
}

/// A 2xx answer as it is; any other status read into the API error its body describes.
async fn success(response: reqwest::Response) -> Result<reqwest::Response, CairnError> {
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(response);
    }
    let (retry_after, request_id) = refusal_headers(&response);
    let body = response.bytes().await.unwrap_or_default();
    Err(api_error(
        status,
        retry_after.as_deref(),
        request_id.as_deref(),
        &body,
    ))
}

/// An error with its causes, since reqwest's own message ("error sending request") hides the reason.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
