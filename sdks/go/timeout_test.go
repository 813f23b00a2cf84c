// Per-request timeouts: the client's (WithTimeout) bounds ordinary calls, while Exec and
// HTTPRequest (and CallTool given an input with a sandbox-side timeout) wait their sandbox-side
// timeout plus 15 s, so the server's own timed_out answer arrives before the client gives up.
package cairn_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (function roundTripperFunc) RoundTrip(request *http.Request) (*http.Response, error) {
	return function(request)
}

// deadlineRecorder answers every request 200 with body and records how long each request's
// context had left when it was sent.
func deadlineRecorder(body string, remaining *time.Duration) *http.Client {
	return &http.Client{Transport: roundTripperFunc(func(request *http.Request) (*http.Response, error) {
		deadline, ok := request.Context().Deadline()
		if ok {
			*remaining = time.Until(deadline)
		}
		return &http.Response{
			StatusCode: 200,
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       io.NopCloser(strings.NewReader(body)),
			Request:    request,
		}, nil
	})}
}

// within says remaining is at most want and not more than a second short of it (the time the
// call took to reach the transport).
func within(remaining, want time.Duration) bool {
	return remaining <= want && remaining > want-time.Second
}

func TestExecWaitsItsTimeoutPlusFifteenSeconds(t *testing.T) {
	var remaining time.Duration
	client := newTestClient(t, "http://localhost:8090",
		cairn.WithTimeout(2*time.Second),
		cairn.WithHTTPClient(deadlineRecorder(`{"exit_code":0}`, &remaining)))
	cases := []struct {
		timeout int
		want    time.Duration
	}{{1, 16 * time.Second}, {0, 45 * time.Second}, {100, 115 * time.Second}}
	for _, c := range cases {
		if _, err := client.Exec(context.Background(), "s", cairn.ExecRequest{Command: "true", Timeout: c.timeout}); err != nil {
			t.Fatal(err)
		}
		if !within(remaining, c.want) {
			t.Errorf("exec timeout %d: the HTTP deadline was %v away, want %v", c.timeout, remaining, c.want)
		}
	}
	if _, err := client.HTTPRequest(context.Background(), "s", cairn.SandboxHTTPRequest{URL: "https://example.com"}); err != nil {
		t.Fatal(err)
	}
	if !within(remaining, 30*time.Second) {
		t.Errorf("http_request's default 15 s: the HTTP deadline was %v away, want 30 s", remaining)
	}
	if _, err := client.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !within(remaining, 2*time.Second) {
		t.Errorf("an ordinary call's deadline was %v away, want the client's 2 s", remaining)
	}
}

// slowExecClient is a client whose own timeout is 30 ms, of a server that answers every request
// with an exec result after 300 ms.
func slowExecClient(t *testing.T) *cairn.Client {
	t.Helper()
	server := httptest.NewServer(http.HandlerFunc(func(writer http.ResponseWriter, request *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-request.Context().Done():
			return
		}
		_, _ = writer.Write([]byte(`{"exit_code":0,"stdout":"done\n","timed_out":false}`))
	}))
	t.Cleanup(server.Close)
	return newTestClient(t, server.URL, cairn.WithTimeout(30*time.Millisecond))
}

func TestExecOutlastsTheClientTimeout(t *testing.T) {
	client := slowExecClient(t)
	result, err := client.Exec(context.Background(), "s", cairn.ExecRequest{Command: "sleep", Timeout: 1})
	if err != nil || result.Stdout != "done\n" {
		t.Fatalf("exec gave up at the client timeout: %v", err)
	}
	_, err = client.GetSandbox(context.Background(), "s")
	var connectionError *cairn.ConnectionError
	if !errors.As(err, &connectionError) || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("an ordinary call outlived the client timeout: %v", err)
	}
}

func TestCallToolWaitsAnInputTimeoutPlusFifteenSeconds(t *testing.T) {
	var remaining time.Duration
	client := newTestClient(t, "http://localhost:8090",
		cairn.WithTimeout(2*time.Second),
		cairn.WithHTTPClient(deadlineRecorder(`{"exit_code":0}`, &remaining)))
	type execInput struct {
		SessionID string `json:"session_id"`
		Command   string `json:"command"`
		Timeout   int    `json:"timeout,omitempty"`
	}
	cases := []struct {
		name  string
		input any
		want  time.Duration
	}{
		{"a map", map[string]any{"session_id": "s", "command": "true", "timeout": 100}, 115 * time.Second},
		{"a struct", execInput{SessionID: "s", Command: "true", Timeout: 1}, 16 * time.Second},
		{"seconds with a fraction", map[string]any{"url": "https://example.com", "timeout": 2.5}, 17500 * time.Millisecond},
		{"no timeout", map[string]any{"q": "deploy day"}, 2 * time.Second},
		{"a zero timeout", execInput{SessionID: "s", Command: "true"}, 2 * time.Second},
		{"a negative timeout", map[string]any{"timeout": -5}, 2 * time.Second},
		{"a timeout that is not a number", map[string]any{"timeout": "100"}, 2 * time.Second},
		{"a nested timeout", map[string]any{"options": map[string]any{"timeout": 100}}, 2 * time.Second},
		{"nil", nil, 2 * time.Second},
	}
	for _, c := range cases {
		if err := client.CallTool(context.Background(), "exec", c.input, nil); err != nil {
			t.Fatal(err)
		}
		if !within(remaining, c.want) {
			t.Errorf("%s: the HTTP deadline was %v away, want %v", c.name, remaining, c.want)
		}
	}
}

func TestCallToolWithATimeoutOutlastsTheClientTimeout(t *testing.T) {
	client := slowExecClient(t)
	var result cairn.ExecResult
	input := map[string]any{"session_id": "s", "command": "sleep 0.3; echo done", "timeout": 1}
	if err := client.CallTool(context.Background(), "exec", input, &result); err != nil || result.Stdout != "done\n" {
		t.Fatalf("a tool call with a sandbox-side timeout gave up at the client timeout: %v", err)
	}
	err := client.CallTool(context.Background(), "recall", map[string]any{"q": "deploy day"}, nil)
	var connectionError *cairn.ConnectionError
	if !errors.As(err, &connectionError) || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("a tool call without a timeout outlived the client timeout: %v", err)
	}
	err = client.CallTool(context.Background(), "exec", input, nil, cairn.WithCallTimeout(50*time.Millisecond))
	if !errors.As(err, &connectionError) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Fatalf("WithCallTimeout did not replace the sandbox-side wait: %v", err)
	}
	if err := client.CallTool(context.Background(), "recall", map[string]any{"q": "deploy day"}, nil,
		cairn.WithCallTimeout(time.Second)); err != nil {
		t.Fatalf("WithCallTimeout did not lengthen the wait: %v", err)
	}
}
