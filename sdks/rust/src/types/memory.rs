//! Memories, their relations, export and import (CONTRACT §2.14).

use super::JsonObject;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    #[default]
    Fact,
    Preference,
    Goal,
    Instruction,
    Note,
    Summary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelationType {
    Updates,
    Extends,
    Related,
    Derives,
}

/// Options of `remember`; the SDK sends every default explicitly (scope "default", kind fact,
/// metadata {}, importance 0.5).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RememberOptions {
    pub scope: Option<String>,
    pub kind: Option<MemoryKind>,
    pub metadata: Option<JsonObject>,
    pub source_session_id: Option<String>,
    /// 0.0–1.0.
    pub importance: Option<f64>,
}

/// Options of `ingest_memory`; sent explicitly (scope "default", kind "auto", metadata {}).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IngestOptions {
    pub scope: Option<String>,
    /// The kind of every memory extracted; None sends "auto" (the server detects each one's).
    pub kind: Option<MemoryKind>,
    pub metadata: Option<JsonObject>,
    pub source_session_id: Option<String>,
}

/// Options of `list_memories`; sent explicitly (include_superseded false, limit 50, offset 0).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListMemoriesOptions {
    /// None lists every scope.
    pub scope: Option<String>,
    pub include_superseded: bool,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: String,
    pub scope: String,
    pub kind: MemoryKind,
    pub content: String,
    #[serde(default)]
    pub metadata: JsonObject,
    pub source_session_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub expires_at: Option<String>,
    pub source_content: Option<String>,
    pub document_date: Option<String>,
    #[serde(default)]
    pub event_dates: Vec<String>,
    pub importance: f64,
    pub access_count: u64,
    pub last_accessed_at: Option<String>,
    pub superseded_at: Option<String>,
    pub superseded_by_id: Option<String>,
}

/// The memories made from one ingested text (or one import), in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryBatch {
    pub source_session_id: Option<String>,
    pub memories: Vec<Memory>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub memory: Memory,
    /// In [0, 1), higher is more relevant.
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    pub query: String,
    pub memories: Vec<SearchHit>,
    /// Present when search fell back (embeddings unavailable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
}

/// Durable knowledge (`static`: facts, preferences, instructions) and current work (`dynamic`:
/// goals, notes, summaries).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryProfile {
    #[serde(rename = "static")]
    pub static_memories: Vec<Memory>,
    #[serde(rename = "dynamic")]
    pub dynamic_memories: Vec<Memory>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRelation {
    pub source_memory_id: String,
    pub target_memory_id: String,
    pub relation_type: RelationType,
    pub confidence: f64,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRelations {
    pub memory_id: String,
    pub relations: Vec<MemoryRelation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryMetrics {
    pub total_memories: u64,
    pub by_kind: BTreeMap<String, u64>,
    pub embedded_memories: u64,
    pub embedding_coverage: f64,
    pub embedding_model_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedMemory {
    pub id: String,
    pub scope: String,
    pub kind: MemoryKind,
    pub content: String,
    #[serde(default)]
    pub metadata: JsonObject,
    pub source_session_id: Option<String>,
    pub source_content: Option<String>,
    pub document_date: Option<String>,
    #[serde(default)]
    pub event_dates: Vec<String>,
    pub importance: f64,
    pub created_at: String,
    pub updated_at: String,
    pub expires_at: Option<String>,
    pub superseded_at: Option<String>,
    pub superseded_by_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedRelation {
    pub source_memory_id: String,
    pub target_memory_id: String,
    pub relation_type: RelationType,
    pub confidence: f64,
}

/// Everything an account (or a scope) remembers; it imports as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryExport {
    /// The export format's version.
    pub version: u32,
    pub memories: Vec<ExportedMemory>,
    pub relations: Vec<ExportedRelation>,
}

/// A memory to import. `id` only links relations inside the batch; the server assigns new ids.
/// Fields left `None` take the server's defaults.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ImportMemory {
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MemoryKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_dates: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
}

/// A relation between two memories of an import batch, by their batch `id`s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportRelation {
    pub source_memory_id: String,
    pub target_memory_id: String,
    pub relation_type: RelationType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

impl From<ExportedMemory> for ImportMemory {
    fn from(memory: ExportedMemory) -> Self {
        Self {
            content: memory.content,
            id: Some(memory.id),
            scope: Some(memory.scope),
            kind: Some(memory.kind),
            metadata: Some(memory.metadata),
            source_session_id: memory.source_session_id,
            expires_at: memory.expires_at,
            source_content: memory.source_content,
            document_date: memory.document_date,
            event_dates: Some(memory.event_dates),
            importance: Some(memory.importance),
        }
    }
}

impl From<ExportedRelation> for ImportRelation {
    fn from(relation: ExportedRelation) -> Self {
        Self {
            source_memory_id: relation.source_memory_id,
            target_memory_id: relation.target_memory_id,
            relation_type: relation.relation_type,
            confidence: Some(relation.confidence),
        }
    }
}
