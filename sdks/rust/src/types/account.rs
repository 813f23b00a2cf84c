//! Accounts, dashboard tokens, API keys, usage and the command allowlist (CONTRACT §2.1–2.4).

use serde::{Deserialize, Serialize};

/// What signup and login return: a dashboard token for the API-key routes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    /// Seconds until the token expires.
    pub expires_in: u64,
    pub account: Account,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    pub email: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKey {
    pub id: String,
    pub name: String,
    /// `cairn_` and the first 8 random characters, for display.
    pub prefix: String,
    pub created_at: String,
    pub revoked_at: Option<String>,
    pub last_used_at: Option<String>,
}

/// A new key; `key` is the raw API key, returned this once only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyCreated {
    #[serde(flatten)]
    pub api_key: ApiKey,
    pub key: String,
}

/// Sandbox usage against the account's caps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub monthly_sandbox_hours_used: f64,
    pub monthly_sandbox_hours_limit: f64,
    pub concurrent_sandboxes: u32,
    pub concurrent_sandboxes_limit: u32,
    pub total_sandboxes_created: u64,
}

/// [`Usage`] plus the `sandbox_ops` rate-limit headroom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageDetail {
    #[serde(flatten)]
    pub usage: Usage,
    pub sandbox_ops_rate_limit_remaining: u32,
    pub sandbox_ops_rate_limit: u32,
}

/// One allowlist entry: a bare command name, or a command with argument patterns (regexes matched
/// against the joined argument string).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CommandRule {
    Command(String),
    Patterns {
        command: String,
        #[serde(default)]
        args_allow: Vec<String>,
        #[serde(default)]
        args_deny: Vec<String>,
    },
}

/// The account's allowlist; empty means every command is allowed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllowedCommands {
    pub rules: Vec<CommandRule>,
}
