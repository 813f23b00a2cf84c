// Streamed exec and output budgets against a live server: a streamed command's output events for
// both streams and its exit, a stream left early killing the command, refusals before the
// command starts as *APIError, and exec, view and process output cut to a byte budget; against a
// scripted server, an error event after the command started as the *APIError it carries.
package cairn_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func collectExec(ctx context.Context, sandbox *cairn.SandboxSession, request cairn.ExecRequest) ([]cairn.ExecEvent, *cairn.ExecEvent, error) {
	var events []cairn.ExecEvent
	exit, err := sandbox.ExecStream(ctx, request, func(event cairn.ExecEvent) error {
		events = append(events, event)
		return nil
	})
	return events, exit, err
}

func TestLiveExecStream(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		events, exit, err := collectExec(ctx, sandbox, cairn.ExecRequest{Command: "echo a; echo b >&2; exit 3", Timeout: 200})
		noError(t, err)
		var stdout, stderr string
		for _, event := range events[:len(events)-1] {
			if event.Type != "output" {
				t.Errorf("not an output event: %+v", event)
			}
			stdout += event.StdoutChunk
			stderr += event.StderrChunk
		}
		if stdout != "a\n" || stderr != "b\n" {
			t.Errorf("stdout %q, stderr %q", stdout, stderr)
		}
		last := events[len(events)-1]
		if last.Type != "exit" || last.ExitCode != 3 || last.TimedOut || last.Truncated || !reflect.DeepEqual(*exit, last) {
			t.Errorf("exit event %+v, returned %+v", last, exit)
		}

		// Stopping at the first event closes the stream, which kills the command.
		command := "echo started; sleep 2; echo finished > finished.txt"
		var first []cairn.ExecEvent
		exit, err = sandbox.ExecStream(ctx, cairn.ExecRequest{Command: command, Timeout: 600}, func(event cairn.ExecEvent) error {
			first = append(first, event)
			return cairn.ErrStopStream
		})
		if err != nil || exit != nil || len(first) != 1 || first[0].StdoutChunk != "started\n" {
			t.Errorf("stopped stream: %+v, %v, %v", first, exit, err)
		}
		after, err := sandbox.Exec(ctx, cairn.ExecRequest{Command: "sleep 3; cat finished.txt 2>/dev/null || echo absent"})
		noError(t, err)
		if after.Stdout != "absent\n" {
			t.Errorf("the command went on after its stream closed: %q", after.Stdout)
		}

		// A callback's own error ends the stream and comes back as it is.
		mine := errors.New("enough")
		_, err = sandbox.ExecStream(ctx, cairn.ExecRequest{Command: "echo x; sleep 1"}, func(cairn.ExecEvent) error { return mine })
		if !errors.Is(err, mine) {
			t.Errorf("callback error: %v", err)
		}

		// Refusals before the command starts are the API's errors, as from Exec.
		_, _, err = collectExec(ctx, sandbox, cairn.ExecRequest{Command: "echo hi", Timeout: 3601})
		asAPIError(t, err, 422, "validation_error")
		_, err = account.client.ExecStream(ctx, "sbx_missing", cairn.ExecRequest{Command: "echo hi"}, func(cairn.ExecEvent) error { return nil })
		asAPIError(t, err, 404, "not_found")
		_, err = account.client.SetAllowedCommands(ctx, []cairn.CommandRule{{Command: "echo"}})
		noError(t, err)
		defer func() { noError(t, account.client.ClearAllowedCommands(ctx)) }()
		_, _, err = collectExec(ctx, sandbox, cairn.ExecRequest{Command: "rm -rf /workspace"})
		var denied *cairn.CapabilityDeniedError
		if !errors.As(err, &denied) {
			t.Errorf("want a *CapabilityDeniedError, got %v", err)
		}
		asAPIError(t, err, 403, "command_not_allowed")
		return nil
	})
	noError(t, err)
}

