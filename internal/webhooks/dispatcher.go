package webhooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/events"
)

// Log is what the dispatcher reads of the event log (events.Memory and
// the durable logs).
type Log interface {
	// Since returns up to limit events after the cursor, oldest first;
	// events.ErrExpired when the cursor fell out of the window.
	Since(ctx context.Context, after uint64, limit int) ([]events.Event, error)
	// Wait blocks until an event after the cursor exists or ctx ends.
	Wait(ctx context.Context, after uint64) error
}

// lastReader is the optional part of a log that tells its newest ID: a
// fresh dispatcher starts there, and a cursor beyond it (an in-memory log
// that restarted) or out of the window moves to it.
type lastReader interface{ Last() uint64 }

// Metrics hears deliveries (internal/metrics implements it).
type Metrics interface {
	// WebhookAttempt counts one attempt by outcome (delivered, failed,
	// refused).
	WebhookAttempt(outcome string)
	// WebhookExpired counts a delivery given up after the retry window.
	WebhookExpired()
	// WebhookBacklog sets the number of pending deliveries.
	WebhookBacklog(n int64)
}

type noMetrics struct{}

func (noMetrics) WebhookAttempt(string) {}
func (noMetrics) WebhookExpired()       {}
func (noMetrics) WebhookBacklog(int64)  {}

// Config configures a Dispatcher. Store and Log are required.
type Config struct {
	Store Store
	Log   Log
	// Guard checks targets (nil: public addresses only, system resolver).
	Guard *Guard
	// Client sends deliveries (nil: the guard's client). A test client
	// must dial through the guard to exercise it.
	Client *http.Client
	// Now is the clock (nil: time.Now); Jitter returns values in [0, 1)
	// (nil: math/rand/v2).
	Now    func() time.Time
	Jitter func() float64
	// Holder names this replica in leases (default: a random id).
	Holder  string
	Logger  *slog.Logger
	Metrics Metrics
	// LeaseTTL bounds how long a stopped replica keeps an endpoint
	// (default 30 s).
	LeaseTTL time.Duration
	// BaseDelay is the first retry delay (default 5 s), doubling per
	// attempt up to MaxDelay (default 1 h); each is jittered to between
	// half and all of itself. RetryWindow (default 24 h) after the
	// delivery was queued, the last attempt is made and a failure marks
	// it failed.
	BaseDelay, MaxDelay, RetryWindow time.Duration
	// Timeout bounds one attempt (default 15 s).
	Timeout time.Duration
	// Interval is the pass period when no event arrives (default 1 s).
	Interval time.Duration
	// Batch is the events read per fan-out step (default 500).
	Batch int
	// Parallel endpoints delivered at once per pass (default 8).
	Parallel int
	// Turn bounds the time one endpoint's deliveries take in a pass: no
	// attempt starts after it (default 5 s), so a slow receiver delays
	// the next pass by at most Turn plus one Timeout.
	Turn time.Duration
}

// Dispatcher fans events out to matching endpoints' outboxes and
// delivers them. One per replica; leases in the store let exactly one
// replica fan out and one deliver a given endpoint at a time.
type Dispatcher struct {
	cfg       Config
	log       *slog.Logger
	met       Metrics
	lastPrune time.Time
	// more says the last pass left due deliveries it could have sent (a
	// full batch or a turn cut short): Run passes again at once.
	more atomic.Bool
}

// Lease names.
const (
	leaseFanout   = "fanout"
	leaseEndpoint = "endpoint:"
)

// NewDispatcher returns a dispatcher; Run starts it.
func NewDispatcher(cfg Config) (*Dispatcher, error) {
	if cfg.Store == nil || cfg.Log == nil {
		return nil, errors.New("webhooks: dispatcher needs a store and an event log")
	}
	if cfg.Guard == nil {
		cfg.Guard = &Guard{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Jitter == nil {
		cfg.Jitter = rand.Float64
	}
	if cfg.Holder == "" {
		id, err := newID("r_")
		if err != nil {
			return nil, err
		}
		cfg.Holder = id
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.LeaseTTL, 30*time.Second)
	def(&cfg.BaseDelay, 5*time.Second)
	def(&cfg.MaxDelay, time.Hour)
	def(&cfg.RetryWindow, 24*time.Hour)
	def(&cfg.Timeout, 15*time.Second)
	def(&cfg.Interval, time.Second)
	def(&cfg.Turn, 5*time.Second)
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	if cfg.Client == nil {
		cfg.Client = cfg.Guard.Client(cfg.Timeout, nil)
	}
	d := &Dispatcher{cfg: cfg, log: cfg.Logger, met: cfg.Metrics}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.met == nil {
		d.met = noMetrics{}
	}
	return d, nil
}

// Run makes a pass on every new event and every Interval until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	for {
		seen, err := d.RunOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			d.log.WarnContext(ctx, "webhook dispatcher pass failed", "err", err)
		}
		if d.more.Load() {
			continue // a backlog is draining: no wait
		}
		wctx, cancel := context.WithTimeout(ctx, d.cfg.Interval)
		if seen > 0 {
			_ = d.cfg.Log.Wait(wctx, seen) // returns on a new event or the interval
		} else {
			<-wctx.Done()
		}
		cancel()
	}
}

