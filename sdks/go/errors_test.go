// Error parsing without a server: the envelope's fields, the defaults when the body has none,
// the families, and Retry-After in both its forms.
package cairn_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestParseAPIErrorReadsTheEnvelope(t *testing.T) {
	header := http.Header{"X-Request-Id": {"abc"}, "Retry-After": {"7"}}
	body := []byte(`{"error":{"code":"rate_limited","message":"Slow down","retryable":true,"remediation":"Wait","details":{"bucket":"sandbox_ops","limit":120}}}`)
	apiError := cairn.ParseAPIError(429, header, body)
	if apiError.Code != "rate_limited" || apiError.Message != "Slow down" || !apiError.Retryable {
		t.Fatalf("fields not read: %+v", apiError)
	}
	if apiError.Remediation != "Wait" || apiError.RequestID != "abc" || apiError.RetryAfter != 7*time.Second {
		t.Fatalf("remediation, request id or Retry-After not read: %+v", apiError)
	}
	if details, ok := apiError.Details.(map[string]any); !ok || details["bucket"] != "sandbox_ops" {
		t.Fatalf("details not decoded: %#v", apiError.Details)
	}
	if apiError.Taxonomy != cairn.TaxonomyNone {
		t.Fatalf("rate_limited has no family, got %q", apiError.Taxonomy)
	}
}

func TestParseAPIErrorDefaults(t *testing.T) {
	cases := []struct {
		status    int
		body      string
		retryable bool
	}{
		{502, `<html>Bad gateway</html>`, true},
		{503, `{"error":{}}`, true},
		{404, ``, false},
		{400, `{"detail":"not the envelope"}`, false},
	}
	for _, c := range cases {
		apiError := cairn.ParseAPIError(c.status, http.Header{}, []byte(c.body))
		if apiError.Code != "error" {
			t.Errorf("%d %s: code %q, want \"error\"", c.status, c.body, apiError.Code)
		}
		if want := "HTTP " + strconv.Itoa(c.status); apiError.Message != want {
			t.Errorf("%d %s: message %q, want %q", c.status, c.body, apiError.Message, want)
		}
		if apiError.Retryable != c.retryable {
			t.Errorf("%d %s: retryable %v, want %v", c.status, c.body, apiError.Retryable, c.retryable)
		}
	}
}

func TestAnExplicitRetryableWins(t *testing.T) {
	apiError := cairn.ParseAPIError(500, http.Header{}, []byte(`{"error":{"code":"internal_error","message":"x","retryable":false}}`))
	if apiError.Retryable {
		t.Fatal("an explicit retryable false on a 500 was overridden")
	}
}

func TestTaxonomyFamilies(t *testing.T) {
	cases := map[string]cairn.Taxonomy{
		"concurrent_sandbox_limit_reached": cairn.TaxonomyQuotaExceeded,
		"global_build_capacity_reached":    cairn.TaxonomyQuotaExceeded,
		"command_not_allowed":              cairn.TaxonomyCapabilityDenied,
		"path_outside_sandbox":             cairn.TaxonomyCapabilityDenied,
		"egress_denied":                    cairn.TaxonomyEgressDenied,
		"sandbox_not_ready":                cairn.TaxonomySandboxNotReady,
		"service_unavailable":              cairn.TaxonomyServiceUnavailable,
		"not_found":                        cairn.TaxonomyNone,
	}
	for code, want := range cases {
		if got := cairn.TaxonomyOf(code, 400); got != want {
			t.Errorf("TaxonomyOf(%q) = %q, want %q", code, got, want)
		}
	}
	if got := cairn.TaxonomyOf("sandbox_operation_failed", 502); got != cairn.TaxonomyServiceUnavailable {
		t.Errorf("a 5xx falls back to service_unavailable, got %q", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if wait, ok := cairn.ParseRetryAfter("12", now); !ok || wait != 12*time.Second {
		t.Errorf("seconds: %v %v", wait, ok)
	}
	date := now.Add(90 * time.Second).Format(http.TimeFormat)
	if wait, ok := cairn.ParseRetryAfter(date, now); !ok || wait != 90*time.Second {
		t.Errorf("HTTP date: %v %v", wait, ok)
	}
	if wait, ok := cairn.ParseRetryAfter(now.Add(-time.Hour).Format(http.TimeFormat), now); !ok || wait != 0 {
		t.Errorf("a past date waits nothing: %v %v", wait, ok)
	}
	for _, text := range []string{"", "soon", "-3"} {
		if _, ok := cairn.ParseRetryAfter(text, now); ok {
			t.Errorf("%q parsed", text)
		}
	}
}

func TestFamiliesAreFoundWithErrorsAs(t *testing.T) {
	apiError := cairn.ParseAPIError(429, http.Header{}, []byte(`{"error":{"code":"volume_limit_reached","message":"x"}}`))
	err := error(&cairn.QuotaExceededError{APIError: apiError})
	var quota *cairn.QuotaExceededError
	var plain *cairn.APIError
	if !errors.As(err, &quota) || !errors.As(err, &plain) || plain.Code != "volume_limit_reached" {
		t.Fatal("a wrapper is not found, or does not unwrap to its *APIError")
	}
}

// A proxy's page in front of the server: the client still returns a typed error with the
// defaults, in the family its status puts it in.
func TestAnswersWithoutTheEnvelopeBecomeTypedErrors(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(writer http.ResponseWriter, request *http.Request) {
		if request.URL.Path == "/v1/account" {
			writer.Header().Set("Content-Type", "text/html")
			writer.WriteHeader(http.StatusBadGateway)
			_, _ = writer.Write([]byte("<html><body>Bad gateway</body></html>"))
			return
		}
		writer.WriteHeader(http.StatusNotFound)
	}))
	defer server.Close()
	client := newTestClient(t, server.URL)

	_, err := client.Account(context.Background())
	var unavailable *cairn.ServiceUnavailableError
	if !errors.As(err, &unavailable) {
		t.Fatalf("a 502 page: want *ServiceUnavailableError, got %v", err)
	}
	if unavailable.Code != "error" || unavailable.Message != "HTTP 502" || !unavailable.Retryable || unavailable.Taxonomy != cairn.TaxonomyServiceUnavailable {
		t.Fatalf("a 502 page: %+v", unavailable.APIError)
	}

	_, err = client.GetMemory(context.Background(), "x")
	var apiError *cairn.APIError
	if !errors.As(err, &apiError) || errors.As(err, &unavailable) {
		t.Fatalf("an empty 404: want a plain *APIError, got %v", err)
	}
	if apiError.Code != "error" || apiError.Message != "HTTP 404" || apiError.Retryable {
		t.Fatalf("an empty 404: %+v", apiError)
	}
}
