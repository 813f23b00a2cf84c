//! Options of the memory routes (CONTRACT §2.14), and an export's memories and relations as an
//! import takes them. What the routes answer is generated: `generated.rs`.

use super::{
    ExportedMemory, ExportedRelation, ImportMemory, ImportRelation, JsonObject, MemoryKind,
};

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
            // Not carried over, as before the import type had them: the server stamps new times.
            created_at: None,
            updated_at: None,
            superseded_at: None,
            superseded_by_id: None,
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