// RunOnce makes one pass at the clock's now: fans new events out (when
// this replica holds the fan-out lease), delivers the due deliveries of
// the endpoints it can lease, prunes the log hourly and updates the
// backlog. It returns the cursor it fanned out to, which Run waits past
// (0: not the fan-out holder, or nothing read yet).
func (d *Dispatcher) RunOnce(ctx context.Context) (uint64, error) {
	seen, ferr := d.fanout(ctx)
	derr := d.deliverDue(ctx)
	now := d.cfg.Now()
	if now.Sub(d.lastPrune) >= time.Hour {
		if _, err := d.cfg.Store.PruneWebhookLog(ctx, now.Add(-LogRetention)); err != nil {
			derr = errors.Join(derr, fmt.Errorf("prune: %w", err))
		} else {
			d.lastPrune = now
		}
	}
	if n, err := d.cfg.Store.WebhookBacklog(ctx); err == nil {
		d.met.WebhookBacklog(n)
	}
	return seen, errors.Join(ferr, derr)
}

// fanout moves the stored cursor over new events, queueing a delivery per
// matching endpoint in the same transaction.
func (d *Dispatcher) fanout(ctx context.Context) (uint64, error) {
	st := d.cfg.Store
	lr, hasLast := d.cfg.Log.(lastReader)
	cursor, found, err := st.WebhookCursor(ctx)
	if err != nil {
		return 0, fmt.Errorf("webhooks: cursor: %w", err)
	}
	if found && hasLast && cursor == lr.Last() {
		return cursor, nil // nothing new: no lease write on an idle pass
	}
	now := d.cfg.Now()
	ok, err := st.AcquireWebhookLease(ctx, leaseFanout, d.cfg.Holder, now, now.Add(d.cfg.LeaseTTL))
	if err != nil || !ok {
		return 0, err
	}
	// Read again under the lease: the previous holder may have moved it.
	if cursor, found, err = st.WebhookCursor(ctx); err != nil {
		return 0, fmt.Errorf("webhooks: cursor: %w", err)
	}
	switch {
	case !found:
		if hasLast {
			cursor = lr.Last() // a new install starts at the present
		}
		if err := st.EnqueueWebhookDeliveries(ctx, cursor, nil, nil); err != nil {
			return 0, fmt.Errorf("webhooks: cursor: %w", err)
		}
	case hasLast && cursor > lr.Last():
		// An in-memory log restarted: its IDs begin again.
		d.log.WarnContext(ctx, "webhook cursor is ahead of the event log (log restarted); reading it from its start", "cursor", cursor, "last", lr.Last())
		cursor = 0
	}
	var eps []Endpoint
	for range 8 { // at most 8 batches per pass
		evs, err := d.cfg.Log.Since(ctx, cursor, d.cfg.Batch)
		if errors.Is(err, events.ErrExpired) && hasLast {
			last := lr.Last()
			d.log.ErrorContext(ctx, "webhook cursor fell out of the event log's window; events in between are not delivered", "cursor", cursor, "resumeAt", last)
			cursor = last
			if err := st.EnqueueWebhookDeliveries(ctx, cursor, nil, nil); err != nil {
				return 0, fmt.Errorf("webhooks: cursor: %w", err)
			}
			continue
		}
		if err != nil {
			return cursor, fmt.Errorf("webhooks: read events after %d: %w", cursor, err)
		}
		if len(evs) == 0 {
			break
		}
		if eps == nil {
			if eps, err = st.Webhooks(ctx, ""); err != nil {
				return cursor, fmt.Errorf("webhooks: endpoints: %w", err)
			}
		}
		var ds []Delivery
		states := map[string]string{}
		for _, ev := range evs {
			for i := range eps {
				dl, state, ok := match(&eps[i], ev, now)
				if state != eps[i].CrossState {
					eps[i].CrossState = state
					states[eps[i].ID] = state
				}
				if ok {
					ds = append(ds, dl)
				}
			}
		}
		next := evs[len(evs)-1].ID
		if err := st.EnqueueWebhookDeliveries(ctx, next, ds, states); err != nil {
			return cursor, fmt.Errorf("webhooks: enqueue through %d: %w", next, err)
		}
		cursor = next
		if len(evs) < d.cfg.Batch {
			break
		}
	}
	return cursor, nil
}

