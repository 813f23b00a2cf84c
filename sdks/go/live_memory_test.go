// Memory against a live server: the defaults the SDK sends, ingest, listing, metrics, recall,
// the profile, relations, export into a second account's import, and forgetting.
package cairn_test

import (
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveMemory(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client

	plain, err := client.Remember(ctx, cairn.RememberRequest{Content: "The Osprey service is written in Go and deployed on Fridays."})
	noError(t, err)
	if plain.Scope != "default" || plain.Kind != "fact" || plain.Importance != 0.5 || plain.Metadata == nil {
		t.Fatalf("remember defaults: %+v", plain)
	}
	chosen, err := client.Remember(ctx, cairn.RememberRequest{
		Content: "Prefer table-driven tests in Go code reviews.", Scope: "reviews", Kind: "preference",
		Metadata: map[string]any{"team": "platform"}, SourceSessionID: "session-1", Importance: cairn.Ptr(0.0),
	})
	noError(t, err)
	if chosen.Scope != "reviews" || chosen.Kind != "preference" || chosen.Importance != 0 ||
		chosen.Metadata["team"] != "platform" || chosen.SourceSessionID == nil || *chosen.SourceSessionID != "session-1" {
		t.Fatalf("remember with every field: %+v", chosen)
	}
	ingested, err := client.IngestMemory(ctx, cairn.IngestMemoryRequest{Content: "We decided to keep the Osprey cache for 10 minutes. I prefer short cache lifetimes.", Scope: "reviews"})
	noError(t, err)
	if len(ingested.Memories) == 0 {
		t.Fatalf("ingest wrote nothing: %+v", ingested)
	}

	listed, err := client.ListMemories(ctx, cairn.ListMemoriesOptions{Scope: "default"})
	noError(t, err)
	if len(listed) != 1 || listed[0].ID != plain.ID {
		t.Fatalf("list of scope default: %+v", listed)
	}
	metrics, err := client.MemoryMetrics(ctx, "")
	noError(t, err)
	if metrics.TotalMemories != 2+len(ingested.Memories) {
		t.Fatalf("metrics: %+v", metrics)
	}
	recalled, err := client.Recall(ctx, "Which day is Osprey deployed?", cairn.RecallOptions{Scope: "default", Limit: 3})
	noError(t, err)
	if len(recalled.Memories) == 0 || recalled.Memories[0].ID != plain.ID || recalled.Query == "" {
		t.Fatalf("recall: %+v", recalled)
	}
	profile, err := client.MemoryProfile(ctx, "reviews", 0)
	noError(t, err)
	if len(profile.Static) == 0 {
		t.Fatalf("profile of reviews: %+v", profile)
	}
	relations, err := client.MemoryRelations(ctx, plain.ID, 0)
	noError(t, err)
	if relations.MemoryID != plain.ID || relations.Relations == nil {
		t.Fatalf("relations: %+v", relations)
	}

	exported, err := client.ExportMemories(ctx, "reviews")
	noError(t, err)
	if len(exported.Memories) != 1+len(ingested.Memories) {
		t.Fatalf("export of reviews: %+v", exported)
	}
	other := newLiveAccount(t)
	imported, err := other.client.ImportMemories(ctx, cairn.ImportMemoriesRequest{Memories: exported.Memories, Relations: exported.Relations})
	noError(t, err)
	if len(imported.Memories) != len(exported.Memories) || imported.Memories[0].ID == exported.Memories[0].ID {
		t.Fatalf("import: %+v", imported)
	}

	noError(t, client.ForgetMemory(ctx, plain.ID))
	_, err = client.GetMemory(ctx, plain.ID)
	asAPIError(t, err, 404, "memory_not_found")
}
