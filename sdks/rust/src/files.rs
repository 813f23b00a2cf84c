//! Files and language servers inside a sandbox. Paths are relative to /workspace, or absolute
//! inside /workspace, /tmp or a mounted volume (anything else is 403 `path_outside_sandbox`).

use crate::transport::Call;
use crate::types::{
    defaults, FileList, FileView, FileWritten, GlobResult, GrepOptions, GrepResult, LspCompletion,
    LspStarted, LspStatus, StrReplaceResult, ViewOptions,
};
use crate::{CairnError, Client, SandboxSession};
use reqwest::Method;
use serde_json::json;

impl Client {
    /// Creates or overwrites a file (content up to 10 MiB).
    pub async fn file_create(
        &self,
        session_id: &str,
        path: &str,
        content: &str,
    ) -> Result<FileWritten, CairnError> {
        let call = Call::new(Method::POST, &["v1", "sandboxes", session_id, "files"]);
        self.transport
            .send(call.json(&json!({ "path": path, "content": content })))
            .await
    }

    /// A file's content, or a directory's entries: lines `options.view_range` (first, last;
    /// 1-indexed) or all, cut to `options.max_output_bytes` when given.
    pub async fn view(
        &self,
        session_id: &str,
        path: &str,
        options: ViewOptions,
    ) -> Result<FileView, CairnError> {
        let view_range = options.view_range.map(|(start, end)| [start, end]);
        let mut body = json!({ "path": path, "view_range": view_range });
        if let Some(max_output_bytes) = options.max_output_bytes {
            body["max_output_bytes"] = max_output_bytes.into();
        }
        if let Some(keep) = options.keep {
            body["keep"] = keep.as_str().into();
        }
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "files", "view"],
        );
        self.transport.send(call.json(&body)).await
    }

    /// Replaces `old_str` (which must be unique unless `replace_all`) with `new_str`.
    pub async fn str_replace(
        &self,
        session_id: &str,
        path: &str,
        old_str: &str,
        new_str: &str,
        replace_all: bool,
    ) -> Result<StrReplaceResult, CairnError> {
        let body = json!({ "path": path, "old_str": old_str, "new_str": new_str, "replace_all": replace_all });
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "files", "str-replace"],
        );
        self.transport.send(call.json(&body)).await
    }

    /// A directory's entries ("/" is the workspace).
    pub async fn ls(&self, session_id: &str, path: &str) -> Result<FileList, CairnError> {
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "files", "ls"],
        );
        self.transport
            .send(call.json(&json!({ "path": path })))
            .await
    }

    /// Files matching `pattern` (e.g. `**/*.rs`) under `path` (default "/").
    pub async fn glob(
        &self,
        session_id: &str,
        pattern: &str,
        path: Option<&str>,
    ) -> Result<GlobResult, CairnError> {
        let body = json!({ "pattern": pattern, "path": path.unwrap_or(defaults::GLOB_PATH) });
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "files", "glob"],
        );
        self.transport.send(call.json(&body)).await
    }

    /// Lines matching the regex `pattern`.
    pub async fn grep(
        &self,
        session_id: &str,
        pattern: &str,
        options: GrepOptions,
    ) -> Result<GrepResult, CairnError> {
        let body = json!({
            "pattern": pattern,
            "path": options.path.as_deref().unwrap_or(defaults::GREP_PATH),
            "glob": options.glob,
            "max_matches": options.max_matches.unwrap_or(defaults::GREP_MAX_MATCHES),
        });
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "files", "grep"],
        );
        self.transport.send(call.json(&body)).await
    }

    /// Starts a language server ("python", "typescript", …) in the sandbox.
    pub async fn lsp_start(
        &self,
        session_id: &str,
        language: &str,
    ) -> Result<LspStarted, CairnError> {
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "lsp", "start"],
        );
        self.transport
            .send(call.json(&json!({ "language": language })))
            .await
    }

    /// Opens (or re-syncs) a whole document.
    pub async fn lsp_open(
        &self,
        session_id: &str,
        lsp_id: &str,
        path: &str,
        content: &str,
    ) -> Result<LspStatus, CairnError> {
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "lsp", lsp_id, "open"],
        );
        self.transport
            .send(call.json(&json!({ "path": path, "content": content })))
            .await
    }

    /// Completions at a 0-indexed position.
    pub async fn lsp_completion(
        &self,
        session_id: &str,
        lsp_id: &str,
        path: &str,
        line: u32,
        character: u32,
    ) -> Result<LspCompletion, CairnError> {
        let body = json!({ "path": path, "line": line, "character": character });
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "lsp", lsp_id, "completion"],
        );
        self.transport.send(call.json(&body)).await
    }

    pub async fn lsp_stop(&self, session_id: &str, lsp_id: &str) -> Result<LspStatus, CairnError> {
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "lsp", lsp_id, "stop"],
        );
        self.transport.send(call.json(&json!({}))).await
    }
}

impl SandboxSession {
    pub async fn file_create(&self, path: &str, content: &str) -> Result<FileWritten, CairnError> {
        self.client.file_create(self.id(), path, content).await
    }

    pub async fn view(&self, path: &str, options: ViewOptions) -> Result<FileView, CairnError> {
        self.client.view(self.id(), path, options).await
    }

    pub async fn str_replace(
        &self,
        path: &str,
        old_str: &str,
        new_str: &str,
        replace_all: bool,
    ) -> Result<StrReplaceResult, CairnError> {
        self.client
            .str_replace(self.id(), path, old_str, new_str, replace_all)
            .await
    }

    pub async fn ls(&self, path: &str) -> Result<FileList, CairnError> {
        self.client.ls(self.id(), path).await
    }

    pub async fn glob(&self, pattern: &str, path: Option<&str>) -> Result<GlobResult, CairnError> {
        self.client.glob(self.id(), pattern, path).await
    }

    pub async fn grep(
        &self,
        pattern: &str,
        options: GrepOptions,
    ) -> Result<GrepResult, CairnError> {
        self.client.grep(self.id(), pattern, options).await
    }
}
