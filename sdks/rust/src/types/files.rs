//! Files and language servers inside a sandbox (CONTRACT §2.7–2.8).

use super::JsonObject;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileWritten {
    pub path: String,
    pub size: u64,
    /// False when an existing file was overwritten.
    pub created: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileView {
    pub content: String,
    pub lines: u64,
    pub is_directory: bool,
    pub entries: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrReplaceResult {
    pub path: String,
    pub replaced: u64,
    pub occurrences: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Directories end with "/".
    pub path: String,
    pub is_dir: bool,
    pub size: u64,
    pub modified_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileList {
    pub entries: Vec<FileEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GlobResult {
    pub matches: Vec<FileEntry>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GrepOptions {
    /// Where to search (default "/", the workspace).
    pub path: Option<String>,
    /// Only files matching this glob.
    pub glob: Option<String>,
    /// 1–5000 (default 500).
    pub max_matches: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrepMatch {
    pub path: String,
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrepResult {
    pub matches: Vec<GrepMatch>,
    /// An invalid pattern or a search that ran out of time.
    pub error: Option<String>,
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LspStarted {
    pub lsp_id: String,
}

/// "opened" or "stopped".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LspStatus {
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LspCompletion {
    /// Raw LSP `CompletionItem` objects.
    pub items: Vec<JsonObject>,
}
