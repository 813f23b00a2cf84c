// Background processes against a live server: stdin with EOF, output read by offsets (nothing
// lost or repeated), the event stream followed live and resumed from an offset, wait, stop and
// list, and the refusals a caller can act on; and, against a scripted server, a stream closed
// before its exit event resuming from the last offset.
package cairn_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

const echoCommand = `python3 -c "import sys; print(input()); print('err', file=sys.stderr)"`

func collect(t *testing.T, ctx context.Context, sandbox *cairn.SandboxSession, processID string, since int) []cairn.ProcessEvent {
	t.Helper()
	var events []cairn.ProcessEvent
	noError(t, sandbox.StreamProcess(ctx, processID, since, func(event cairn.ProcessEvent) error {
		events = append(events, event)
		return nil
	}))
	return events
}

func joined(events []cairn.ProcessEvent) (stdout, stderr string) {
	for _, event := range events {
		stdout += event.StdoutChunk
		stderr += event.StderrChunk
	}
	return stdout, stderr
}

func TestLiveBackgroundProcesses(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		started, err := sandbox.StartProcess(ctx, cairn.StartProcessRequest{Command: echoCommand, Description: "echo a line"})
		noError(t, err)
		processID := started.ProcessID
		if !strings.HasPrefix(processID, "proc_") || started.Status != "running" || started.Description == nil || *started.Description != "echo a line" {
			t.Errorf("started: %+v", started)
		}
		input, err := sandbox.ProcessInput(ctx, processID, cairn.ProcessInputRequest{Data: "hello\n", EOF: true})
		noError(t, err)
		if input.BytesWritten != 6 || input.StdinOpen {
			t.Errorf("input: %+v", input)
		}
		ended, err := sandbox.WaitProcess(ctx, processID, 30)
		noError(t, err)
		if ended.Status != "exited" || ended.ExitCode == nil || *ended.ExitCode != 0 || ended.OutputBytes != 10 {
			t.Errorf("waited: %+v", ended)
		}

		// Pages of at most 4 bytes, each from the previous NextOffset: every byte once.
		stdout, stderr, offset := "", "", 0
		for {
			page, err := sandbox.ProcessOutput(ctx, processID, cairn.ProcessOutputOptions{SinceOffset: offset, MaxBytes: 4})
			noError(t, err)
			if page.Offset != offset || page.Truncated {
				t.Fatalf("page from %d: %+v", offset, page)
			}
			if page.NextOffset == offset {
				if page.Status != "exited" {
					t.Errorf("last page: %+v", page)
				}
				break
			}
			stdout, stderr, offset = stdout+page.Stdout, stderr+page.Stderr, page.NextOffset
		}
		if stdout != "hello\n" || stderr != "err\n" || offset != 10 {
			t.Errorf("read by offsets: %q %q up to %d", stdout, stderr, offset)
		}

		events := collect(t, ctx, sandbox, processID, 0)
		if out, errOut := joined(events); out != "hello\n" || errOut != "err\n" {
			t.Errorf("streamed: %q %q", out, errOut)
		}
		last := events[len(events)-1]
		if last.Type != "exit" || last.Status != "exited" || last.ExitCode == nil || *last.ExitCode != 0 || last.NextOffset != 10 {
			t.Errorf("exit event: %+v", last)
		}
		// Resuming from an event's offset sends only what came after it.
		rest := collect(t, ctx, sandbox, processID, events[0].NextOffset)
		wantOut, wantErr := joined(events[1:])
		if out, errOut := joined(rest); out != wantOut || errOut != wantErr || rest[len(rest)-1].Type != "exit" {
			t.Errorf("resumed: %+v", rest)
		}
		// A callback returning ErrStopStream ends it at once, without an error.
		count := 0
		noError(t, sandbox.StreamProcess(ctx, processID, 0, func(cairn.ProcessEvent) error {
			count++
			return cairn.ErrStopStream
		}))
		if count != 1 {
			t.Errorf("stopped after %d events", count)
		}

		_, err = sandbox.ProcessInput(ctx, processID, cairn.ProcessInputRequest{Data: "more\n"})
		var apiError *cairn.APIError
		if !errors.As(err, &apiError) || apiError.StatusCode != 409 || apiError.Code != "process_not_running" {
			t.Errorf("input after the end: %v", err)
		}

		limit := 600
		sleeper, err := sandbox.StartProcess(ctx, cairn.StartProcessRequest{Command: "sleep 300", MaxRuntimeSeconds: &limit})
		noError(t, err)
		still, err := sandbox.WaitProcess(ctx, sleeper.ProcessID, 1)
		noError(t, err)
		if still.Status != "running" {
			t.Errorf("still running: %+v", still)
		}
		listed, err := sandbox.ListProcesses(ctx)
		noError(t, err)
		if len(listed.Processes) != 2 || listed.Processes[0].ProcessID != processID || listed.Processes[1].ProcessID != sleeper.ProcessID {
			t.Errorf("listed: %+v", listed)
		}
		stopped, err := sandbox.StopProcess(ctx, sleeper.ProcessID)
		noError(t, err)
		if stopped.Status != "killed" || stopped.EndedAt == nil {
			t.Errorf("stopped: %+v", stopped)
		}
		got, err := sandbox.GetProcess(ctx, sleeper.ProcessID)
		noError(t, err)
		if got.Status != "killed" {
			t.Errorf("got: %+v", got)
		}
		_, err = sandbox.GetProcess(ctx, "proc_"+strings.Repeat("0", 32))
		if !errors.As(err, &apiError) || apiError.StatusCode != 404 {
			t.Errorf("unknown process: %v", err)
		}
		return nil
	})
	noError(t, err)
}

