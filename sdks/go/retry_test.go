// Opt-in retry against a tiny local HTTP server that counts attempts: Retry-After in seconds
// and as an HTTP date is honoured, POST is never retried, retry is off unless asked for, and a
// wait longer than MaxDelay is returned instead of slept.
package cairn_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

// flakyServer answers the first `failures` requests 503 with the Retry-After that
// retryAfter gives (empty: none), then 200. It counts attempts, and records for each retry
// whether it came before the moment the previous answer named (the client did not wait).
type flaky struct {
	attempts atomic.Int32
	early    atomic.Int32
}

func flakyServer(t *testing.T, failures int32, retryAfter func() (string, time.Time)) (*httptest.Server, *flaky) {
	t.Helper()
	counts := &flaky{}
	var notBefore atomic.Int64
	server := httptest.NewServer(http.HandlerFunc(func(writer http.ResponseWriter, request *http.Request) {
		if time.Now().UnixNano() < notBefore.Load() {
			counts.early.Add(1)
		}
		writer.Header().Set("Content-Type", "application/json")
		if counts.attempts.Add(1) <= failures {
			if value, until := retryAfter(); value != "" {
				writer.Header().Set("Retry-After", value)
				notBefore.Store(until.UnixNano())
			}
			writer.WriteHeader(http.StatusServiceUnavailable)
			_, _ = writer.Write([]byte(`{"error":{"code":"service_unavailable","message":"busy","retryable":true,"remediation":null}}`))
			return
		}
		_, _ = writer.Write([]byte(`{"id":"a","email":"a@example.com","created_at":"2026-01-01T00:00:00Z"}`))
	}))
	t.Cleanup(server.Close)
	return server, counts
}

func afterSeconds(seconds int) func() (string, time.Time) {
	return func() (string, time.Time) {
		return strconv.Itoa(seconds), time.Now().Add(time.Duration(seconds) * time.Second)
	}
}

func noRetryAfter() (string, time.Time) { return "", time.Time{} }

func newTestClient(t *testing.T, baseURL string, options ...cairn.Option) *cairn.Client {
	t.Helper()
	client, err := cairn.NewClient(baseURL, "cairn_test", options...)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestRetryHonoursRetryAfterSeconds(t *testing.T) {
	server, counts := flakyServer(t, 1, afterSeconds(1))
	client := newTestClient(t, server.URL, cairn.WithRetry(cairn.RetryPolicy{MaxRetries: 2}))
	account, err := client.Account(context.Background())
	if err != nil {
		t.Fatalf("the retry did not recover: %v", err)
	}
	if account.Email != "a@example.com" || counts.attempts.Load() != 2 {
		t.Fatalf("attempts %d, account %+v", counts.attempts.Load(), account)
	}
	if counts.early.Load() != 0 {
		t.Fatal("the retry came before Retry-After allowed")
	}
}

func TestRetryHonoursRetryAfterDate(t *testing.T) {
	server, counts := flakyServer(t, 2, func() (string, time.Time) {
		// HTTP dates have whole seconds: the next whole second at least one second ahead.
		date := time.Now().Add(time.Second).Truncate(time.Second).Add(time.Second)
		return date.UTC().Format(http.TimeFormat), date
	})
	client := newTestClient(t, server.URL, cairn.WithRetry(cairn.RetryPolicy{MaxRetries: 2}))
	if _, err := client.Account(context.Background()); err != nil {
		t.Fatalf("the retry did not recover: %v", err)
	}
	if counts.attempts.Load() != 3 || counts.early.Load() != 0 {
		t.Fatalf("attempts %d (want 3), %d before the date the server named", counts.attempts.Load(), counts.early.Load())
	}
}

func TestRetryGivesUpAfterMaxRetries(t *testing.T) {
	server, counts := flakyServer(t, 10, noRetryAfter)
	policy := cairn.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}
	client := newTestClient(t, server.URL, cairn.WithRetry(policy))
	_, err := client.Account(context.Background())
	var unavailable *cairn.ServiceUnavailableError
	if !errors.As(err, &unavailable) || unavailable.StatusCode != 503 || !unavailable.Retryable {
		t.Fatalf("want the last 503 as *ServiceUnavailableError, got %v", err)
	}
	if counts.attempts.Load() != 3 {
		t.Fatalf("attempts %d, want 1 + 2 retries", counts.attempts.Load())
	}
}

func TestPostIsNeverRetried(t *testing.T) {
	server, counts := flakyServer(t, 1, afterSeconds(1))
	client := newTestClient(t, server.URL, cairn.WithRetry(cairn.RetryPolicy{MaxRetries: 3}))
	_, err := client.Remember(context.Background(), cairn.RememberRequest{Content: "x"})
	var apiError *cairn.APIError
	if !errors.As(err, &apiError) || apiError.StatusCode != 503 {
		t.Fatalf("want the 503, got %v", err)
	}
	if counts.attempts.Load() != 1 {
		t.Fatalf("a POST was sent %d times", counts.attempts.Load())
	}
}

func TestRetryIsOffUnlessAskedFor(t *testing.T) {
	server, counts := flakyServer(t, 1, afterSeconds(1))
	client := newTestClient(t, server.URL)
	if _, err := client.Account(context.Background()); err == nil {
		t.Fatal("a 503 succeeded without retry")
	}
	if counts.attempts.Load() != 1 {
		t.Fatalf("attempts %d without WithRetry", counts.attempts.Load())
	}
}

func TestARetryAfterLongerThanMaxDelayIsReturned(t *testing.T) {
	server, counts := flakyServer(t, 1, afterSeconds(3600))
	client := newTestClient(t, server.URL, cairn.WithRetry(cairn.RetryPolicy{MaxDelay: time.Second}))
	_, err := client.Account(context.Background())
	var apiError *cairn.APIError
	if !errors.As(err, &apiError) || apiError.RetryAfter != time.Hour {
		t.Fatalf("want the 503 carrying its Retry-After, got %v", err)
	}
	if counts.attempts.Load() != 1 {
		t.Fatalf("attempts %d, want 1", counts.attempts.Load())
	}
}

func TestConnectionFailuresAreRetriedThenReported(t *testing.T) {
	var attempts atomic.Int32
	refusing := roundTripperFunc(func(request *http.Request) (*http.Response, error) {
		attempts.Add(1)
		return nil, errors.New("connection refused")
	})
	policy := cairn.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond}
	client := newTestClient(t, "http://127.0.0.1:9", cairn.WithRetry(policy), cairn.WithHTTPClient(&http.Client{Transport: refusing}))
	_, err := client.Account(context.Background())
	var connectionError *cairn.ConnectionError
	if !errors.As(err, &connectionError) || connectionError.Method != "GET" {
		t.Fatalf("want *ConnectionError, got %v", err)
	}
	if attempts.Load() != 3 {
		t.Fatalf("attempts %d, want 1 + 2 retries", attempts.Load())
	}
}
