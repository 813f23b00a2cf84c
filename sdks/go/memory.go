// Memory methods. Each sends its defaults explicitly (scope "default", kind "fact", metadata
// {}, importance 0.5; list sends include_superseded, limit and offset), so a server with other
// defaults still stores what this SDK documents.
package cairn

import (
	"context"
	"net/url"
	"strconv"
)

type rememberBody struct {
	Content         string         `json:"content"`
	Scope           string         `json:"scope"`
	Kind            string         `json:"kind"`
	Metadata        map[string]any `json:"metadata"`
	SourceSessionID *string        `json:"source_session_id"`
	Importance      float64        `json:"importance"`
}

type ingestBody struct {
	Content         string         `json:"content"`
	Scope           string         `json:"scope"`
	Kind            string         `json:"kind"`
	Metadata        map[string]any `json:"metadata"`
	SourceSessionID *string        `json:"source_session_id"`
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

func metadataOrEmpty(metadata map[string]any) map[string]any {
	if metadata == nil {
		return map[string]any{}
	}
	return metadata
}

func nullable(value string) *string {
	if value == "" {
		return nil
	}
	return &value
}

// Remember stores one memory (an identical one is updated in place, keeping its id).
func (c *Client) Remember(ctx context.Context, request RememberRequest) (*Memory, error) {
	importance := defaultRememberImportance
	if request.Importance != nil {
		importance = *request.Importance
	}
	body := rememberBody{
		Content:         request.Content,
		Scope:           orDefault(request.Scope, defaultRememberScope),
		Kind:            orDefault(request.Kind, defaultRememberKind),
		Metadata:        metadataOrEmpty(request.Metadata),
		SourceSessionID: nullable(request.SourceSessionID),
		Importance:      importance,
	}
	var result Memory
	return done(&result, c.post(ctx, "/v1/memory", body, &result))
}

// IngestMemory splits a longer text into memories the server classifies.
func (c *Client) IngestMemory(ctx context.Context, request IngestMemoryRequest) (*MemoryBatch, error) {
	body := ingestBody{
		Content:         request.Content,
		Scope:           orDefault(request.Scope, defaultIngestMemoryScope),
		Kind:            orDefault(request.Kind, defaultIngestMemoryKind),
		Metadata:        metadataOrEmpty(request.Metadata),
		SourceSessionID: nullable(request.SourceSessionID),
	}
	var result MemoryBatch
	return done(&result, c.post(ctx, "/v1/memory/ingest", body, &result))
}

func scopeQuery(scope string) url.Values {
	query := url.Values{}
	if scope != "" {
		query.Set("scope", scope)
	}
	return query
}

func positiveOr(value, fallback int) int {
	if value <= 0 {
		return fallback
	}
	return value
}

// Recall searches memories for a query, best first.
func (c *Client) Recall(ctx context.Context, query string, options RecallOptions) (*RecallResult, error) {
	values := scopeQuery(options.Scope)
	values.Set("q", query)
	values.Set("limit", strconv.Itoa(positiveOr(options.Limit, defaultRecallLimit)))
	var result RecallResult
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/memory/search", query: values}, &result))
}

// MemoryProfile summarises what the account knows (empty scope: every scope; limit zero: 20).
func (c *Client) MemoryProfile(ctx context.Context, scope string, limit int) (*MemoryProfile, error) {
	values := scopeQuery(scope)
	values.Set("limit", strconv.Itoa(positiveOr(limit, defaultMemoryProfileLimit)))
	var result MemoryProfile
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/memory/profile", query: values}, &result))
}

// ListMemories pages through memories, most recently updated first.
func (c *Client) ListMemories(ctx context.Context, options ListMemoriesOptions) ([]Memory, error) {
	values := scopeQuery(options.Scope)
	values.Set("include_superseded", strconv.FormatBool(options.IncludeSuperseded))
	values.Set("limit", strconv.Itoa(positiveOr(options.Limit, defaultListMemoriesLimit)))
	values.Set("offset", strconv.Itoa(max(options.Offset, 0)))
	var result []Memory
	if err := c.send(ctx, call{method: "GET", path: "/v1/memory", query: values}, &result); err != nil {
		return nil, err
	}
	return result, nil
}

// GetMemory returns one memory (404 memory_not_found once forgotten or expired).
func (c *Client) GetMemory(ctx context.Context, memoryID string) (*Memory, error) {
	var result Memory
	return done(&result, c.get(ctx, "/v1/memory/"+segment(memoryID), &result))
}

// MemoryRelations lists a memory's links (limit zero: 20).
func (c *Client) MemoryRelations(ctx context.Context, memoryID string, limit int) (*MemoryRelations, error) {
	values := url.Values{"limit": {strconv.Itoa(positiveOr(limit, defaultMemoryRelationsLimit))}}
	var result MemoryRelations
	request := call{method: "GET", path: "/v1/memory/" + segment(memoryID) + "/relations", query: values}
	return done(&result, c.send(ctx, request, &result))
}

// ForgetMemory deletes a memory for good.
func (c *Client) ForgetMemory(ctx context.Context, memoryID string) error {
	return c.delete(ctx, "/v1/memory/"+segment(memoryID))
}

// ExportMemories returns every memory of a scope (empty: all) and their relations, in the
// shape ImportMemories takes. The server answers in pages; it follows NextCursor to the last.
func (c *Client) ExportMemories(ctx context.Context, scope string) (*MemoryExport, error) {
	export := MemoryExport{Memories: []MemoryRecord{}, Relations: []RelationRecord{}}
	for cursor := ""; ; {
		query := scopeQuery(scope)
		if cursor != "" {
			query.Set("cursor", cursor)
		}
		var page MemoryExport
		if err := c.send(ctx, call{method: "GET", path: "/v1/memory/export", query: query}, &page); err != nil {
			return nil, err
		}
		export.Version = page.Version
		export.Memories = append(export.Memories, page.Memories...)
		export.Relations = append(export.Relations, page.Relations...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			return &export, nil
		}
		cursor = *page.NextCursor
	}
}

// ImportMemories writes a batch of memories and their relations (new ids are assigned):
// ImportMemories(ctx, cairn.ImportMemoriesRequest{Memories: export.Memories, Relations: export.Relations}).
func (c *Client) ImportMemories(ctx context.Context, request ImportMemoriesRequest) (*MemoryBatch, error) {
	memories := make([]MemoryRecord, len(request.Memories))
	for index, memory := range request.Memories {
		memory.Scope = orDefault(memory.Scope, defaultRememberScope)
		memory.Kind = orDefault(memory.Kind, defaultRememberKind)
		memory.Metadata = metadataOrEmpty(memory.Metadata)
		if memory.Importance == nil {
			memory.Importance = Ptr(defaultRememberImportance)
		}
		memories[index] = memory
	}
	relations := make([]RelationRecord, len(request.Relations))
	for index, relation := range request.Relations {
		if relation.Confidence == nil {
			relation.Confidence = Ptr(0.5)
		}
		relations[index] = relation
	}
	var result MemoryBatch
	body := ImportMemoriesRequest{Memories: memories, Relations: relations}
	return done(&result, c.post(ctx, "/v1/memory/import", body, &result))
}

// MemoryMetrics counts the memories of a scope (empty: all).
func (c *Client) MemoryMetrics(ctx context.Context, scope string) (*MemoryMetrics, error) {
	var result MemoryMetrics
	request := call{method: "GET", path: "/v1/memory/metrics", query: scopeQuery(scope)}
	return done(&result, c.send(ctx, request, &result))
}
