//! Options of custom images (CONTRACT §2.10); what the image, volume, secret and MCP connection
//! routes answer is generated: `generated.rs`.

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
