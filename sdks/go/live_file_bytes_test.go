// Bytes in and out of a sandbox against a live server: 50 MiB of random bytes through
// UploadFile and DownloadFile (an io.Reader up, an io.Writer down), base64 through FileCreate and
// View, and the refusals a caller can act on.
package cairn_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveUploadAndDownloadBytes(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	err := account.client.WithSandbox(ctx, cairn.CreateSandboxRequest{LifetimeMinutes: 5}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		data := make([]byte, 50*1024*1024)
		if _, err := rand.Read(data); err != nil {
			t.Fatal(err)
		}
		// An io.Reader that is not a *bytes.Reader, so the body is sent chunked, as a stream.
		written, err := sandbox.UploadFile(ctx, "big.bin", io.MultiReader(bytes.NewReader(data[:1000]), bytes.NewReader(data[1000:])))
		noError(t, err)
		if written.Path != "/workspace/big.bin" || written.Size != int64(len(data)) || !written.Created {
			t.Errorf("upload: %+v", written)
		}
		hash := sha256.New()
		count, err := sandbox.DownloadFile(ctx, "big.bin", hash)
		noError(t, err)
		if count != int64(len(data)) || !bytes.Equal(hash.Sum(nil), sha256Of(data)) {
			t.Errorf("download: %d bytes, sha256 differs: %v", count, !bytes.Equal(hash.Sum(nil), sha256Of(data)))
		}

		small := data[:3000]
		created, err := sandbox.FileCreate(ctx, cairn.FileCreateRequest{Path: "small.bin", Content: base64.StdEncoding.EncodeToString(small), Encoding: "base64"})
		noError(t, err)
		if created.Size != 3000 {
			t.Errorf("file create: %+v", created)
		}
		view, err := sandbox.View(ctx, cairn.ViewRequest{Path: "small.bin", Encoding: "base64"})
		noError(t, err)
		decoded, _ := base64.StdEncoding.DecodeString(view.Content)
		if view.Encoding != "base64" || !bytes.Equal(decoded, small) {
			t.Errorf("view base64: encoding %q, equal %v", view.Encoding, bytes.Equal(decoded, small))
		}
		_, err = sandbox.View(ctx, cairn.ViewRequest{Path: "small.bin"})
		var apiError *cairn.APIError
		if !errors.As(err, &apiError) || apiError.Code != "file_not_utf8" || apiError.StatusCode != 422 {
			t.Errorf("text view of bytes: %v", err)
		}
		_, err = sandbox.DownloadFile(ctx, "/etc/passwd", io.Discard)
		var denied *cairn.CapabilityDeniedError
		if !errors.As(err, &denied) {
			t.Errorf("download outside: %v", err)
		}
		_, err = sandbox.UploadFile(ctx, "../escape.bin", bytes.NewReader([]byte("x")))
		if !errors.As(err, &denied) {
			t.Errorf("upload outside: %v", err)
		}
		return nil
	})
	noError(t, err)
}

func sha256Of(data []byte) []byte {
	sum := sha256.Sum256(data)
	return sum[:]
}
