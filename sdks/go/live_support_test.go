// Support for the tests against a live server: CAIRN_TEST_BASE_URL names it, and
// CAIRN_TEST_PLUGINS_BASE_URL a second one with the example plugins loaded (the vitest suite
// test/sdks/go.test.ts starts both and sets them). Without it the live tests skip; the suite runs
// `go test -v` and fails on any skip, so a live test cannot silently not run there.
package cairn_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

type liveAccount struct {
	client      *cairn.Client
	baseURL     string
	email       string
	password    string
	accessToken string
	key         string
}

func randomHex(t *testing.T) string {
	t.Helper()
	bytes := make([]byte, 8)
	if _, err := rand.Read(bytes); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(bytes)
}

func liveContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newLiveAccount signs up a fresh account (so tests never share sandbox caps) with an API key.
func newLiveAccount(t *testing.T) liveAccount {
	t.Helper()
	return newAccountOn(t, "CAIRN_TEST_BASE_URL")
}

// newPluginsAccount is a fresh account on the server with the example plugins.
func newPluginsAccount(t *testing.T) liveAccount {
	t.Helper()
	return newAccountOn(t, "CAIRN_TEST_PLUGINS_BASE_URL")
}

func newAccountOn(t *testing.T, variable string) liveAccount {
	t.Helper()
	baseURL := os.Getenv(variable)
	if baseURL == "" {
		t.Skip(variable + " is not set: no live server")
	}
	ctx := liveContext(t)
	anonymous, err := cairn.NewClient(baseURL, "")
	if err != nil {
		t.Fatal(err)
	}
	account := liveAccount{baseURL: baseURL, email: "go-sdk-" + randomHex(t) + "@example.com", password: "go sdk password 1"}
	token, err := anonymous.Signup(ctx, account.email, account.password)
	if err != nil {
		t.Fatalf("signup: %v", err)
	}
	created, err := anonymous.CreateAPIKey(ctx, token.AccessToken, "go sdk test")
	if err != nil {
		t.Fatalf("create api key: %v", err)
	}
	account.accessToken, account.key = token.AccessToken, created.Key
	account.client, err = cairn.NewClient(baseURL, created.Key)
	if err != nil {
		t.Fatal(err)
	}
	return account
}

func noError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newClient(t *testing.T, baseURL, apiKey string) *cairn.Client {
	t.Helper()
	client, err := cairn.NewClient(baseURL, apiKey)
	noError(t, err)
	return client
}
