// Sandboxes against a live server: WithSandbox and every file, exec and language-server call,
// an exec that outlasts the client's own timeout, and listing.
package cairn_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveWithSandboxRunsFilesAndExec(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client
	var sessionID string
	err := client.WithSandbox(ctx, cairn.CreateSandboxRequest{Label: "go files", LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		sessionID = sandbox.ID
		if sandbox.Sandbox.Status != "active" || sandbox.Sandbox.Usage.ConcurrentSandboxes != 1 {
			t.Errorf("created sandbox: %+v", sandbox.Sandbox)
		}
		content := "print('hi from go')\nvalue = 1\n"
		written, err := sandbox.FileCreate(ctx, cairn.FileCreateRequest{Path: "src/app.py", Content: content})
		noError(t, err)
		if !written.Created || written.Size != int64(len(content)) || written.Path != "/workspace/src/app.py" {
			t.Errorf("file create: %+v", written)
		}
		view, err := sandbox.View(ctx, cairn.ViewRequest{Path: "src/app.py", ViewRange: &[2]int{2, 2}})
		noError(t, err)
		if !strings.Contains(view.Content, "value = 1") || strings.Contains(view.Content, "print") {
			t.Errorf("view of line 2: %+v", view)
		}
		replaced, err := sandbox.StrReplace(ctx, cairn.StrReplaceRequest{Path: "src/app.py", OldStr: "value = 1", NewStr: "value = 2"})
		noError(t, err)
		if replaced.Replaced != 1 {
			t.Errorf("str replace: %+v", replaced)
		}
		listing, err := sandbox.Ls(ctx, "")
		noError(t, err)
		if len(listing.Entries) != 1 || listing.Entries[0].Path != "/workspace/src/" || !listing.Entries[0].IsDir {
			t.Errorf("ls /: %+v", listing)
		}
		globbed, err := sandbox.Glob(ctx, cairn.GlobRequest{Pattern: "**/*.py"})
		noError(t, err)
		if len(globbed.Matches) != 1 || !strings.HasSuffix(globbed.Matches[0].Path, "app.py") {
			t.Errorf("glob: %+v", globbed)
		}
		grepped, err := sandbox.Grep(ctx, cairn.GrepRequest{Pattern: "value = \\d"})
		noError(t, err)
		if len(grepped.Matches) != 1 || grepped.Matches[0].Line != 2 || grepped.Error != nil {
			t.Errorf("grep: %+v", grepped)
		}
		output, err := sandbox.Exec(ctx, cairn.ExecRequest{Command: "python3 src/app.py && cat src/app.py | tail -1"})
		noError(t, err)
		if output.ExitCode != 0 || output.Stdout != "hi from go\nvalue = 2\n" {
			t.Errorf("exec: %+v", output)
		}
		return nil
	})
	noError(t, err)
	sandbox, err := client.GetSandbox(ctx, sessionID)
	noError(t, err)
	if sandbox.Status != "destroyed" || sandbox.EndedReason == nil || *sandbox.EndedReason != "destroyed" || sandbox.Connect != nil {
		t.Fatalf("WithSandbox left the sandbox %+v", sandbox)
	}
}

func TestLiveWithSandboxDestroysWhenTheWorkFails(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	workFailed := errors.New("the work failed")
	var sessionID string
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		sessionID = sandbox.ID
		return workFailed
	})
	if !errors.Is(err, workFailed) {
		t.Fatalf("WithSandbox returned %v, want the work's error", err)
	}
	sandbox, err := account.client.GetSandbox(ctx, sessionID)
	noError(t, err)
	if sandbox.Status != "destroyed" {
		t.Fatalf("the sandbox outlived failed work: %+v", sandbox)
	}
	active, err := account.client.ListSandboxes(ctx, true)
	noError(t, err)
	all, err := account.client.ListSandboxes(ctx, false)
	noError(t, err)
	if len(active) != 0 || len(all) != 1 || all[0].ID != sessionID {
		t.Fatalf("list: active %+v, all %+v", active, all)
	}
}

func TestLiveExecTimeoutOutlastsTheClientTimeout(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	// This client gives ordinary calls 200 ms; the server answers this exec only after its
	// 1 s timeout, so the call succeeds only because exec waits its timeout + 15 s.
	impatient, err := cairn.NewClient(account.baseURL, account.key, cairn.WithTimeout(200*time.Millisecond))
	noError(t, err)
	err = account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		output, err := impatient.Exec(ctx, sandbox.ID, cairn.ExecRequest{Command: "sleep 5", Timeout: 1})
		if err != nil {
			return err
		}
		if !output.TimedOut {
			t.Errorf("exec past its timeout: %+v", output)
		}
		return nil
	})
	noError(t, err)
}

func TestLiveLanguageServer(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client
	err := client.WithSandbox(ctx, cairn.CreateSandboxRequest{}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		started, err := sandbox.LSPStart(ctx, "python")
		noError(t, err)
		if !strings.HasPrefix(started.LSPID, "lsp_") {
			t.Errorf("lsp start: %+v", started)
		}
		source := "import os\nos.pa"
		opened, err := sandbox.LSPOpen(ctx, started.LSPID, "main.py", source)
		noError(t, err)
		if opened.Status != "opened" {
			t.Errorf("lsp open: %+v", opened)
		}
		completion, err := client.LSPCompletion(ctx, sandbox.ID, started.LSPID, "main.py", 1, 5)
		noError(t, err)
		labels := []string{}
		for _, item := range completion.Items {
			labels = append(labels, item["label"].(string))
		}
		if !strings.Contains(strings.Join(labels, " "), "path") {
			t.Errorf("completions of os.pa: %v", labels)
		}
		stopped, err := sandbox.LSPStop(ctx, started.LSPID)
		noError(t, err)
		if stopped.Status != "stopped" {
			t.Errorf("lsp stop: %+v", stopped)
		}
		return nil
	})
	noError(t, err)
}
