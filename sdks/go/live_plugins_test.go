// A plugin's tools through ListTools and CallTool, against the live server that loads the example
// plugins (examples/plugins: todo and session-journal).
package cairn_test

import (
	"errors"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

type task struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Done bool   `json:"done"`
}

func TestLivePluginToolsByName(t *testing.T) {
	account := newPluginsAccount(t)
	ctx := liveContext(t)
	client := account.client

	listing, err := client.ListTools(ctx)
	noError(t, err)
	plugins := map[string]string{}
	for _, tool := range listing.Tools {
		if tool.Plugin != nil {
			plugins[tool.Name] = *tool.Plugin
		}
	}
	if plugins["todo.add"] != "todo" || plugins["session-journal.recent"] != "session-journal" {
		t.Fatalf("plugin tools as listed: %v", plugins)
	}

	var added task
	noError(t, client.CallTool(ctx, "todo.add", map[string]string{"text": "Tag the Go release"}, &added))
	if added.Text != "Tag the Go release" || added.Done {
		t.Fatalf("todo.add: %+v", added)
	}
	var listed struct {
		Tasks []task `json:"tasks"`
	}
	noError(t, client.CallTool(ctx, "todo.list", nil, &listed))
	if len(listed.Tasks) != 1 || listed.Tasks[0].ID != added.ID {
		t.Fatalf("todo.list: %+v", listed)
	}
	var finished task
	noError(t, client.CallTool(ctx, "todo.done", map[string]string{"id": added.ID}, &finished))
	if !finished.Done {
		t.Fatalf("todo.done: %+v", finished)
	}
	err = client.CallTool(ctx, "todo.done", map[string]string{"id": "t-none"}, nil)
	var apiError *cairn.APIError
	if !errors.As(err, &apiError) || apiError.StatusCode != 404 || apiError.Code != "not_found" {
		t.Fatalf("todo.done of an unknown task: %v", err)
	}
	var recent struct {
		Sessions []map[string]any `json:"sessions"`
	}
	noError(t, client.CallTool(ctx, "session-journal.recent", map[string]int{"limit": 5}, &recent))
	if recent.Sessions == nil || len(recent.Sessions) != 0 {
		t.Fatalf("session-journal.recent of a new account: %+v", recent)
	}
}
