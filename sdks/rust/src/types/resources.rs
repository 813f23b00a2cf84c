//! Custom images, volumes, secrets and MCP connections (CONTRACT §2.10–2.13).

use serde::{Deserialize, Serialize};

/// A declarative image: one base and exact-pinned packages (`name==version`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CreateImageOptions {
    pub label: Option<String>,
    /// One of the operator's bases (default "default").
    pub base: Option<String>,
    pub python_packages: Vec<String>,
    pub apt_packages: Vec<String>,
    pub npm_packages: Vec<String>,
}

/// The answer to a build request, or a volume creation: the build or provisioning goes on after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Queued {
    pub id: String,
    pub label: Option<String>,
    /// "queued" (or "completed" for an image built from the same spec within 24 h).
    pub status: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub id: String,
    pub label: Option<String>,
    pub base: String,
    pub python_packages: Vec<String>,
    pub apt_packages: Vec<String>,
    pub npm_packages: Vec<String>,
    /// "queued", "building", "completed" or "failed".
    pub status: String,
    pub digest: Option<String>,
    pub registry_ref: Option<String>,
    pub failure_reason: Option<String>,
    pub build_log_tail: Option<String>,
    pub created_at: String,
    pub completed_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Volume {
    pub id: String,
    pub label: Option<String>,
    pub size_gb: f64,
    /// "queued", "creating", "ready", "failed" or "deleting".
    pub status: String,
    pub pvc_name: Option<String>,
    pub used_bytes: Option<u64>,
    pub failure_reason: Option<String>,
    pub created_at: String,
}

/// A secret's description; its value is never returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Secret {
    pub id: String,
    pub name: String,
    pub allowed_hosts: Vec<String>,
    pub created_at: String,
    pub last_used_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpConnection {
    pub id: String,
    pub label: String,
    pub catalog_id: String,
    pub host: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
}
