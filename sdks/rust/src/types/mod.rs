//! The request options and response models, by area. The response models are generated from the
//! server's operation registry (`generated.rs`, by `npm run contract`); they keep every documented
//! field (nullable ones as `Option`) and ignore fields they do not know, so a newer server still decodes.
//! Closed vocabularies the caller sends (sizes, memory kinds, relation types) are enums; states
//! only the server reports (`status`, `ended_reason`) are strings.

mod account;
mod files;
mod generated;
mod memory;
mod processes;
mod resources;
mod sandboxes;
mod tools;

pub use account::*;
pub use files::*;
pub use generated::*;
pub use memory::*;
pub use processes::*;
pub use resources::*;
pub use sandboxes::*;
pub use tools::*;

/// A JSON object (memory metadata, LSP completion items).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
