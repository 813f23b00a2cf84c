// The activity feed followed live against a live server: a watch from now sees new entries and
// not what was there before, and returns nil once the sandbox is destroyed (at once for an ended
// one); a watch from a Seq replays what came after it, and ErrStopStream ends it without an
// error; an unknown sandbox is a 404.
package cairn_test

import (
	"errors"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveWatchSandbox(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client
	sandbox, err := client.CreateSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5})
	noError(t, err)
	defer client.DestroySandbox(ctx, sandbox.ID)
	_, err = client.Exec(ctx, sandbox.ID, cairn.ExecRequest{Command: "echo before"})
	noError(t, err)
	log, err := client.SandboxLog(ctx, sandbox.ID, 1, 0)
	noError(t, err)
	before := log.Entries[0].Seq

	seen := make(chan cairn.ActivityEntry, 1000)
	watched := make(chan error, 1)
	go func() {
		watched <- client.WatchSandbox(ctx, sandbox.ID, cairn.WatchOptions{}, func(entry cairn.ActivityEntry) error {
			seen <- entry
			return nil
		})
	}()
	// The watch starts with what happens after it connected: exec until it has seen an entry.
	var first cairn.ActivityEntry
	for received := false; !received; {
		_, err := client.Exec(ctx, sandbox.ID, cairn.ExecRequest{Command: "echo live"})
		noError(t, err)
		select {
		case first = <-seen:
			received = true
		case err := <-watched:
			t.Fatalf("the watch ended before any entry: %v", err)
		default:
		}
	}
	if first.Kind != "command" || first.Operation != "exec" || first.Subject != "echo live" || first.ExitCode == nil || *first.ExitCode != 0 || first.Seq <= before {
		t.Errorf("first watched entry: %+v", first)
	}
	if first.AccountID == "" || first.KeyID == nil || *first.KeyID == "" {
		t.Errorf("who: %+v", first)
	}

	// From a Seq: what came after it is replayed, oldest first; the callback stops the watch.
	var replayed []cairn.ActivityEntry
	noError(t, client.WatchSandbox(ctx, sandbox.ID, cairn.WatchOptions{Since: &before}, func(entry cairn.ActivityEntry) error {
		replayed = append(replayed, entry)
		return cairn.ErrStopStream
	}))
	if len(replayed) != 1 || replayed[0].Subject != "echo live" || replayed[0].Seq <= before {
		t.Errorf("replayed after %d: %+v", before, replayed)
	}

	// The sandbox's end ends the watch, without an error.
	noError(t, client.DestroySandbox(ctx, sandbox.ID))
	if err := <-watched; err != nil {
		t.Errorf("the watch ended with %v", err)
	}
	close(seen)
	for entry := range seen {
		if entry.Subject == "echo before" || entry.Kind != "command" {
			t.Errorf("watched an entry it should not have: %+v", entry)
		}
	}

	// An ended sandbox's watch ends at once; an unknown one is refused.
	noError(t, client.WatchSandbox(ctx, sandbox.ID, cairn.WatchOptions{}, func(entry cairn.ActivityEntry) error {
		t.Errorf("an ended sandbox's watch sent %+v", entry)
		return nil
	}))
	var apiError *cairn.APIError
	err = client.WatchSandbox(ctx, "00000000-0000-4000-8000-000000000000", cairn.WatchOptions{}, func(cairn.ActivityEntry) error { return nil })
	if !errors.As(err, &apiError) || apiError.StatusCode != 404 || apiError.Code != "not_found" {
		t.Errorf("watching an unknown sandbox: %v", err)
	}
}
