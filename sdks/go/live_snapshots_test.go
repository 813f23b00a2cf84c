// Snapshots, key roles and the activity feed against a live server: a snapshot restored into a new
// sandbox keeps the files while the source changes; a member key cannot delete it (403
// insufficient_role); the log records the exec with its exit code.
package cairn_test

import (
	"errors"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveSnapshotsRolesAndLog(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client
	sandbox, err := client.CreateSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5})
	noError(t, err)
	defer client.DestroySandbox(ctx, sandbox.ID)
	_, err = client.Exec(ctx, sandbox.ID, cairn.ExecRequest{Command: "echo kept > a.txt; exit 2"})
	noError(t, err)
	snapshot, err := client.CreateSnapshot(ctx, sandbox.ID, cairn.SnapshotOptions{Label: "go"})
	noError(t, err)
	if snapshot.Status != "ready" || snapshot.SessionID != sandbox.ID {
		t.Errorf("snapshot: %+v", snapshot)
	}
	listed, err := client.ListSnapshots(ctx, sandbox.ID)
	noError(t, err)
	if len(listed) != 1 || listed[0].ID != snapshot.ID {
		t.Errorf("listed: %+v", listed)
	}
	_, err = client.Exec(ctx, sandbox.ID, cairn.ExecRequest{Command: "echo changed > a.txt"})
	noError(t, err)
	restored, err := client.RestoreSnapshot(ctx, snapshot.ID, cairn.SnapshotOptions{})
	noError(t, err)
	defer client.DestroySandbox(ctx, restored.ID)
	read, err := client.Exec(ctx, restored.ID, cairn.ExecRequest{Command: "cat a.txt"})
	noError(t, err)
	if read.Stdout != "kept\n" {
		t.Errorf("restored a.txt: %q", read.Stdout)
	}

	memberKey, err := client.CreateAPIKeyWithRole(ctx, account.accessToken, "agent", "member")
	noError(t, err)
	member, err := cairn.NewClient(account.baseURL, memberKey.Key)
	noError(t, err)
	var apiError *cairn.APIError
	if err := member.DeleteSnapshot(ctx, snapshot.ID); !errors.As(err, &apiError) || apiError.StatusCode != 403 || apiError.Code != "insufficient_role" {
		t.Errorf("member delete: %v", err)
	}
	noError(t, client.DeleteSnapshot(ctx, snapshot.ID))

	log, err := client.SandboxLog(ctx, sandbox.ID, 10, 0)
	noError(t, err)
	last := log.Entries[len(log.Entries)-1]
	if last.Kind != "command" || last.Subject != "echo kept > a.txt; exit 2" || last.ExitCode == nil || *last.ExitCode != 2 {
		t.Errorf("log: %+v", log.Entries)
	}
}
