//! Options of the file routes inside a sandbox (CONTRACT §2.7–2.8); what the file and language
//! server routes answer is generated: `generated.rs`.

use super::OutputKeep;

/// What part of a file `view` reads; `Default` reads it whole.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewOptions {
    /// (first, last) line, 1-indexed and inclusive.
    pub view_range: Option<(u64, u64)>,
    /// Cuts the text (after `view_range`) to this many bytes (1–26214400), with a marker where it
    /// cut; the answer's `truncated`, `omitted_bytes` and `omitted_lines` say what went.
    pub max_output_bytes: Option<u32>,
    /// Which part a cut keeps (the server's default: [`OutputKeep::Head`]).
    pub keep: Option<OutputKeep>,
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
