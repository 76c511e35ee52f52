package execution

import (
	"context"
	"errors"
	"fmt"
	"math/big"
)

// Unavailable reasons of a provider quote or a quote row.
const (
	ReasonNoRoute   = "no_route"
	ReasonTimeout   = "timeout"
	ReasonAuth      = "auth"
	ReasonMalformed = "malformed"
	ReasonError     = "error"
)

// QuoteRequest is one exact-in quote: Amount raw units of InputMint.
type QuoteRequest struct {
	InputMint, OutputMint string
	Amount                *big.Int
}

// Hop is one step of a provider's route.
type Hop struct {
	AmmKey       string  `json:"ammKey"`
	Label        string  `json:"label"`
	Percent      float64 `json:"percent"`
	InputMint    string  `json:"inputMint"`
	OutputMint   string  `json:"outputMint"`
	InAmountRaw  string  `json:"inAmountRaw"`
	OutAmountRaw string  `json:"outAmountRaw"`
	FeeAmountRaw *string `json:"feeAmountRaw"`
	FeeMint      *string `json:"feeMint"`
}

// Quote is a provider's answer to a QuoteRequest.
type Quote struct {
	InAmount, OutAmount *big.Int
	// PriceImpact is the magnitude of the provider's price impact as a
	// ratio (0.0123 = 1.23 %), nil when the provider gives none.
	PriceImpact *float64
	Route       []Hop
	Router      string // "" when the provider does not say
	Mode        string
	FeeBps      *int
	FeeMint     string
	ContextSlot *int64
}

// Provider quotes swaps. Implementations must honour ctx; the fan-out does
// not wait for one that does not.
type Provider interface {
	// ID is the provider id of requests and responses.
	ID() string
	// Quote returns an exact-in quote or an error; wrap one of the
	// Err* values (or return an *UnavailableError) to name the reason.
	Quote(ctx context.Context, req QuoteRequest) (Quote, error)
}

// UnavailableError is a provider failure with its reason.
type UnavailableError struct {
	Reason string
	Err    error
}

func (e *UnavailableError) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Unavailable returns an *UnavailableError with a formatted cause.
func Unavailable(reason, format string, args ...any) error {
	return &UnavailableError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// ErrNoRoute is what a provider returns when it has no route.
var ErrNoRoute = &UnavailableError{Reason: ReasonNoRoute}

// ReasonOf maps a provider error to an unavailable reason.
func ReasonOf(err error) string {
	var u *UnavailableError
	switch {
	case errors.As(err, &u):
		return u.Reason
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return ReasonTimeout
	}
	return ReasonError
}
