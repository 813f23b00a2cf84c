// ExportMemories follows NextCursor: a server answers an export in pages (at most 10,000
// memories and about 4 MiB each), and the client returns every page as one export, so an
// account larger than a page loses nothing. Against a local server answering two pages.
package cairn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
)

func TestExportMemoriesReturnsEveryPage(t *testing.T) {
	var mutex sync.Mutex
	var seen []string
	server := httptest.NewServer(http.HandlerFunc(func(writer http.ResponseWriter, request *http.Request) {
		mutex.Lock()
		seen = append(seen, request.URL.RequestURI())
		mutex.Unlock()
		writer.Header().Set("Content-Type", "application/json")
		if request.URL.Query().Get("cursor") == "" {
			_, _ = writer.Write([]byte(`{"version":1,"memories":[{"id":"a","content":"A"},{"id":"b","content":"B"}],"relations":[],"next_cursor":"cursor-1"}`))
			return
		}
		_, _ = writer.Write([]byte(`{"version":1,"memories":[{"id":"c","content":"C"}],"relations":[{"source_memory_id":"b","target_memory_id":"c","relation_type":"related","confidence":0.5}],"next_cursor":null}`))
	}))
	t.Cleanup(server.Close)
	client := newTestClient(t, server.URL)
	export, err := client.ExportMemories(context.Background(), "work")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, memory := range export.Memories {
		ids = append(ids, memory.ID)
	}
	if !reflect.DeepEqual(ids, []string{"a", "b", "c"}) || len(export.Relations) != 1 || export.NextCursor != nil {
		t.Fatalf("export %+v", export)
	}
	if want := []string{"/v1/memory/export?scope=work", "/v1/memory/export?cursor=cursor-1&scope=work"}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("requests %v, want %v", seen, want)
	}
}
