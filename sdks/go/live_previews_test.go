// Previews and takeover tokens against a live server: a dev server started in the background is
// reached through its preview URL, and not after revoke; a takeover token is minted.
package cairn_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLivePreviews(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		_, err := sandbox.StartProcess(ctx, cairn.StartProcessRequest{Command: "python3 -m http.server 8766 --bind 127.0.0.1"})
		noError(t, err)
		preview, err := sandbox.Preview(ctx, 8766, cairn.PreviewOptions{TTLSeconds: 120})
		noError(t, err)
		if preview.Port != 8766 || !strings.HasPrefix(preview.TokenID, "prv_") {
			t.Errorf("preview: %+v", preview)
		}
		get := func() (int, string) {
			response, err := http.Get(preview.URL)
			noError(t, err)
			defer response.Body.Close()
			body, _ := io.ReadAll(response.Body)
			return response.StatusCode, string(body)
		}
		status, body := get()
		for deadline := time.Now().Add(20 * time.Second); status != 200 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
			status, body = get()
		}
		if status != 200 || !strings.Contains(body, "Directory listing") {
			t.Errorf("through the preview: %d %q", status, body)
		}
		for range 2 {
			revoked, err := sandbox.RevokePreview(ctx, 8766, preview.TokenID)
			noError(t, err)
			if !revoked.Revoked {
				t.Errorf("revoke: %+v", revoked)
			}
		}
		if status, _ := get(); status != 404 {
			t.Errorf("after revoke: %d", status)
		}
		token, err := sandbox.TakeoverToken(ctx, true)
		noError(t, err)
		if !strings.HasPrefix(token.Token, "tkt_") || !token.ReadOnly {
			t.Errorf("token: %+v", token)
		}
		return nil
	})
	noError(t, err)
}
