// The SDK's errors. *ConnectionError when no answer came (network failure, timeout);
// *APIError when the server answered with its error envelope (CONTRACT §5). API errors of a few
// families come wrapped in their own type (*QuotaExceededError, …) so errors.As reads as what
// happened; each wrapper unwraps to its *APIError, so errors.As(err, &apiError) always works.
package cairn

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Taxonomy names an API error's family, for code that prefers a string to a type.
type Taxonomy string

const (
	TaxonomyNone               Taxonomy = ""
	TaxonomyQuotaExceeded      Taxonomy = "quota_exceeded"
	TaxonomyCapabilityDenied   Taxonomy = "capability_denied"
	TaxonomyEgressDenied       Taxonomy = "egress_denied"
	TaxonomySandboxNotReady    Taxonomy = "sandbox_not_ready"
	TaxonomyServiceUnavailable Taxonomy = "service_unavailable"
)

// TaxonomyOf is the family of an error code: quotas and capacity, refusals, server trouble.
func TaxonomyOf(code string, statusCode int) Taxonomy {
	switch {
	case strings.HasSuffix(code, "_limit_reached"), strings.HasSuffix(code, "_capacity_reached"):
		return TaxonomyQuotaExceeded
	case code == "command_not_allowed", code == "path_outside_sandbox":
		return TaxonomyCapabilityDenied
	case code == "egress_denied":
		return TaxonomyEgressDenied
	case code == "sandbox_not_ready":
		return TaxonomySandboxNotReady
	case code == "service_unavailable", statusCode >= 500:
		return TaxonomyServiceUnavailable
	}
	return TaxonomyNone
}

// APIError is the server's refusal: a non-2xx answer and its error envelope.
type APIError struct {
	StatusCode int
	// Code is the envelope's error.code ("error" when the body has none).
	Code string
	// Message is the envelope's error.message ("HTTP <status>" when the body has none).
	Message string
	// Retryable is as the server says; without it, true exactly for 5xx.
	Retryable   bool
	Remediation string
	// Details is the envelope's error.details as decoded JSON (nil when absent).
	Details  any
	Taxonomy Taxonomy
	// RetryAfter is the server's Retry-After (seconds or an HTTP date); zero when absent.
	RetryAfter time.Duration
	// RequestID is the server's X-Request-ID, for support and logs.
	RequestID string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("cairn: %s [%s] (HTTP %d)", e.Message, e.Code, e.StatusCode)
}

// ConnectionError means no answer came: the network failed, or the timeout passed first.
type ConnectionError struct {
	Method string
	Path   string
	Err    error
}

func (e *ConnectionError) Error() string {
	return fmt.Sprintf("cairn: %s %s failed: %v", e.Method, e.Path, e.Err)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

// QuotaExceededError: a *_limit_reached or *_capacity_reached refusal (429).
type QuotaExceededError struct{ *APIError }

// CapabilityDeniedError: command_not_allowed or path_outside_sandbox (403).
type CapabilityDeniedError struct{ *APIError }

// EgressDeniedError: the sandbox may not reach that host (403 egress_denied).
type EgressDeniedError struct{ *APIError }

// SandboxNotReadyError: the sandbox cannot take the call yet.
type SandboxNotReadyError struct{ *APIError }

// ServiceUnavailableError: service_unavailable, and every other 5xx.
type ServiceUnavailableError struct{ *APIError }

func (e *QuotaExceededError) Unwrap() error      { return e.APIError }
func (e *CapabilityDeniedError) Unwrap() error   { return e.APIError }
func (e *EgressDeniedError) Unwrap() error       { return e.APIError }
func (e *SandboxNotReadyError) Unwrap() error    { return e.APIError }
func (e *ServiceUnavailableError) Unwrap() error { return e.APIError }

// wrap returns the API error in its family's type, or as it is.
func (e *APIError) wrap() error {
	switch e.Taxonomy {
	case TaxonomyQuotaExceeded:
		return &QuotaExceededError{e}
	case TaxonomyCapabilityDenied:
		return &CapabilityDeniedError{e}
	case TaxonomyEgressDenied:
		return &EgressDeniedError{e}
	case TaxonomySandboxNotReady:
		return &SandboxNotReadyError{e}
	case TaxonomyServiceUnavailable:
		return &ServiceUnavailableError{e}
	}
	return e
}

// ParseRetryAfter reads a Retry-After value, delta-seconds or an HTTP date, as a wait from now.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	text := strings.TrimSpace(value)
	if text == "" {
		return 0, false
	}
	if seconds, err := strconv.ParseUint(text, 10, 32); err == nil {
		return time.Duration(seconds) * time.Second, true
	}
	date, err := http.ParseTime(text)
	if err != nil {
		return 0, false
	}
	return max(date.Sub(now), 0), true
}

type errorEnvelope struct {
	Error *struct {
		Code        *string `json:"code"`
		Message     *string `json:"message"`
		Retryable   *bool   `json:"retryable"`
		Remediation *string `json:"remediation"`
		Details     any     `json:"details"`
	} `json:"error"`
}

// ParseAPIError builds the *APIError for a non-2xx answer (CONTRACT §7's parsing): the body's
// error.code and error.message when present, else "error" and "HTTP <status>"; retryable as
// the server says, else true exactly for 5xx. A body that is not the envelope (a proxy's HTML
// page) yields those defaults.
func ParseAPIError(statusCode int, header http.Header, body []byte) *APIError {
	apiError := &APIError{
		StatusCode: statusCode,
		Code:       "error",
		Message:    fmt.Sprintf("HTTP %d", statusCode),
		Retryable:  statusCode >= 500,
		RequestID:  header.Get("X-Request-ID"),
	}
	var envelope errorEnvelope
	if json.Unmarshal(body, &envelope) == nil && envelope.Error != nil {
		fields := envelope.Error
		if fields.Code != nil && *fields.Code != "" {
			apiError.Code = *fields.Code
		}
		if fields.Message != nil && *fields.Message != "" {
			apiError.Message = *fields.Message
		}
		if fields.Retryable != nil {
			apiError.Retryable = *fields.Retryable
		}
		if fields.Remediation != nil {
			apiError.Remediation = *fields.Remediation
		}
		apiError.Details = fields.Details
	}
	apiError.RetryAfter, _ = ParseRetryAfter(header.Get("Retry-After"), time.Now())
	apiError.Taxonomy = TaxonomyOf(apiError.Code, statusCode)
	return apiError
}
