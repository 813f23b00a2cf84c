// NewClientFromEnv: CAIRN_BASE_URL and CAIRN_API_KEY, as every Cairn client reads them, with an
// unset or empty variable meaning the default (the local server, no API key).
package cairn_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

// unsetenv unsets a variable for one test and restores it afterwards.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

// authorizationRecorder answers every request 200 {} and keeps the Authorization header sent.
func authorizationRecorder(authorization *string) cairn.Option {
	return cairn.WithHTTPClient(&http.Client{Transport: roundTripperFunc(func(request *http.Request) (*http.Response, error) {
		*authorization = request.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{}`)), Request: request}, nil
	})})
}

func TestNewClientFromEnvDefaultsToTheLocalServerWithoutAKey(t *testing.T) {
	for _, setEmpty := range []bool{false, true} {
		if setEmpty {
			t.Setenv("CAIRN_BASE_URL", "")
			t.Setenv("CAIRN_API_KEY", "")
		} else {
			unsetenv(t, "CAIRN_BASE_URL")
			unsetenv(t, "CAIRN_API_KEY")
		}
		var authorization string
		client, err := cairn.NewClientFromEnv(authorizationRecorder(&authorization))
		if err != nil {
			t.Fatalf("set to empty: %v: %v", setEmpty, err)
		}
		if _, err := client.Account(context.Background()); err != nil {
			t.Fatal(err)
		}
		if client.BaseURL() != cairn.DefaultBaseURL {
			t.Errorf("set to empty: %v: BaseURL() = %q, want %q", setEmpty, client.BaseURL(), cairn.DefaultBaseURL)
		}
		if authorization != "" {
			t.Errorf("set to empty: %v: sent Authorization %q, want none", setEmpty, authorization)
		}
	}
}

func TestNewClientFromEnvReadsBothVariables(t *testing.T) {
	t.Setenv("CAIRN_BASE_URL", "https://cairn.example.com/")
	t.Setenv("CAIRN_API_KEY", "cairn_fromenv")
	var authorization string
	client, err := cairn.NewClientFromEnv(authorizationRecorder(&authorization))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	if client.BaseURL() != "https://cairn.example.com" {
		t.Errorf("BaseURL() = %q", client.BaseURL())
	}
	if authorization != "Bearer cairn_fromenv" {
		t.Errorf("sent Authorization %q, want the key from CAIRN_API_KEY", authorization)
	}
}

func TestNewClientFromEnvRefusesABaseURLTheRuleRefuses(t *testing.T) {
	t.Setenv("CAIRN_BASE_URL", "http://cairn.example.com")
	if _, err := cairn.NewClientFromEnv(); !errors.Is(err, cairn.ErrInvalidBaseURL) {
		t.Fatalf("NewClientFromEnv accepted plain http to another host: %v", err)
	}
}
