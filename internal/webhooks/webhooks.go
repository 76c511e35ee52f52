// Package webhooks is assetd's signed webhook delivery: endpoints owned by
// a project (URL, event types, filters, a Standard Webhooks secret), the
// SSRF guard that keeps targets on public addresses, and the dispatcher
// that reads the event log (internal/events), writes matching deliveries
// to an outbox in the store and delivers them with retries, at least once,
// one replica per endpoint at a time (docs/webhooks.md).
package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/registry"
)

// Event types an endpoint may subscribe to (the event log's types).
const (
	EventPrice    = "price"
	EventAdvisory = "advisory"
	EventList     = "list"
	EventTrending = "trending"
	EventDepeg    = "depeg"
)

// EventTypes lists every subscribable type.
var EventTypes = []string{EventPrice, EventAdvisory, EventList, EventTrending, EventDepeg}

// Price-cross directions and modes.
const (
	Above = "above"
	Below = "below"
	Once  = "once"
	Every = "every"
)

// Delivery states.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// Attempt outcomes (also the metric's outcome label).
const (
	OutcomeDelivered = "delivered" // 2xx
	OutcomeFailed    = "failed"    // non-2xx, timeout or network error
	OutcomeRefused   = "refused"   // the target resolved to a non-public address
)

// Limits of one endpoint.
const (
	MaxURLLength     = 2048
	MaxAdvisoryMints = 100
	MaxEndpoints     = 50 // per project
)

// PriceCross fires when a mint's price crosses Value in Direction: from
// below to at-or-above (above), or from above to at-or-below (below).
// Mode once fires a single time; every re-arms when the price goes back.
type PriceCross struct {
	Mint      string  `json:"mint"`
	Direction string  `json:"direction"`
	Value     float64 `json:"value"`
	Mode      string  `json:"mode"`
}

// AdvisoryFilter narrows advisory events to mints (empty: every mint).
type AdvisoryFilter struct {
	Mints []string `json:"mints,omitempty"`
}

// ListFilter narrows list events to one list.
type ListFilter struct {
	Slug string `json:"slug"`
}

// Empty is a filter without parameters (trending, depeg).
type Empty struct{}

// Filters are an endpoint's per-type filters; each is optional except
// price_cross, which a price subscription requires.
type Filters struct {
	PriceCross *PriceCross     `json:"price_cross,omitempty"`
	Advisory   *AdvisoryFilter `json:"advisory,omitempty"`
	List       *ListFilter     `json:"list,omitempty"`
	Trending   *Empty          `json:"trending,omitempty"`
	Depeg      *Empty          `json:"depeg,omitempty"`
}

// Endpoint is one webhook subscription.
type Endpoint struct {
	ID        string
	ProjectID string
	URL       string
	Events    []string
	Filters   Filters
	// Secret is the Standard Webhooks signing secret ("whsec_" + base64).
	Secret  string
	Enabled bool
	// CrossState is the price_cross filter's memory: "" (no price seen),
	// "below", "above", or "spent" (a once filter that fired).
	CrossState string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Delivery is one outbox row: an event to send to an endpoint. Its ID is
// the webhook-id every attempt carries.
type Delivery struct {
	ID         string
	EndpointID string
	EventID    uint64
	EventType  string
	// Payload is the exact body every attempt sends.
	Payload   []byte
	Status    string
	Attempts  int
	CreatedAt time.Time
	// WindowStart starts the retry window (CreatedAt, or the redelivery).
	WindowStart time.Time
	// NextAt is when the next attempt is due (pending only).
	NextAt time.Time
	// LastAt is the last attempt's time (zero: none yet).
	LastAt time.Time
}

// Attempt is one entry of the delivery log.
type Attempt struct {
	DeliveryID   string
	EndpointID   string
	EventID      uint64
	EventType    string
	Attempt      int
	At           time.Time
	Outcome      string
	LatencyMS    int64
	ResponseCode int // 0: no response
	Error        string
}

// InputError is a refused endpoint field: the API answers 400 with Code
// as details.code and Param naming the field.
type InputError struct {
	Code, Param, Message string
}

func (e *InputError) Error() string { return e.Message }

func inputErr(code, param, format string, args ...any) error {
	return &InputError{Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound is returned for an unknown endpoint or delivery, and for
// another project's.
var ErrNotFound = errors.New("webhook not found")

// checkEvents validates and normalises the event list (sorted, unique).
func checkEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, inputErr("events_required", "events", "events must name at least one of %s", strings.Join(EventTypes, ", "))
	}
	out := make([]string, 0, len(events))
	for _, e := range events {
		if !slices.Contains(EventTypes, e) {
			return nil, inputErr("invalid_event", "events", "unknown event type %q: one of %s", e, strings.Join(EventTypes, ", "))
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out, nil
}

// checkFilters validates f against the subscribed events.
func checkFilters(events []string, f Filters) error {
	has := func(t string) bool { return slices.Contains(events, t) }
	type named struct {
		set   bool
		event string
		name  string
	}
	for _, n := range []named{
		{f.PriceCross != nil, EventPrice, "price_cross"},
		{f.Advisory != nil, EventAdvisory, "advisory"},
		{f.List != nil, EventList, "list"},
		{f.Trending != nil, EventTrending, "trending"},
		{f.Depeg != nil, EventDepeg, "depeg"},
	} {
		if n.set && !has(n.event) {
			return inputErr("filter_without_event", "filters."+n.name, "filter %s needs the %q event in events", n.name, n.event)
		}
	}
	if has(EventPrice) && f.PriceCross == nil {
		return inputErr("price_cross_required", "filters.price_cross", "a price subscription needs filters.price_cross {mint, direction, value, mode}")
	}
	if pc := f.PriceCross; pc != nil {
		if !registry.ValidMint(pc.Mint) {
			return inputErr("invalid_mint", "filters.price_cross.mint", "price_cross.mint must be a base58 32-byte token address")
		}
		if pc.Direction != Above && pc.Direction != Below {
			return inputErr("invalid_direction", "filters.price_cross.direction", "price_cross.direction must be above or below")
		}
		if math.IsNaN(pc.Value) || math.IsInf(pc.Value, 0) || pc.Value <= 0 || pc.Value > 1e12 {
			return inputErr("invalid_value", "filters.price_cross.value", "price_cross.value must be a positive USD price up to 1e12")
		}
		if pc.Mode != Once && pc.Mode != Every {
			return inputErr("invalid_mode", "filters.price_cross.mode", "price_cross.mode must be once or every")
		}
	}
	if a := f.Advisory; a != nil {
		if len(a.Mints) > MaxAdvisoryMints {
			return inputErr("too_many_mints", "filters.advisory.mints", "advisory.mints holds at most %d mints", MaxAdvisoryMints)
		}
		for _, m := range a.Mints {
			if !registry.ValidMint(m) {
				return inputErr("invalid_mint", "filters.advisory.mints", "advisory.mints: %q is not a base58 32-byte token address", m)
			}
		}
	}
	if l := f.List; l != nil {
		if s := strings.TrimSpace(l.Slug); s == "" || len(s) > 64 {
			return inputErr("invalid_slug", "filters.list.slug", "list.slug must be a list slug (1..64 characters)")
		}
	}
	return nil
}

// DecodeFilters parses a stored filters document.
func DecodeFilters(b []byte) (Filters, error) {
	var f Filters
	if len(b) == 0 {
		return f, nil
	}
	err := json.Unmarshal(b, &f)
	return f, err
}
