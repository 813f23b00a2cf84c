// The base-URL rule against the shared table every SDK runs (test/conformance/base-urls.json).
package cairn_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

type baseURLTable struct {
	Accepted []struct {
		URL        string `json:"url"`
		Normalized string `json:"normalized"`
	} `json:"accepted"`
	Refused []string `json:"refused"`
}

func readBaseURLTable(t *testing.T) baseURLTable {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "test", "conformance", "base-urls.json"))
	if err != nil {
		t.Fatalf("reading the shared table: %v", err)
	}
	var table baseURLTable
	if err := json.Unmarshal(text, &table); err != nil {
		t.Fatalf("decoding the shared table: %v", err)
	}
	if len(table.Accepted) == 0 || len(table.Refused) == 0 {
		t.Fatal("the shared table is empty")
	}
	return table
}

func TestBaseURLRuleAcceptsAndNormalizes(t *testing.T) {
	for _, row := range readBaseURLTable(t).Accepted {
		client, err := cairn.NewClient(row.URL, "")
		if err != nil {
			t.Errorf("NewClient(%q) refused it: %v", row.URL, err)
			continue
		}
		if client.BaseURL() != row.Normalized {
			t.Errorf("NewClient(%q).BaseURL() = %q, want %q", row.URL, client.BaseURL(), row.Normalized)
		}
	}
}

func TestBaseURLRuleRefuses(t *testing.T) {
	for _, text := range readBaseURLTable(t).Refused {
		client, err := cairn.NewClient(text, "")
		if err == nil {
			t.Errorf("NewClient(%q) accepted it as %q", text, client.BaseURL())
			continue
		}
		if !errors.Is(err, cairn.ErrInvalidBaseURL) {
			t.Errorf("NewClient(%q) error %v does not wrap ErrInvalidBaseURL", text, err)
		}
	}
}
