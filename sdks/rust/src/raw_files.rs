//! A file's exact bytes in and out of a sandbox: the raw routes (`PUT`/`GET
//! /v1/sandboxes/{id}/files/raw`, up to 100 MiB up) and base64 on `file_create`/`view` (up to
//! 10 MiB). Bytes are `Vec<u8>` / `&[u8]`; a text view of a file that is not UTF-8 is refused by
//! the server (`file_not_utf8`), so [`Client::view_bytes`] is how to read one through the JSON
//! routes.

use crate::transport::Call;
use crate::types::{FileView, FileWritten};
use crate::{CairnError, Client, SandboxSession};
use reqwest::Method;
use serde_json::json;
use std::time::Duration;

/// The raw routes' timeout, for the whole transfer (100 MiB on a slow link).
const RAW_TRANSFER_TIMEOUT: Duration = Duration::from_secs(600);

impl Client {
    /// Writes `data` to a file through the raw route, exactly (at most 100 MiB; more is 413
    /// `payload_too_large` and leaves nothing behind). Parent directories are created.
    pub async fn upload_file(
        &self,
        session_id: &str,
        path: &str,
        data: impl Into<Vec<u8>>,
    ) -> Result<FileWritten, CairnError> {
        let call = Call::new(
            Method::PUT,
            &["v1", "sandboxes", session_id, "files", "raw"],
        )
        .query("path", path)
        .timeout(self.transport.timeout.max(RAW_TRANSFER_TIMEOUT))
        .raw(Some(data.into()));
        self.transport.send(call).await
    }

    /// A file's exact bytes through the raw route.
    pub async fn download_file(&self, session_id: &str, path: &str) -> Result<Vec<u8>, CairnError> {
        let call = Call::new(
            Method::GET,
            &["v1", "sandboxes", session_id, "files", "raw"],
        )
        .query("path", path)
        .timeout(self.transport.timeout.max(RAW_TRANSFER_TIMEOUT))
        .raw(None);
        self.transport.send_bytes(call).await
    }

    /// Creates or overwrites a file with exactly these bytes (sent base64, at most 10 MiB).
    pub async fn file_create_bytes(
        &self,
        session_id: &str,
        path: &str,
        content: &[u8],
    ) -> Result<FileWritten, CairnError> {
        let body = json!({ "path": path, "content": encode(content), "encoding": "base64" });
        let call = Call::new(Method::POST, &["v1", "sandboxes", session_id, "files"]);
        self.transport.send(call.json(&body)).await
    }

    /// A file's exact bytes through `view` with `encoding: "base64"` (at most 25 MiB).
    pub async fn view_bytes(&self, session_id: &str, path: &str) -> Result<Vec<u8>, CairnError> {
        let body = json!({ "path": path, "encoding": "base64" });
        let call = Call::new(
            Method::POST,
            &["v1", "sandboxes", session_id, "files", "view"],
        );
        let view: FileView = self.transport.send(call.json(&body)).await?;
        decode(&view.content).ok_or_else(|| CairnError::Decode {
            message: "view: the answer's content is not base64".to_string(),
            source: None,
        })
    }
}

impl SandboxSession {
    pub async fn upload_file(
        &self,
        path: &str,
        data: impl Into<Vec<u8>>,
    ) -> Result<FileWritten, CairnError> {
        self.client.upload_file(self.id(), path, data).await
    }

    pub async fn download_file(&self, path: &str) -> Result<Vec<u8>, CairnError> {
        self.client.download_file(self.id(), path).await
    }

    pub async fn file_create_bytes(
        &self,
        path: &str,
        content: &[u8],
    ) -> Result<FileWritten, CairnError> {
        self.client
            .file_create_bytes(self.id(), path, content)
            .await
    }

    pub async fn view_bytes(&self, path: &str) -> Result<Vec<u8>, CairnError> {
        self.client.view_bytes(self.id(), path).await
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (no dependency for the two calls that need it).
fn encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let value = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for index in 0..4 {
            if index <= chunk.len() {
                text.push(ALPHABET[(value >> (18 - 6 * index) & 63) as usize] as char);
            } else {
                text.push('=');
            }
        }
    }
    text
}

/// Decodes standard base64 (padding optional); None for anything else.
fn decode(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=').as_bytes();
    let mut bytes = Vec::with_capacity(digits.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for &digit in digits {
        let value = ALPHABET.iter().position(|&candidate| candidate == digit)? as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((buffer >> bits) as u8);
        }
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn base64_round_trips_every_length() {
        let bytes: Vec<u8> = (0..=255).collect();
        for length in 0..bytes.len() {
            assert_eq!(decode(&encode(&bytes[..length])).unwrap(), &bytes[..length]);
        }
        assert_eq!(encode(b"hi"), "aGk=");
        assert_eq!(decode("aGk").unwrap(), b"hi");
        assert!(decode("a$").is_none());
    }
}
