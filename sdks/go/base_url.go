// The base-URL rule: where the client may send its API key. https anywhere, plain http only to
// this machine (the parsed host is exactly localhost or 127.0.0.1), so a key never crosses a
// network in the clear. Parsed, never prefix-matched: http://localhost.evil.com,
// http://localhost@evil.com and http://127.0.0.1.nip.io are refused.
package cairn

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// DefaultBaseURL is a Cairn server on this machine with its default port.
const DefaultBaseURL = "http://127.0.0.1:8090"

// ErrInvalidBaseURL is wrapped by every error NewClient returns for a refused base URL.
var ErrInvalidBaseURL = errors.New("cairn: invalid base URL")

var localHosts = map[string]bool{"localhost": true, "127.0.0.1": true}

// NormalizeBaseURL returns the base URL with a lower-case scheme and host and no trailing
// slashes, or an error wrapping ErrInvalidBaseURL when the rule refuses it.
func NormalizeBaseURL(text string) (string, error) {
	refuse := func(reason string) (string, error) {
		return "", fmt.Errorf("%w %q: %s", ErrInvalidBaseURL, text, reason)
	}
	parsed, err := url.Parse(text)
	if err != nil || parsed.Opaque != "" || parsed.Host == "" {
		return refuse("not an absolute URL")
	}
	if parsed.User != nil {
		return refuse("it must not carry a user name or password")
	}
	if parsed.RawQuery != "" || parsed.ForceQuery || parsed.Fragment != "" {
		return refuse("it must not carry a query or fragment")
	}
	scheme := strings.ToLower(parsed.Scheme)
	host := strings.ToLower(parsed.Hostname())
	secure := scheme == "https" && host != ""
	local := scheme == "http" && localHosts[host]
	if !secure && !local {
		return refuse("use https (plain http only for localhost or 127.0.0.1)")
	}
	parsed.Scheme = scheme
	parsed.Host = strings.ToLower(parsed.Host)
	return strings.TrimRight(parsed.String(), "/"), nil
}