func TestLiveOutputBudgets(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		command := `python3 -c "print('x' * 5000 + 'END')"`
		tail, err := sandbox.Exec(ctx, cairn.ExecRequest{Command: command, MaxOutputBytes: 100, Keep: cairn.KeepTail})
		noError(t, err)
		if !strings.HasSuffix(tail.Stdout, "END\n") || tail.StdoutOmittedBytes <= 0 || !tail.Truncated || tail.StderrOmittedBytes != 0 {
			t.Errorf("tail: %+v", tail)
		}
		whole, err := sandbox.Exec(ctx, cairn.ExecRequest{Command: command})
		noError(t, err)
		if len(whole.Stdout) != 5004 || whole.StdoutOmittedBytes != 0 {
			t.Errorf("without a budget: %d bytes, %d omitted", len(whole.Stdout), whole.StdoutOmittedBytes)
		}

		var lines strings.Builder
		for number := 1; number <= 200; number++ {
			fmt.Fprintf(&lines, "line %d\n", number)
		}
		_, err = sandbox.FileCreate(ctx, cairn.FileCreateRequest{Path: "lines.txt", Content: lines.String()})
		noError(t, err)
		head, err := sandbox.View(ctx, cairn.ViewRequest{Path: "lines.txt", MaxOutputBytes: 50})
		noError(t, err)
		if !head.Truncated || head.OmittedBytes <= 0 || len(head.OmittedLines) != 2 || !strings.HasPrefix(head.Content, "line 1\n") {
			t.Errorf("view head: %+v", head)
		}
		end, err := sandbox.View(ctx, cairn.ViewRequest{Path: "lines.txt", MaxOutputBytes: 50, Keep: cairn.KeepTail})
		noError(t, err)
		if !strings.HasSuffix(end.Content, "line 200\n") || strings.HasPrefix(end.Content, "line 1\n") {
			t.Errorf("view tail: %q", end.Content)
		}

		started, err := sandbox.StartProcess(ctx, cairn.StartProcessRequest{Command: command})
		noError(t, err)
		_, err = sandbox.WaitProcess(ctx, started.ProcessID, 30)
		noError(t, err)
		page, err := sandbox.ProcessOutput(ctx, started.ProcessID, cairn.ProcessOutputOptions{MaxBytes: 64, Keep: cairn.KeepTail})
		noError(t, err)
		if !strings.HasSuffix(page.Stdout, "END\n") || page.OmittedBytes <= 0 || len(page.OmittedRange) != 2 || page.NextOffset != 5004 {
			t.Fatalf("process output tail: %+v", page)
		}
		from, to := page.OmittedRange[0], page.OmittedRange[1]
		cut, err := sandbox.ProcessOutput(ctx, started.ProcessID, cairn.ProcessOutputOptions{SinceOffset: from, MaxBytes: to - from, Keep: cairn.KeepHead})
		noError(t, err)
		if cut.Stdout != strings.Repeat("x", to-from) {
			t.Errorf("the omitted range read back: %d bytes", len(cut.Stdout))
		}
		return nil
	})
	noError(t, err)
}

func TestExecStreamErrorEventAfterTheStart(t *testing.T) {
	var requests []string
	server := httptest.NewServer(http.HandlerFunc(func(writer http.ResponseWriter, request *http.Request) {
		requests = append(requests, request.Method+" "+request.URL.Path+" "+request.Header.Get("Accept"))
		writer.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(writer, "event: output\ndata: {\"type\":\"output\",\"stdout_chunk\":\"partial\\n\"}\n\n: keep-alive\n\n")
		fmt.Fprint(writer, "event: error\ndata: {\"type\":\"error\",\"status\":429,\"error\":{\"code\":\"sandbox_process_limit_reached\","+
			"\"message\":\"The sandbox runs as many processes as its size allows\",\"retryable\":true,\"remediation\":\"Wait\","+
			"\"details\":{\"limit\":64,\"size\":\"small\"}}}\n\n")
	}))
	defer server.Close()
	client := newClient(t, server.URL, "cairn_test")
	var seen []cairn.ExecEvent
	exit, err := client.ExecStream(context.Background(), "sandbox-1", cairn.ExecRequest{Command: "make", Timeout: 1200}, func(event cairn.ExecEvent) error {
		seen = append(seen, event)
		return nil
	})
	var quota *cairn.QuotaExceededError
	if exit != nil || !errors.As(err, &quota) || quota.StatusCode != 429 || quota.Code != "sandbox_process_limit_reached" || !quota.Retryable {
		t.Fatalf("want the 429 from the error event, got %v, %v", exit, err)
	}
	if !reflect.DeepEqual(quota.Details, map[string]any{"limit": float64(64), "size": "small"}) {
		t.Errorf("details: %#v", quota.Details)
	}
	if len(seen) != 1 || seen[0].StdoutChunk != "partial\n" {
		t.Errorf("events before the error: %+v", seen)
	}
	if !reflect.DeepEqual(requests, []string{"POST /v1/sandboxes/sandbox-1/exec text/event-stream"}) {
		t.Errorf("requests: %v", requests)
	}
}
