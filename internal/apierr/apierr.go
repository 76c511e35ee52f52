// Package apierr defines the service's error kinds and the mapping from a
// kind to the HTTP status and the spec's `_tag`. Handlers return *Error
// values (or any error, which becomes an internal error); one adapter in the
// HTTP package renders them as the spec's envelope. The public message is
// kept apart from the cause, which is only logged.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Kind classifies an error. Each kind has exactly one status and tag.
type Kind int

// Error kinds. The zero value is Internal.
const (
	Internal            Kind = iota // 500 InternalServerError (our stable tag; the spec leaves it open)
	BadRequest                      // 400 BadRequestError
	Unauthorized                    // 401 UnauthorizedError (API key)
	SessionUnauthorized             // 401 Unauthorized (whoami sessions, per the spec)
	Forbidden                       // 403 ForbiddenError
	AssetAdvisory                   // 403 AssetAdvisoryError
	NotFound                        // 404 NotFoundError
	MethodNotAllowed                // 405 BadRequestError, details.code method_not_allowed
	PayloadTooLarge                 // 413 BadRequestError, details.code body_too_large
	RateLimited                     // 429 RateLimitedError
	Unavailable                     // 503 InternalServerError: a dependency is not ready; retry (message and details shown)
)

// TagInternal is the `_tag` of every 5xx response.
const TagInternal = "InternalServerError"

var kinds = [...]struct {
	status int
	tag    string
}{
	Internal:            {http.StatusInternalServerError, TagInternal},
	BadRequest:          {http.StatusBadRequest, "BadRequestError"},
	Unauthorized:        {http.StatusUnauthorized, "UnauthorizedError"},
	SessionUnauthorized: {http.StatusUnauthorized, "Unauthorized"},
	Forbidden:           {http.StatusForbidden, "ForbiddenError"},
	AssetAdvisory:       {http.StatusForbidden, "AssetAdvisoryError"},
	NotFound:            {http.StatusNotFound, "NotFoundError"},
	MethodNotAllowed:    {http.StatusMethodNotAllowed, "BadRequestError"},
	PayloadTooLarge:     {http.StatusRequestEntityTooLarge, "BadRequestError"},
	RateLimited:         {http.StatusTooManyRequests, "RateLimitedError"},
	Unavailable:         {http.StatusServiceUnavailable, TagInternal},
}

// Status is the HTTP status of a kind.
func (k Kind) Status() int { return kinds[k].status }

// Tag is the envelope `_tag` of a kind.
func (k Kind) Tag() string { return kinds[k].tag }

// Error is an API error: a kind, a message safe to show, optional details
// (a string, or an object with a stable `code`), and an optional cause that
// is logged but never shown.
type Error struct {
	Kind    Kind
	Message string
	Details any
	Cause   error
	// RetryAfter is when a RateLimited request may be retried; the
	// response's Retry-After header says it (at least 1 s).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind.Tag(), e.Message, e.Cause)
	}
	return e.Kind.Tag() + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// Details with a stable code, the common object form.
type Details map[string]any

// New returns an error of kind k with a public message.
func New(k Kind, msg string) *Error { return &Error{Kind: k, Message: msg} }

// Newf is New with formatting.
func Newf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// WithRetryAfter returns e with its retry delay set.
func (e *Error) WithRetryAfter(d time.Duration) *Error { e.RetryAfter = d; return e }

// WithDetails returns e with details attached.
func (e *Error) WithDetails(d any) *Error { e.Details = d; return e }

// BadRequestCode is a 400 with details {"code": code} plus extra fields.
func BadRequestCode(code, msg string, extra Details) *Error {
	d := Details{"code": code}
	for k, v := range extra {
		d[k] = v
	}
	return &Error{Kind: BadRequest, Message: msg, Details: d}
}

// Wrap returns an internal error with a cause; its message is generic.
func Wrap(cause error) *Error {
	return &Error{Kind: Internal, Message: "internal server error", Cause: cause}
}

// From converts any error to *Error: an *Error in the chain is returned as
// is; anything else is an internal error carrying it as cause.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(err)
}
