// Tools by name against a live server: the listing, built-in tools called through CallTool, the
// idempotency key, and refusals returned as the SDK's errors.
package cairn_test

import (
	"errors"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveListTools(t *testing.T) {
	account := newLiveAccount(t)
	listing, err := account.client.ListTools(liveContext(t))
	noError(t, err)
	var recall *cairn.Tool
	for index := range listing.Tools {
		if listing.Tools[index].Name == "recall" {
			recall = &listing.Tools[index]
		}
	}
	if recall == nil {
		t.Fatalf("recall is not listed: %+v", listing.Tools)
	}
	properties, _ := recall.InputSchema["properties"].(map[string]any)
	if recall.Plugin != nil || !recall.Annotations.ReadOnly || properties["q"] == nil {
		t.Fatalf("recall as listed: %+v", recall)
	}
}

func TestLiveCallToolRemembersThenRecalls(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	var stored cairn.Memory
	noError(t, account.client.CallTool(ctx, "remember", map[string]any{"content": "The Go SDK calls tools by name."}, &stored))
	var found cairn.RecallResult
	noError(t, account.client.CallTool(ctx, "recall", map[string]any{"q": "tools by name", "limit": 3}, &found))
	if len(found.Memories) != 1 || found.Memories[0].ID != stored.ID {
		t.Fatalf("recall through CallTool: %+v", found)
	}
	var forgotten map[string]any
	noError(t, account.client.CallTool(ctx, "forget_memory", map[string]string{"memory_id": stored.ID}, &forgotten))
	if len(forgotten) != 0 {
		t.Fatalf("a 204 route answers {} through the tool route, not %+v", forgotten)
	}
}

func TestLiveCallToolIdempotencyKey(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	key := cairn.WithIdempotencyKey("go-" + randomHex(t))
	var first, again cairn.Memory
	noError(t, account.client.CallTool(ctx, "remember", map[string]any{"content": "Replayed once."}, &first, key))
	noError(t, account.client.CallTool(ctx, "remember", map[string]any{"content": "Replayed once."}, &again, key))
	if again.ID != first.ID || again.UpdatedAt != first.UpdatedAt {
		t.Fatalf("the repeat was not replayed: %+v then %+v", first, again)
	}
	err := account.client.CallTool(ctx, "remember", map[string]any{"content": "Another body."}, nil, key)
	var apiError *cairn.APIError
	if !errors.As(err, &apiError) || apiError.StatusCode != 422 || apiError.Code != "idempotency_key_reuse" {
		t.Fatalf("another body under the same key: %v", err)
	}
}

func TestLiveCallToolErrors(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	var apiError *cairn.APIError
	err := account.client.CallTool(ctx, "no_such_tool", nil, nil)
	if !errors.As(err, &apiError) || apiError.StatusCode != 404 || apiError.Code != "not_found" {
		t.Fatalf("an unknown tool: %v", err)
	}
	err = account.client.CallTool(ctx, "recall", map[string]any{"q": ""}, nil)
	if !errors.As(err, &apiError) || apiError.StatusCode != 422 || apiError.Code != "validation_error" {
		t.Fatalf("an invalid input: %v", err)
	}
}
