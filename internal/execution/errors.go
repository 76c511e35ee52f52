package execution

import (
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/asset"
)

// Errors of the execution service. internal/httpapi maps each to its
// status, `_tag` and details (docs/execution.md).

// ErrAdvisoriesUnavailable is the fail-closed answer while the advisory
// index has not loaded: execution refuses until it has.
var ErrAdvisoriesUnavailable = errors.New("advisories are not loaded yet: execution endpoints refuse until they are; retry")

// ParamError is an invalid request parameter.
type ParamError struct {
	Param   string // the query parameter at fault
	Message string // safe to show
}

func (e *ParamError) Error() string { return e.Message }

func paramError(param, format string, args ...any) *ParamError {
	return &ParamError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// NotFoundError is an asset or mint the service does not know or cannot
// trade (unknown, no Solana variant, unsupported mint).
type NotFoundError struct {
	Message string // safe to show
}

func (e *NotFoundError) Error() string { return e.Message }

func notFound(format string, args ...any) *NotFoundError {
	return &NotFoundError{Message: fmt.Sprintf(format, args...)}
}

// AdvisoryError refuses a mint whose advisory restricts trading.
type AdvisoryError struct {
	Mint     string
	Advisory *asset.Advisory
}

func (e *AdvisoryError) Error() string {
	return fmt.Sprintf("This mint has been flagged as %s and cannot be traded", e.Advisory.Status)
}

// Code is the refusal's details.code: AdvisoryCode of the advisory.
func (e *AdvisoryError) Code() string { return AdvisoryCode(e.Advisory) }
