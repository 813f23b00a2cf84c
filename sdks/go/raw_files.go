// The raw file routes (PUT and GET /v1/sandboxes/{id}/files/raw): a file's exact bytes in and
// out, streamed from an io.Reader and into an io.Writer, never held whole.
package cairn

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// rawTransferTimeout bounds a whole raw transfer (100 MiB on a slow link) when the client's own
// timeout is shorter; the caller's context still bounds it too.
const rawTransferTimeout = 10 * time.Minute

func (c *Client) rawRequest(ctx context.Context, method, sessionID, path string, body io.Reader) (*http.Response, context.CancelFunc, error) {
	timeout := rawTransferTimeout
	if c.timeout > timeout {
		timeout = c.timeout
	}
	requestContext, cancel := context.WithTimeout(ctx, timeout)
	route := sandboxPath(sessionID, "/files/raw")
	target := c.baseURL + route + "?" + url.Values{"path": {path}}.Encode()
	request, err := http.NewRequestWithContext(requestContext, method, target, body)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("cairn: building %s %s: %w", method, route, err)
	}
	c.identify(request, "application/octet-stream, application/json")
	if body != nil {
		request.Header.Set("Content-Type", "application/octet-stream")
	}
	response, err := c.httpClient.Do(request)
	if err != nil {
		cancel()
		return nil, nil, c.connectionError(call{method: method, path: route}, err, requestContext, ctx, timeout)
	}
	if response.StatusCode < 200 || response.StatusCode >= 300 {
		defer cancel()
		defer response.Body.Close()
		answer, _ := io.ReadAll(response.Body)
		return nil, nil, ParseAPIError(response.StatusCode, response.Header, answer).wrap()
	}
	return response, cancel, nil
}

// UploadFile writes the reader's bytes to a file through the raw route, streamed as they are
// read (at most 100 MiB; more is a 413 payload_too_large and leaves nothing behind). The file is
// replaced only once every byte has arrived. It is never retried: a reader cannot be replayed.
func (c *Client) UploadFile(ctx context.Context, sessionID, path string, body io.Reader) (*FileWritten, error) {
	if body == nil {
		body = http.NoBody
	}
	response, cancel, err := c.rawRequest(ctx, http.MethodPut, sessionID, path, body)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer response.Body.Close()
	var result FileWritten
	if err := json.NewDecoder(response.Body).Decode(&result); err != nil {
		return nil, fmt.Errorf("cairn: PUT %s answered with a body that does not decode: %w", sandboxPath(sessionID, "/files/raw"), err)
	}
	return &result, nil
}

// DownloadFile copies a file's exact bytes into destination through the raw route, streamed,
// and returns how many were written. A transfer that breaks off is an error.
func (c *Client) DownloadFile(ctx context.Context, sessionID, path string, destination io.Writer) (int64, error) {
	response, cancel, err := c.rawRequest(ctx, http.MethodGet, sessionID, path, nil)
	if err != nil {
		return 0, err
	}
	defer cancel()
	defer response.Body.Close()
	written, err := io.Copy(destination, response.Body)
	if err != nil {
		return written, &ConnectionError{Method: http.MethodGet, Path: sandboxPath(sessionID, "/files/raw"), Err: err}
	}
	if response.ContentLength >= 0 && written != response.ContentLength {
		return written, &ConnectionError{
			Method: http.MethodGet,
			Path:   sandboxPath(sessionID, "/files/raw"),
			Err:    fmt.Errorf("the answer broke off after %d of %d bytes", written, response.ContentLength),
		}
	}
	return written, nil
}
