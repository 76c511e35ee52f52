// Package quoteerr maps an upstream call's failure onto the execution
// endpoints' unavailable reasons; the quote adapters (jupiter, titan) share
// it.
package quoteerr

import (
	"context"
	"errors"
	"net/http"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// Classify wraps err in an *execution.UnavailableError: deadline or
// cancellation → timeout, HTTP 401/403 → auth, HTTP 400/404 → no_route,
// undecodable → malformed, anything else (429 and 5xx included) → error.
func Classify(err error) error {
	reason := execution.ReasonError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		reason = execution.ReasonTimeout
	case upstream.IsStatus(err, http.StatusUnauthorized, http.StatusForbidden):
		reason = execution.ReasonAuth
	case upstream.IsStatus(err, http.StatusBadRequest, http.StatusNotFound):
		reason = execution.ReasonNoRoute
	case errors.Is(err, market.ErrMalformed):
		reason = execution.ReasonMalformed
	}
	return &execution.UnavailableError{Reason: reason, Err: err}
}