// DeliveryID is the webhook-id of event ev for endpoint endpointID:
// derived from both (and the event's time, which tells apart the IDs of
// an in-memory log that restarted), so it is the same however often the
// event is fanned out or attempted.
func DeliveryID(endpointID string, eventID uint64, at time.Time) string {
	h := sha256.New()
	h.Write([]byte(endpointID))
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], eventID)
	binary.BigEndian.PutUint64(b[8:], uint64(at.UnixNano()))
	h.Write(b[:])
	return "msg_" + strings.ToLower(idEnc.EncodeToString(h.Sum(nil)[:20]))
}

// payload is a delivery's body (Standard Webhooks' type/timestamp/data).
type payload struct {
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	EventID   uint64          `json:"eventId"`
	Topic     string          `json:"topic"`
	Data      json.RawMessage `json:"data"`
	// PriceCross is the filter that fired (price events).
	PriceCross *PriceCross `json:"priceCross,omitempty"`
}

// priceData is what a price event's data must hold for price_cross:
// the mint and its USD price (priceUsd; price is read when it is absent).
type priceData struct {
	Mint     string   `json:"mint"`
	PriceUSD *float64 `json:"priceUsd"`
	Price    *float64 `json:"price"`
}

func (p priceData) usd() *float64 {
	if p.PriceUSD != nil {
		return p.PriceUSD
	}
	return p.Price
}

type mintData struct {
	Mint string `json:"mint"`
}

// match decides whether ev goes to e and returns the delivery and e's
// new cross state.
func match(e *Endpoint, ev events.Event, now time.Time) (Delivery, string, bool) {
	state := e.CrossState
	if !e.Enabled || ev.Time.Before(e.CreatedAt) || !slices.Contains(e.Events, ev.Type) {
		return Delivery{}, state, false
	}
	p := payload{Type: ev.Type, Timestamp: ev.Time.UTC().Format(time.RFC3339Nano), EventID: ev.ID, Topic: ev.Topic, Data: ev.Data}
	if len(p.Data) == 0 {
		p.Data = json.RawMessage("{}")
	}
	f := e.Filters
	switch ev.Type {
	case EventPrice:
		pc := f.PriceCross
		var pd priceData
		if pc == nil || state == "spent" || json.Unmarshal(ev.Data, &pd) != nil || pd.Mint != pc.Mint || pd.usd() == nil {
			return Delivery{}, state, false
		}
		price := *pd.usd()
		met := price >= pc.Value
		if pc.Direction == Below {
			met = price <= pc.Value
		}
		prev := state
		state = "unmet"
		if met {
			state = "met"
		}
		if prev != "unmet" || !met {
			return Delivery{}, state, false
		}
		if pc.Mode == Once {
			state = "spent"
		}
		p.PriceCross = pc
	case EventAdvisory:
		if a := f.Advisory; a != nil && len(a.Mints) > 0 {
			var md mintData
			if json.Unmarshal(ev.Data, &md) != nil || !slices.Contains(a.Mints, md.Mint) {
				return Delivery{}, state, false
			}
		}
	case EventList:
		if l := f.List; l != nil && ev.Topic != "list:"+l.Slug {
			return Delivery{}, state, false
		}
	}
	body, err := json.Marshal(p)
	if err != nil {
		return Delivery{}, state, false
	}
	now = now.UTC().Truncate(time.Millisecond)
	return Delivery{ID: DeliveryID(e.ID, ev.ID, ev.Time), EndpointID: e.ID, EventID: ev.ID, EventType: ev.Type,
		Payload: body, Status: StatusPending, CreatedAt: now, WindowStart: now, NextAt: now}, state, true
}

