//! The memory routes. Every call sends its defaults explicitly (scope "default", kind "fact",
//! metadata {}, importance 0.5; list's include_superseded, limit and offset), so a server with
//! other defaults still stores what the SDK documents.

use crate::transport::Call;
use crate::types::{
    defaults, ImportMemory, ImportRelation, IngestOptions, ListMemoriesOptions, Memory,
    MemoryBatch, MemoryExport, MemoryMetrics, MemoryProfile, MemoryRelations, RememberOptions,
    SearchResult,
};
use crate::{CairnError, Client};
use reqwest::Method;
use serde_json::json;

impl Client {
    /// Stores one memory; remembering the same content again updates that memory (same id).
    pub async fn remember(
        &self,
        content: &str,
        options: RememberOptions,
    ) -> Result<Memory, CairnError> {
        let body = json!({
            "content": content,
            "scope": options.scope.as_deref().unwrap_or(defaults::REMEMBER_SCOPE),
            "kind": options.kind.unwrap_or_default(),
            "metadata": options.metadata.unwrap_or_default(),
            "source_session_id": options.source_session_id,
            "importance": options.importance.unwrap_or(defaults::REMEMBER_IMPORTANCE),
        });
        self.transport
            .send(Call::new(Method::POST, &["v1", "memory"]).json(&body))
            .await
    }

    /// Splits a longer text (a transcript, notes) into memories the server classifies, unless
    /// `options.kind` names the kind of them all.
    pub async fn ingest_memory(
        &self,
        content: &str,
        options: IngestOptions,
    ) -> Result<MemoryBatch, CairnError> {
        let body = json!({
            "content": content,
            "scope": options.scope.as_deref().unwrap_or(defaults::INGEST_MEMORY_SCOPE),
            "kind": options.kind.map_or(json!(defaults::INGEST_MEMORY_KIND), |kind| json!(kind)),
            "metadata": options.metadata.unwrap_or_default(),
            "source_session_id": options.source_session_id,
        });
        self.transport
            .send(Call::new(Method::POST, &["v1", "memory", "ingest"]).json(&body))
            .await
    }

    /// The memories that answer `query`, best first; `scope` None searches every scope; `limit`
    /// 1–50 (default 10).
    pub async fn recall(
        &self,
        query: &str,
        scope: Option<&str>,
        limit: Option<u32>,
    ) -> Result<SearchResult, CairnError> {
        let call = Call::new(Method::GET, &["v1", "memory", "search"])
            .query("q", query)
            .query_if("scope", scope)
            .query("limit", limit.unwrap_or(defaults::RECALL_LIMIT));
        self.transport.send(call).await
    }

    /// What the account knows (`static`) and is working on (`dynamic`); `limit` 1–100 (default 20).
    pub async fn memory_profile(
        &self,
        scope: Option<&str>,
        limit: Option<u32>,
    ) -> Result<MemoryProfile, CairnError> {
        let call = Call::new(Method::GET, &["v1", "memory", "profile"])
            .query_if("scope", scope)
            .query("limit", limit.unwrap_or(defaults::MEMORY_PROFILE_LIMIT));
        self.transport.send(call).await
    }

    /// Memories, most recently updated first.
    pub async fn list_memories(
        &self,
        options: ListMemoriesOptions,
    ) -> Result<Vec<Memory>, CairnError> {
        let call = Call::new(Method::GET, &["v1", "memory"])
            .query_if("scope", options.scope.as_deref())
            .query("include_superseded", options.include_superseded)
            .query(
                "limit",
                options.limit.unwrap_or(defaults::LIST_MEMORIES_LIMIT),
            )
            .query(
                "offset",
                options.offset.unwrap_or(defaults::LIST_MEMORIES_OFFSET),
            );
        self.transport.send(call).await
    }

    pub async fn get_memory(&self, memory_id: &str) -> Result<Memory, CairnError> {
        self.transport
            .send(Call::new(Method::GET, &["v1", "memory", memory_id]))
            .await
    }

    /// The memory's outgoing relations, most confident first; `limit` 1–100 (default 20).
    pub async fn memory_relations(
        &self,
        memory_id: &str,
        limit: Option<u32>,
    ) -> Result<MemoryRelations, CairnError> {
        let call = Call::new(Method::GET, &["v1", "memory", memory_id, "relations"])
            .query("limit", limit.unwrap_or(defaults::MEMORY_RELATIONS_LIMIT));
        self.transport.send(call).await
    }

    /// Deletes the memory and its relations for good.
    pub async fn forget_memory(&self, memory_id: &str) -> Result<(), CairnError> {
        self.transport
            .send_empty(Call::new(Method::DELETE, &["v1", "memory", memory_id]))
            .await
    }

    /// Every live memory (superseded ones too) and their relations; imports as it is. The
    /// server answers in pages; this follows `next_cursor` to the last and joins them.
    pub async fn export_memories(&self, scope: Option<&str>) -> Result<MemoryExport, CairnError> {
        let page = |cursor: Option<String>| {
            let call = Call::new(Method::GET, &["v1", "memory", "export"])
                .query_if("scope", scope)
                .query_if("cursor", cursor.as_deref());
            self.transport.send::<MemoryExport>(call)
        };
        let mut export = page(None).await?;
        while let Some(cursor) = export
            .next_cursor
            .take()
            .filter(|cursor| !cursor.is_empty())
        {
            let next = page(Some(cursor)).await?;
            export.memories.extend(next.memories);
            export.relations.extend(next.relations);
            export.next_cursor = next.next_cursor;
        }
        Ok(export)
    }

    /// Imports memories (1–500) and relations between them (by their batch `id`s). An export
    /// converts with `Into`: `export.memories.into_iter().map(Into::into).collect()`.
    pub async fn import_memories(
        &self,
        memories: Vec<ImportMemory>,
        relations: Vec<ImportRelation>,
    ) -> Result<MemoryBatch, CairnError> {
        let body = json!({ "memories": memories, "relations": relations });
        self.transport
            .send(Call::new(Method::POST, &["v1", "memory", "import"]).json(&body))
            .await
    }

    pub async fn memory_metrics(&self, scope: Option<&str>) -> Result<MemoryMetrics, CairnError> {
        let call = Call::new(Method::GET, &["v1", "memory", "metrics"]).query_if("scope", scope);
        self.transport.send(call).await
    }
}
