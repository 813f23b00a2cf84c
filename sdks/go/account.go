// Account methods: sign-up, login, API keys (with the dashboard token), the account, usage and
// the command allowlist.
package cairn

import "context"

// Signup creates an account and returns a dashboard token for the key routes.
func (c *Client) Signup(ctx context.Context, email, password string) (*TokenResponse, error) {
	var result TokenResponse
	body := map[string]string{"email": email, "password": password}
	err := c.send(ctx, call{method: "POST", path: "/v1/auth/signup", body: body, anonymous: true}, &result)
	return done(&result, err)
}

// Login returns a fresh dashboard token.
func (c *Client) Login(ctx context.Context, email, password string) (*TokenResponse, error) {
	var result TokenResponse
	body := map[string]string{"email": email, "password": password}
	err := c.send(ctx, call{method: "POST", path: "/v1/auth/login", body: body, anonymous: true}, &result)
	return done(&result, err)
}

// CreateAPIKey makes an API key with the dashboard token from Signup or Login.
func (c *Client) CreateAPIKey(ctx context.Context, accessToken, name string) (*APIKeyCreated, error) {
	var result APIKeyCreated
	request := call{method: "POST", path: "/v1/api-keys", body: map[string]string{"name": name}, credential: accessToken}
	return done(&result, c.send(ctx, request, &result))
}

// ListAPIKeys lists the account's keys, newest first, revoked ones included.
func (c *Client) ListAPIKeys(ctx context.Context, accessToken string) ([]APIKey, error) {
	var result []APIKey
	err := c.send(ctx, call{method: "GET", path: "/v1/api-keys", credential: accessToken}, &result)
	return result, err
}

// RevokeAPIKey revokes a key by its id.
func (c *Client) RevokeAPIKey(ctx context.Context, accessToken, keyID string) error {
	return c.send(ctx, call{method: "DELETE", path: "/v1/api-keys/" + segment(keyID), credential: accessToken}, nil)
}

// Account is who the API key belongs to ("whoami").
func (c *Client) Account(ctx context.Context) (*Account, error) {
	var result Account
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/account"}, &result))
}

// Usage is the account's sandbox usage and rate-limit headroom.
func (c *Client) Usage(ctx context.Context) (*UsageDetail, error) {
	var result UsageDetail
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/usage"}, &result))
}

// GetAllowedCommands is the account's command allowlist (no rules: unrestricted).
func (c *Client) GetAllowedCommands(ctx context.Context) (*AllowedCommands, error) {
	var result AllowedCommands
	return done(&result, c.send(ctx, call{method: "GET", path: "/v1/account/allowed-commands"}, &result))
}

// SetAllowedCommands replaces the allowlist; exec refuses other commands with
// *CapabilityDeniedError (command_not_allowed).
func (c *Client) SetAllowedCommands(ctx context.Context, rules []CommandRule) (*AllowedCommands, error) {
	var result AllowedCommands
	request := call{method: "PUT", path: "/v1/account/allowed-commands", body: AllowedCommands{Rules: rules}}
	return done(&result, c.send(ctx, request, &result))
}

// ClearAllowedCommands removes the allowlist: every command may run again.
func (c *Client) ClearAllowedCommands(ctx context.Context) error {
	return c.send(ctx, call{method: "DELETE", path: "/v1/account/allowed-commands"}, nil)
}

// done returns the decoded result, or nil and the error.
func done[T any](result *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return result, nil
}
