//! Options of the file routes inside a sandbox (CONTRACT §2.7–2.8); what the file and language
//! server routes answer is generated: `generated.rs`.

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GrepOptions {
    /// Where to search (default "/", the workspace).
    pub path: Option<String>,
    /// Only files matching this glob.
    pub glob: Option<String>,
    /// 1–5000 (default 500).
    pub max_matches: Option<u32>,
}
