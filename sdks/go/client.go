// NewClient and its options: the base URL (checked by the base-URL rule), the API key, the
// HTTP client, the per-request timeout and the opt-in retry; NewClientFromEnv reads the first two
// from CAIRN_BASE_URL and CAIRN_API_KEY.
package cairn

import (
	"net/http"
	"os"
	"time"
)

// Client calls one Cairn server. It is safe for concurrent use.
type Client struct {
	baseURL    string
	apiKey     string
	httpClient *http.Client
	timeout    time.Duration
	retry      *RetryPolicy
}

// Option configures a Client.
type Option func(*Client)

// RetryPolicy is the opt-in retry of idempotent calls (GET, HEAD, PUT, DELETE, OPTIONS) after a
// connection failure or a 429, 500, 502, 503 or 504: exponential backoff with full jitter, or
// the server's Retry-After when it gives one. A Retry-After longer than MaxDelay is returned
// as the error instead, since waiting hours (a monthly cap) inside a call helps nobody.
type RetryPolicy struct {
	// MaxRetries is the attempts after the first (zero: 2).
	MaxRetries int
	// BaseDelay is the first backoff ceiling, doubled per attempt (zero: 500 ms).
	BaseDelay time.Duration
	// MaxDelay is the longest wait between attempts (zero: 30 s).
	MaxDelay time.Duration
}

// WithHTTPClient sends requests through the given client (a proxy, a custom transport). Its
// own Timeout, if any, still applies on top of WithTimeout.
func WithHTTPClient(httpClient *http.Client) Option {
	return func(client *Client) { client.httpClient = httpClient }
}

// WithTimeout bounds each request (default 30 s; zero: only the context bounds it). Exec and
// HTTPRequest wait their sandbox-side timeout plus 15 s instead.
func WithTimeout(timeout time.Duration) Option {
	return func(client *Client) { client.timeout = timeout }
}

// WithRetry turns on retry of idempotent calls; zero fields take their defaults.
func WithRetry(policy RetryPolicy) Option {
	return func(client *Client) {
		if policy.MaxRetries <= 0 {
			policy.MaxRetries = 2
		}
		if policy.BaseDelay <= 0 {
			policy.BaseDelay = 500 * time.Millisecond
		}
		if policy.MaxDelay <= 0 {
			policy.MaxDelay = 30 * time.Second
		}
		client.retry = &policy
	}
}

// NewClient checks the base URL (https, or plain http only for localhost and 127.0.0.1;
// trailing slashes trimmed) and returns a client sending apiKey as its bearer credential. The
// API key may be empty for Signup, Login and the key routes, which take their own credential.
func NewClient(baseURL, apiKey string, options ...Option) (*Client, error) {
	normalized, err := NormalizeBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	client := &Client{
		baseURL:    normalized,
		apiKey:     apiKey,
		httpClient: http.DefaultClient,
		timeout:    30 * time.Second,
	}
	for _, option := range options {
		option(client)
	}
	return client, nil
}

// NewClientFromEnv is NewClient with the base URL from CAIRN_BASE_URL (unset or empty:
// DefaultBaseURL) and the API key from CAIRN_API_KEY (unset or empty: none), the variables every
// Cairn client reads.
func NewClientFromEnv(options ...Option) (*Client, error) {
	baseURL := os.Getenv("CAIRN_BASE_URL")
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	return NewClient(baseURL, os.Getenv("CAIRN_API_KEY"), options...)
}

// BaseURL is the normalized base URL the client sends to.
func (c *Client) BaseURL() string { return c.baseURL }
