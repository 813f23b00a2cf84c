// What the memory routes take. MemoryRecord and RelationRecord are both what an export returns
// and what an import takes, so an export imports as it is; what the routes answer otherwise is in
// types_generated.go.
package cairn

// RememberRequest is one memory to store. Zero fields take the documented defaults, sent
// explicitly: scope "default", kind "fact", metadata {}, importance 0.5.
type RememberRequest struct {
	Content string
	Scope   string
	// Kind is fact, preference, goal, instruction, note or summary.
	Kind            string
	Metadata        map[string]any
	SourceSessionID string
	// Importance is 0–1 (nil: 0.5); cairn.Ptr(0.8) makes one.
	Importance *float64
}

// IngestMemoryRequest is a longer text (a transcript, notes) the server splits into memories.
type IngestMemoryRequest struct {
	Content string
	Scope   string
	// Kind of every memory extracted (empty: "auto", detected per memory).
	Kind            string
	Metadata        map[string]any
	SourceSessionID string
}

// RecallOptions narrows a recall; an empty Scope searches every scope, Limit zero is 10.
type RecallOptions struct {
	Scope string
	Limit int
}

// ListMemoriesOptions pages through memories, newest update first (Limit zero is 50).
type ListMemoriesOptions struct {
	Scope             string
	IncludeSuperseded bool
	Limit             int
	Offset            int
}

// MemoryRecord is a memory as exported, and as imported. On import, ID only links relations
// and SupersededByID inside the batch (the server assigns new ids); zero fields take the
// remember defaults.
type MemoryRecord struct {
	ID              string         `json:"id,omitempty"`
	Scope           string         `json:"scope,omitempty"`
	Kind            string         `json:"kind,omitempty"`
	Content         string         `json:"content"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	SourceSessionID *string        `json:"source_session_id,omitempty"`
	SourceContent   *string        `json:"source_content,omitempty"`
	DocumentDate    *string        `json:"document_date,omitempty"`
	EventDates      []string       `json:"event_dates,omitempty"`
	Importance      *float64       `json:"importance,omitempty"`
	CreatedAt       *string        `json:"created_at,omitempty"`
	UpdatedAt       *string        `json:"updated_at,omitempty"`
	ExpiresAt       *string        `json:"expires_at,omitempty"`
	SupersededAt    *string        `json:"superseded_at,omitempty"`
	SupersededByID  *string        `json:"superseded_by_id,omitempty"`
}

// RelationRecord is a relation as exported and imported, between batch ids.
type RelationRecord struct {
	SourceMemoryID string   `json:"source_memory_id"`
	TargetMemoryID string   `json:"target_memory_id"`
	RelationType   string   `json:"relation_type"`
	Confidence     *float64 `json:"confidence,omitempty"`
}

// ImportMemoriesRequest is 1–500 memories and up to 2000 relations between them.
type ImportMemoriesRequest struct {
	Memories  []MemoryRecord   `json:"memories"`
	Relations []RelationRecord `json:"relations"`
}

// Ptr returns a pointer to value, for optional fields such as RememberRequest.Importance.
func Ptr[T any](value T) *T { return &value }
