// The server's real refusals as the SDK's errors: 401, 404, 422, 403 and the 429 of a third
// concurrent sandbox, with their codes, defaults and families.
package cairn_test

import (
	"errors"
	"regexp"
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func asAPIError(t *testing.T, err error, status int, code string) *cairn.APIError {
	t.Helper()
	var apiError *cairn.APIError
	if !errors.As(err, &apiError) {
		t.Fatalf("want an *APIError %d %s, got %v", status, code, err)
	}
	if apiError.StatusCode != status || apiError.Code != code {
		t.Fatalf("got %d %s (%s), want %d %s", apiError.StatusCode, apiError.Code, apiError.Message, status, code)
	}
	if apiError.Message == "" || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(apiError.RequestID) {
		t.Fatalf("message or request id missing: %+v", apiError)
	}
	return apiError
}

func TestLiveAuthenticationErrors(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)

	noKey := newClient(t, account.baseURL, "")
	_, err := noKey.Account(ctx)
	asAPIError(t, err, 401, "missing_credentials")

	forged := newClient(t, account.baseURL, "cairn_"+randomHex(t)+randomHex(t)+randomHex(t))
	_, err = forged.Account(ctx)
	unauthorized := asAPIError(t, err, 401, "invalid_api_key")
	if unauthorized.Retryable || unauthorized.Taxonomy != cairn.TaxonomyNone {
		t.Fatalf("an auth error is neither retryable nor in a family: %+v", unauthorized)
	}

	withToken := newClient(t, account.baseURL, account.accessToken)
	_, err = withToken.Remember(ctx, cairn.RememberRequest{Content: "x"})
	asAPIError(t, err, 401, "wrong_credential_type")
}

func TestLiveNotFoundAndValidationErrors(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)

	_, err := account.client.GetSandbox(ctx, "00000000-0000-4000-8000-000000000000")
	asAPIError(t, err, 404, "not_found")
	_, err = account.client.GetMemory(ctx, "00000000-0000-4000-8000-000000000000")
	asAPIError(t, err, 404, "memory_not_found")

	_, err = account.client.Recall(ctx, "", cairn.RecallOptions{Limit: 1000})
	validation := asAPIError(t, err, 422, "validation_error")
	if validation.Retryable {
		t.Fatal("a validation error is not retryable")
	}
	if details, ok := validation.Details.([]any); !ok || len(details) == 0 {
		t.Fatalf("validation details are the list of problems, got %#v", validation.Details)
	}
}

func TestLiveQuotaCapabilityAndEgressErrors(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client

	sandboxes, err := client.CreateSandboxes(ctx, 2, cairn.CreateSandboxRequest{Label: "pair"})
	noError(t, err)
	if len(sandboxes) != 2 || sandboxes[1].Label == nil || *sandboxes[1].Label != "pair" {
		t.Fatalf("CreateSandboxes(2) gave %+v", sandboxes)
	}
	_, err = client.CreateSandbox(ctx, cairn.CreateSandboxRequest{})
	var quota *cairn.QuotaExceededError
	if !errors.As(err, &quota) {
		t.Fatalf("a third sandbox: want *QuotaExceededError, got %v", err)
	}
	asAPIError(t, err, 429, "concurrent_sandbox_limit_reached")
	details, _ := quota.Details.(map[string]any)
	if quota.Retryable || quota.Taxonomy != cairn.TaxonomyQuotaExceeded || details["limit"] != 2.0 || details["active"] != 2.0 {
		t.Fatalf("quota error fields: %+v", quota.APIError)
	}

	first := client.Session(sandboxes[0].ID)
	_, err = first.HTTPRequest(ctx, cairn.SandboxHTTPRequest{URL: "http://127.0.0.1:9/"})
	var egress *cairn.EgressDeniedError
	if !errors.As(err, &egress) || egress.Code != "egress_denied" {
		t.Fatalf("a private address: want *EgressDeniedError, got %v", err)
	}

	_, err = first.View(ctx, cairn.ViewRequest{Path: "/etc/passwd"})
	var denied *cairn.CapabilityDeniedError
	if !errors.As(err, &denied) || denied.Code != "path_outside_sandbox" {
		t.Fatalf("a path outside: want *CapabilityDeniedError, got %v", err)
	}

	_, err = client.SetAllowedCommands(ctx, []cairn.CommandRule{{Command: "echo"}})
	noError(t, err)
	_, err = first.Exec(ctx, cairn.ExecRequest{Command: "ls /"})
	noError(t, client.ClearAllowedCommands(ctx))
	if !errors.As(err, &denied) || denied.Code != "command_not_allowed" || denied.Taxonomy != cairn.TaxonomyCapabilityDenied {
		t.Fatalf("a command outside the allowlist: want *CapabilityDeniedError, got %v", err)
	}

	for _, sandbox := range sandboxes {
		noError(t, client.DestroySandbox(ctx, sandbox.ID))
	}
	err = client.DestroySandbox(ctx, sandboxes[0].ID)
	asAPIError(t, err, 404, "not_found")
}
