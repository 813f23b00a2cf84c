//! [`Client`] and its builder, and the account routes: signup, login, API keys, whoami and usage.
//! The other routes' methods live beside their area (`sandboxes.rs`, `resources.rs`, `memory.rs`).

use crate::base_url::{normalize_base_url, DEFAULT_BASE_URL};
use crate::transport::{Call, Credential, Transport};
use crate::types::{Account, ApiKey, ApiKeyCreated, TokenResponse, UsageDetail};
use crate::{CairnError, RetryPolicy};
use reqwest::{Method, Url};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// A Cairn client. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct Client {
    pub(crate) transport: Arc<Transport>,
}

impl Client {
    /// A client for `base_url` (https, or http on localhost / 127.0.0.1) using `api_key`.
    pub fn new(base_url: &str, api_key: &str) -> Result<Self, CairnError> {
        Self::builder().base_url(base_url).api_key(api_key).build()
    }

    /// A client from `CAIRN_BASE_URL` (unset or empty: `http://127.0.0.1:8090`) and
    /// `CAIRN_API_KEY` (unset or empty: none), as the other SDKs read them.
    pub fn from_env() -> Result<Self, CairnError> {
        let mut builder = Self::builder();
        if let Some(base_url) = non_empty_variable("CAIRN_BASE_URL") {
            builder = builder.base_url(base_url);
        }
        if let Some(api_key) = non_empty_variable("CAIRN_API_KEY") {
            builder = builder.api_key(api_key);
        }
        builder.build()
    }

    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The base URL in use, trailing slashes trimmed.
    pub fn base_url(&self) -> &str {
        self.transport.base_url.as_str().trim_end_matches('/')
    }

    // Accounts and keys. The key routes take the dashboard token from signup or login.

    pub async fn signup(&self, email: &str, password: &str) -> Result<TokenResponse, CairnError> {
        let body = json!({ "email": email, "password": password });
        let call = Call::new(Method::POST, &["v1", "auth", "signup"]);
        self.transport
            .send(call.json(&body).credential(Credential::None))
            .await
    }

    pub async fn login(&self, email: &str, password: &str) -> Result<TokenResponse, CairnError> {
        let body = json!({ "email": email, "password": password });
        let call = Call::new(Method::POST, &["v1", "auth", "login"]);
        self.transport
            .send(call.json(&body).credential(Credential::None))
            .await
    }

    pub async fn create_api_key(
        &self,
        access_token: &str,
        name: &str,
    ) -> Result<ApiKeyCreated, CairnError> {
        let call = Call::new(Method::POST, &["v1", "api-keys"]).json(&json!({ "name": name }));
        self.transport
            .send(call.credential(Credential::Token(access_token)))
            .await
    }

    /// Every key of the account, newest first, revoked ones included.
    pub async fn list_api_keys(&self, access_token: &str) -> Result<Vec<ApiKey>, CairnError> {
        let call = Call::new(Method::GET, &["v1", "api-keys"]);
        self.transport
            .send(call.credential(Credential::Token(access_token)))
            .await
    }

    pub async fn revoke_api_key(&self, access_token: &str, key_id: &str) -> Result<(), CairnError> {
        let call = Call::new(Method::DELETE, &["v1", "api-keys", key_id]);
        self.transport
            .send_empty(call.credential(Credential::Token(access_token)))
            .await
    }

    /// Whoami: the account the API key belongs to.
    pub async fn account(&self) -> Result<Account, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "account"]))
            .await
    }

    pub async fn usage(&self) -> Result<UsageDetail, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "usage"]))
            .await
    }
}

/// Builds a [`Client`]: `Client::builder().base_url(…).api_key(…).timeout(…).retry(…).build()`.
#[derive(Debug, Default)]
pub struct ClientBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    timeout: Option<Duration>,
    http_client: Option<reqwest::Client>,
    retry: Option<RetryPolicy>,
}

impl ClientBuilder {
    /// Default `http://127.0.0.1:8090`; https, or plain http only for localhost and 127.0.0.1.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// An API key (`cairn_…`); signup, login and the key routes work without one.
    pub fn api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }

    /// Per-request timeout (default 30 s); exec and the HTTP broker wait their own timeout + 15 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A reqwest client to use (proxies, custom roots); the default is a rustls client with the
    /// platform's trusted roots.
    pub fn http_client(mut self, http_client: reqwest::Client) -> Self {
        self.http_client = Some(http_client);
        self
    }

    /// Turns on retry of idempotent calls (GET, PUT, DELETE) with this policy.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Turns on retry with the default delays and `max_retries` attempts after the first.
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        let policy = self.retry.unwrap_or_default();
        self.retry = Some(RetryPolicy {
            max_retries,
            ..policy
        });
        self
    }

    pub fn build(self) -> Result<Client, CairnError> {
        let base_url = normalize_base_url(self.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL))?;
        let base_url =
            Url::parse(&base_url).map_err(|error| CairnError::Config(error.to_string()))?;
        if let Some(api_key) = &self.api_key {
            // It travels in a header: only visible ASCII can, and a bad one should fail here, not
            // as a puzzling connection error on the first call.
            if api_key.is_empty()
                || !api_key
                    .chars()
                    .all(|character| character.is_ascii_graphic())
            {
                return Err(CairnError::Config(
                    "The API key is empty or holds spaces or non-ASCII characters".into(),
                ));
            }
        }
        let http = match self.http_client {
            Some(http) => http,
            None => default_http_client()?,
        };
        Ok(Client {
            transport: Arc::new(Transport {
                http,
                base_url,
                api_key: self.api_key,
                timeout: self.timeout.unwrap_or(Duration::from_secs(30)),
                retry: self.retry,
            }),
        })
    }
}

/// An environment variable's value; unset, empty or not Unicode is None.
fn non_empty_variable(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

fn default_http_client() -> Result<reqwest::Client, CairnError> {
    // reqwest is built without a crypto provider (ring instead of aws-lc-rs); install ring as the
    // process default unless the application already chose one.
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another thread installing one is fine: a provider is then in place.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
    reqwest::Client::builder()
        .build()
        .map_err(|error| CairnError::Config(format!("Cannot build the HTTP client: {error}")))
}