func TestLiveStreamFollowsARunningProcess(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		command := "python3 -u -c \"import time\nfor i in range(3): print(i); time.sleep(0.3)\""
		started, err := sandbox.StartProcess(ctx, cairn.StartProcessRequest{Command: command})
		noError(t, err)
		events := collect(t, ctx, sandbox, started.ProcessID, 0)
		if out, _ := joined(events); out != "0\n1\n2\n" || len(events) < 4 {
			t.Errorf("followed: %q in %d events", out, len(events))
		}
		if last := events[len(events)-1]; last.Type != "exit" || last.ExitCode == nil || *last.ExitCode != 0 {
			t.Errorf("exit event: %+v", last)
		}
		return nil
	})
	noError(t, err)
}

func TestStreamClosedBeforeTheExitResumesFromTheLastOffset(t *testing.T) {
	var mutex sync.Mutex
	var queries []string
	server := httptest.NewServer(http.HandlerFunc(func(writer http.ResponseWriter, request *http.Request) {
		mutex.Lock()
		queries = append(queries, request.URL.Path+"?"+request.URL.RawQuery+" "+request.Header.Get("Authorization"))
		first := len(queries) == 1
		mutex.Unlock()
		writer.Header().Set("Content-Type", "text/event-stream")
		if first {
			// The live server closes a stream after 5 minutes: this one closes it at once.
			fmt.Fprint(writer, "id: 3\nevent: output\ndata: {\"type\":\"output\",\"stdout_chunk\":\"ab\\n\",\"stderr_chunk\":\"\",\"next_offset\":3,\"truncated\":false}\n\n: keep-alive\n\n")
			return
		}
		fmt.Fprint(writer, "id: 3\r\nevent: exit\r\ndata: {\"type\":\"exit\",\"status\":\"exited\",\"exit_code\":0,\"next_offset\":3}\r\n\r\n")
	}))
	defer server.Close()
	client := newClient(t, server.URL, "cairn_test")
	var types []string
	noError(t, client.StreamProcess(context.Background(), "sandbox-1", "proc_1", 0, func(event cairn.ProcessEvent) error {
		types = append(types, event.Type)
		return nil
	}))
	want := []string{
		"/v1/sandboxes/sandbox-1/processes/proc_1/stream?since_offset=0 Bearer cairn_test",
		"/v1/sandboxes/sandbox-1/processes/proc_1/stream?since_offset=3 Bearer cairn_test",
	}
	if !reflect.DeepEqual(types, []string{"output", "exit"}) || !reflect.DeepEqual(queries, want) {
		t.Errorf("events %v, requests %v", types, queries)
	}
}
