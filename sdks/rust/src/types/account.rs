//! The command allowlist's rule (CONTRACT §2.4), written by hand as an untagged enum. What the
//! account routes answer (tokens, API keys, the account, usage) is generated: `generated.rs`.

use serde::{Deserialize, Serialize};

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