// deliverDue attempts the due deliveries of every endpoint this replica
// can lease.
func (d *Dispatcher) deliverDue(ctx context.Context) error {
	d.more.Store(false)
	ids, err := d.cfg.Store.DueWebhookEndpoints(ctx, d.cfg.Now(), 256)
	if err != nil {
		return fmt.Errorf("webhooks: due endpoints: %w", err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, d.cfg.Parallel)
	)
	for _, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := d.deliverEndpoint(ctx, id); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (d *Dispatcher) lease(ctx context.Context, id string) (bool, error) {
	now := d.cfg.Now()
	return d.cfg.Store.AcquireWebhookLease(ctx, leaseEndpoint+id, d.cfg.Holder, now, now.Add(d.cfg.LeaseTTL))
}

// deliverEndpoint sends endpoint id's due deliveries in order while it
// holds the endpoint's lease, for at most Turn; the first failure ends its
// turn (the rest stay due for the next pass), so a receiver that is down
// gets one attempt per pass.
func (d *Dispatcher) deliverEndpoint(ctx context.Context, id string) error {
	st := d.cfg.Store
	e, err := st.Webhook(ctx, id)
	if err != nil {
		return fmt.Errorf("webhooks: endpoint %s: %w", id, err)
	}
	due, err := st.DueWebhookDeliveries(ctx, id, d.cfg.Now(), batchPerTurn)
	if err != nil {
		return fmt.Errorf("webhooks: due deliveries of %s: %w", id, err)
	}
	start := time.Now() // real time: the turn bounds wall-clock work
	sent := 0
	defer func() {
		if sent == batchPerTurn || sent < len(due) && time.Since(start) > d.cfg.Turn {
			d.more.Store(true)
		}
	}()
	for _, dl := range due {
		if time.Since(start) > d.cfg.Turn {
			break
		}
		ok, err := d.lease(ctx, id)
		if err != nil || !ok {
			return err
		}
		outcome, err := d.attempt(ctx, e, dl)
		if err != nil {
			return err
		}
		if outcome != OutcomeDelivered {
			break
		}
		sent++
	}
	return nil
}

// batchPerTurn is the due deliveries one endpoint's turn reads.
const batchPerTurn = 32

// Backoff is the delay after the n-th failed attempt (n ≥ 1) before
// jitter: BaseDelay·2^(n-1), at most MaxDelay.
func (d *Dispatcher) Backoff(n int) time.Duration {
	delay := d.cfg.BaseDelay
	for i := 1; i < n && delay < d.cfg.MaxDelay; i++ {
		delay *= 2
	}
	return min(delay, d.cfg.MaxDelay)
}

// attempt sends dl once and records the attempt.
func (d *Dispatcher) attempt(ctx context.Context, e Endpoint, dl Delivery) (string, error) {
	now := d.cfg.Now().UTC().Truncate(time.Millisecond)
	a := Attempt{DeliveryID: dl.ID, EndpointID: e.ID, EventID: dl.EventID, EventType: dl.EventType, Attempt: dl.Attempts + 1, At: now}
	start := time.Now()
	code, err := d.send(ctx, e, dl, now)
	a.LatencyMS = time.Since(start).Milliseconds()
	a.ResponseCode = code
	switch {
	case err == nil && code >= 200 && code < 300:
		a.Outcome = OutcomeDelivered
	case errors.Is(err, ErrNotPublic):
		a.Outcome, a.Error = OutcomeRefused, err.Error()
	case err != nil:
		a.Outcome, a.Error = OutcomeFailed, err.Error()
	default:
		a.Outcome, a.Error = OutcomeFailed, fmt.Sprintf("response status %d", code)
	}
	if len(a.Error) > 512 {
		a.Error = a.Error[:512]
	}
	dl.Attempts++
	dl.LastAt = now
	if a.Outcome == OutcomeDelivered {
		dl.Status = StatusDelivered
	} else {
		end := dl.WindowStart.Add(d.cfg.RetryWindow)
		delay := d.Backoff(dl.Attempts)
		delay = delay/2 + time.Duration(d.cfg.Jitter()*float64(delay/2))
		next := now.Add(delay)
		switch {
		case !now.Before(end):
			dl.Status = StatusFailed
		case next.After(end):
			dl.NextAt = end // the last attempt is at the window's end
		default:
			dl.NextAt = next
		}
	}
	if err := d.cfg.Store.RecordWebhookAttempt(ctx, dl, a); err != nil {
		return a.Outcome, fmt.Errorf("webhooks: record attempt of %s: %w", dl.ID, err)
	}
	d.met.WebhookAttempt(a.Outcome)
	if dl.Status == StatusFailed {
		d.met.WebhookExpired()
		d.log.WarnContext(ctx, "webhook delivery failed for good after the retry window", "webhook", e.ID, "delivery", dl.ID, "attempts", dl.Attempts)
	}
	return a.Outcome, nil
}

// send posts the delivery and returns the response status.
func (d *Dispatcher) send(ctx context.Context, e Endpoint, dl Delivery, now time.Time) (int, error) {
	sig, err := Sign(e.Secret, dl.ID, now, dl.Payload)
	if err != nil {
		return 0, err
	}
	if err := d.cfg.Guard.checkScheme(e.URL); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(dl.Payload))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "assetd-webhooks/1")
	req.Header.Set(HeaderID, dl.ID)
	req.Header.Set(HeaderTimestamp, fmt.Sprint(now.Unix()))
	req.Header.Set(HeaderSignature, sig)
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
