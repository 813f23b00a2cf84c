// The command allowlist's rule, written by hand for its two JSON forms. What the account routes
// answer (tokens, API keys, the account, usage, the allowlist) is in types_generated.go.
package cairn

import (
	"encoding/json"
	"fmt"
)

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
