//! Where the client sends its API key. A base URL must be https, or plain http on this machine only
//! (the host is exactly `localhost` or `127.0.0.1`): a key must never cross a network in the clear.
//! The URL is parsed, not prefix-matched, so `http://localhost.evil.com`, `http://localhost@evil.com`
//! and `http://127.0.0.1.nip.io` are refused.

use crate::CairnError;
use reqwest::Url;

/// The local server's address, used when no base URL is given.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8090";

/// The base URL with its trailing slashes trimmed, or [`CairnError::Config`] when the rule refuses it.
pub fn normalize_base_url(text: &str) -> Result<String, CairnError> {
    let refuse = |why: &str| CairnError::Config(format!("Invalid base URL {text:?}: {why}"));
    let url = Url::parse(text).map_err(|_| refuse("not an absolute URL"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse("it must not carry a user name or password"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refuse("it must not carry a query or fragment"));
    }
    let secure = url.scheme() == "https" && url.host_str().is_some();
    let local = url.scheme() == "http" && matches!(url.host_str(), Some("localhost" | "127.0.0.1"));
    if !secure && !local {
        return Err(refuse(
            "use https (plain http only for localhost or 127.0.0.1)",
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}
