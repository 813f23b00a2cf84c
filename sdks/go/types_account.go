// Typed shapes of the account routes: sign-up and login, API keys, the account, usage and the
// command allowlist. Timestamps are ISO-8601 strings as the server sends them.
package cairn

import (
	"encoding/json"
	"fmt"
)

// Account is who a credential belongs to.
type Account struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	CreatedAt string `json:"created_at"`
}

// TokenResponse is what Signup and Login return: a dashboard token for the key routes.
type TokenResponse struct {
	AccessToken string  `json:"access_token"`
	TokenType   string  `json:"token_type"`
	ExpiresIn   int     `json:"expires_in"`
	Account     Account `json:"account"`
}

// APIKey is one API key as listed (never its secret part).
type APIKey struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Prefix     string  `json:"prefix"`
	CreatedAt  string  `json:"created_at"`
	RevokedAt  *string `json:"revoked_at"`
	LastUsedAt *string `json:"last_used_at"`
}

// APIKeyCreated is a new key; Key is the raw key, returned exactly once.
type APIKeyCreated struct {
	APIKey
	Key string `json:"key"`
}

// UsageSummary is the account's sandbox usage against its caps.
type UsageSummary struct {
	MonthlySandboxHoursUsed  float64 `json:"monthly_sandbox_hours_used"`
	MonthlySandboxHoursLimit float64 `json:"monthly_sandbox_hours_limit"`
	ConcurrentSandboxes      int     `json:"concurrent_sandboxes"`
	ConcurrentSandboxesLimit int     `json:"concurrent_sandboxes_limit"`
	TotalSandboxesCreated    int     `json:"total_sandboxes_created"`
}

// UsageDetail is UsageSummary plus the sandbox-operations rate limit.
type UsageDetail struct {
	UsageSummary
	SandboxOpsRateLimitRemaining int `json:"sandbox_ops_rate_limit_remaining"`
	SandboxOpsRateLimit          int `json:"sandbox_ops_rate_limit"`
}

// CommandRule is one allowlist entry: a command name alone (ArgsAllow and ArgsDeny empty,
// sent as a plain string), or a command with regexes matched against its joined arguments.
type CommandRule struct {
	Command   string   `json:"command"`
	ArgsAllow []string `json:"args_allow"`
	ArgsDeny  []string `json:"args_deny"`
}

// MarshalJSON sends a rule without argument patterns as the plain command name.
func (rule CommandRule) MarshalJSON() ([]byte, error) {
	if len(rule.ArgsAllow) == 0 && len(rule.ArgsDeny) == 0 {
		return json.Marshal(rule.Command)
	}
	type plain CommandRule
	return json.Marshal(plain(rule))
}

// UnmarshalJSON reads either form the server stores.
func (rule *CommandRule) UnmarshalJSON(data []byte) error {
	var name string
	if json.Unmarshal(data, &name) == nil {
		*rule = CommandRule{Command: name}
		return nil
	}
	type plain CommandRule
	var decoded plain
	if err := json.Unmarshal(data, &decoded); err != nil {
		return fmt.Errorf("cairn: a command rule is a string or an object: %w", err)
	}
	*rule = CommandRule(decoded)
	return nil
}

// AllowedCommands is the account's allowlist; no rules means unrestricted.
type AllowedCommands struct {
	Rules []CommandRule `json:"rules"`
}
