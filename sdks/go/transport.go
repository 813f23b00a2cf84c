// One HTTP exchange with the server, and the opt-in retry around it. Each attempt gets its own
// timeout (a context deadline), so the caller's context and the client's timeout both bound it.
package cairn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// call is one route's request: its verb and path, query, JSON body and credential.
type call struct {
	method string
	path   string
	query  url.Values
	body   any
	// credential overrides the client's API key (the key routes take a dashboard token);
	// anonymous sends none (signup and login).
	credential string
	anonymous  bool
	// timeout overrides the client's timeout (exec waits for its command).
	timeout time.Duration
	// headers are extra request headers (an Idempotency-Key).
	headers map[string]string
}

var idempotentMethods = map[string]bool{"GET": true, "HEAD": true, "PUT": true, "DELETE": true, "OPTIONS": true}

var retryStatuses = map[int]bool{429: true, 500: true, 502: true, 503: true, 504: true}

// sandboxTimeoutMargin is the extra HTTP wait beyond a sandbox-side timeout, so the server's
// own answer (timed_out: true) arrives before the client gives up.
const sandboxTimeoutMargin = 15 * time.Second

// send performs the call and decodes a 2xx JSON answer into result (nil: the body is dropped).
func (c *Client) send(ctx context.Context, request call, result any) error {
	var body []byte
	if request.body != nil {
		encoded, err := json.Marshal(request.body)
		if err != nil {
			return fmt.Errorf("cairn: encoding the %s %s body: %w", request.method, request.path, err)
		}
		body = encoded
	}
	retry := c.retry
	if !idempotentMethods[request.method] {
		retry = nil
	}
	for attempt := 0; ; attempt++ {
		canRetry := retry != nil && attempt < retry.MaxRetries
		status, header, answer, err := c.attempt(ctx, request, body)
		if err != nil {
			if !canRetry || ctx.Err() != nil {
				return err
			}
			if err := sleep(ctx, backoff(retry, attempt)); err != nil {
				return err
			}
			continue
		}
		if status >= 200 && status < 300 {
			return decode(request, status, answer, result)
		}
		apiError := ParseAPIError(status, header, answer)
		if !canRetry || !retryStatuses[status] {
			return apiError.wrap()
		}
		wait := backoff(retry, attempt)
		if serverWait, given := ParseRetryAfter(header.Get("Retry-After"), time.Now()); given {
			wait = serverWait
		}
		if wait > retry.MaxDelay {
			return apiError.wrap()
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// attempt sends the request once and reads the whole answer within the attempt's deadline.
func (c *Client) attempt(ctx context.Context, request call, body []byte) (int, http.Header, []byte, error) {
	timeout := c.timeout
	if request.timeout > 0 {
		timeout = request.timeout
	}
	attemptContext, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		attemptContext, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	target := c.baseURL + request.path
	if len(request.query) > 0 {
		target += "?" + request.query.Encode()
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	httpRequest, err := http.NewRequestWithContext(attemptContext, request.method, target, reader)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("cairn: building %s %s: %w", request.method, request.path, err)
	}
	for name, value := range request.headers {
		httpRequest.Header.Set(name, value)
	}
	httpRequest.Header.Set("Accept", "application/json")
	httpRequest.Header.Set("User-Agent", "cairn-go/"+Version)
	if body != nil {
		httpRequest.Header.Set("Content-Type", "application/json")
	}
	credential := c.apiKey
	if request.credential != "" {
		credential = request.credential
	}
	if credential != "" && !request.anonymous {
		httpRequest.Header.Set("Authorization", "Bearer "+credential)
	}
	response, err := c.httpClient.Do(httpRequest)
	if err != nil {
		return 0, nil, nil, c.connectionError(request, err, attemptContext, ctx, timeout)
	}
	defer response.Body.Close()
	answer, err := io.ReadAll(response.Body)
	if err != nil {
		return 0, nil, nil, c.connectionError(request, fmt.Errorf("the answer broke off: %w", err), attemptContext, ctx, timeout)
	}
	return response.StatusCode, response.Header, answer, nil
}

func (c *Client) connectionError(request call, err error, attemptContext, ctx context.Context, timeout time.Duration) error {
	if errors.Is(attemptContext.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("no answer within %s: %w", timeout, err)
	}
	return &ConnectionError{Method: request.method, Path: request.path, Err: err}
}

func decode(request call, status int, answer []byte, result any) error {
	if result == nil || status == http.StatusNoContent || len(answer) == 0 {
		return nil
	}
	if err := json.Unmarshal(answer, result); err != nil {
		return fmt.Errorf("cairn: %s %s answered %d with a body that does not decode: %w", request.method, request.path, status, err)
	}
	return nil
}

// backoff is full jitter: a uniform wait up to min(MaxDelay, BaseDelay·2^attempt).
func backoff(policy *RetryPolicy, attempt int) time.Duration {
	ceiling := policy.BaseDelay << attempt
	if ceiling > policy.MaxDelay || ceiling <= 0 {
		ceiling = policy.MaxDelay
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

func sleep(ctx context.Context, wait time.Duration) error {
	if wait <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// segment escapes one path parameter.
func segment(value string) string { return url.PathEscape(value) }

// identify sets what every request of the client carries besides its own headers: what it
// accepts, the SDK's User-Agent and the client's API key.
func (c *Client) identify(request *http.Request, accept string) {
	request.Header.Set("Accept", accept)
	request.Header.Set("User-Agent", "cairn-go/"+Version)
	if c.apiKey != "" {
		request.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
}
