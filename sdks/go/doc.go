// Package cairn is the Go client for the Cairn REST API: memory, sandboxes, files, language
// servers, images, volumes, secrets, MCP connections, API keys and the account.
//
// Every method takes a context.Context first and returns typed structs. Failures are
// *APIError (the server answered with its error envelope), *ConnectionError (no answer came),
// or one of the typed wrappers (*QuotaExceededError, *CapabilityDeniedError,
// *EgressDeniedError, *SandboxNotReadyError, *ServiceUnavailableError) that errors.As finds
// and that unwrap to *APIError.
//
//	client, err := cairn.NewClientFromEnv() // CAIRN_BASE_URL (unset: DefaultBaseURL), CAIRN_API_KEY
//	if err != nil { ... }
//	memory, err := client.Remember(ctx, cairn.RememberRequest{Content: "Deploys run on Tuesdays"})
//
// The standard library only: no dependencies.
package cairn
