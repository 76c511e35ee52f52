package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/storage"
)

// LogRetention is how long the delivery log keeps attempts.
const LogRetention = 7 * 24 * time.Hour

// Service manages a project's endpoints.
type Service struct {
	store Store
	guard *Guard
	now   func() time.Time
}

// NewService returns the management service. now may be nil (time.Now).
func NewService(st Store, g *Guard, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	if g == nil {
		g = &Guard{}
	}
	return &Service{store: st, guard: g, now: now}
}

// Input is a new endpoint.
type Input struct {
	URL     string
	Events  []string
	Filters Filters
}

// Patch changes an endpoint; nil fields are kept.
type Patch struct {
	URL     *string
	Events  []string // nil: kept
	Filters *Filters
	Enabled *bool
}

var idEnc = base32.StdEncoding.WithPadding(base32.NoPadding)

func newID(prefix string) (string, error) {
	var b [15]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("webhooks: id: %w", err)
	}
	return prefix + strings.ToLower(idEnc.EncodeToString(b[:])), nil
}

func (s *Service) check(ctx context.Context, url string, events []string, f Filters) ([]string, error) {
	if err := s.guard.CheckURL(ctx, url); err != nil {
		return nil, err
	}
	ev, err := checkEvents(events)
	if err != nil {
		return nil, err
	}
	return ev, checkFilters(ev, f)
}

// Create validates in and stores a new enabled endpoint of projectID with
// a fresh secret (the only time the secret is returned besides
// RotateSecret). Refusals are *InputError.
func (s *Service) Create(ctx context.Context, projectID string, in Input) (Endpoint, error) {
	ev, err := s.check(ctx, in.URL, in.Events, in.Filters)
	if err != nil {
		return Endpoint{}, err
	}
	have, err := s.store.Webhooks(ctx, projectID)
	if err != nil {
		return Endpoint{}, fmt.Errorf("webhooks: create: %w", err)
	}
	if len(have) >= MaxEndpoints {
		return Endpoint{}, inputErr("too_many_webhooks", "url", "a project holds at most %d webhooks", MaxEndpoints)
	}
	id, err := newID("wh_")
	if err != nil {
		return Endpoint{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return Endpoint{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	e := Endpoint{ID: id, ProjectID: projectID, URL: in.URL, Events: ev, Filters: in.Filters, Secret: secret,
		Enabled: true, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateWebhook(ctx, e); err != nil {
		return Endpoint{}, fmt.Errorf("webhooks: create: %w", err)
	}
	return e, nil
}

// List returns projectID's endpoints.
func (s *Service) List(ctx context.Context, projectID string) ([]Endpoint, error) {
	out, err := s.store.Webhooks(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("webhooks: list: %w", err)
	}
	return out, nil
}

// Get returns projectID's endpoint id (ErrNotFound for an unknown id or
// another project's).
func (s *Service) Get(ctx context.Context, projectID, id string) (Endpoint, error) {
	e, err := s.store.Webhook(ctx, id)
	if errors.Is(err, storage.ErrNotFound) || err == nil && e.ProjectID != projectID {
		return Endpoint{}, ErrNotFound
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("webhooks: get %s: %w", id, err)
	}
	return e, nil
}

// Update applies p to projectID's endpoint id. A changed price_cross
// filter forgets the price it last saw.
func (s *Service) Update(ctx context.Context, projectID, id string, p Patch) (Endpoint, error) {
	e, err := s.Get(ctx, projectID, id)
	if err != nil {
		return Endpoint{}, err
	}
	url, events, filters := e.URL, e.Events, e.Filters
	if p.URL != nil {
		url = *p.URL
	}
	if p.Events != nil {
		events = p.Events
	}
	if p.Filters != nil {
		filters = *p.Filters
	}
	ev, err := s.check(ctx, url, events, filters)
	if err != nil {
		return Endpoint{}, err
	}
	reset := !samePriceCross(e.Filters.PriceCross, filters.PriceCross)
	if reset {
		e.CrossState = ""
	}
	e.URL, e.Events, e.Filters = url, ev, filters
	if p.Enabled != nil {
		e.Enabled = *p.Enabled
	}
	e.UpdatedAt = s.now().UTC().Truncate(time.Millisecond)
	if err := s.store.UpdateWebhook(ctx, e, reset); err != nil {
		return Endpoint{}, fmt.Errorf("webhooks: update %s: %w", id, err)
	}
	return e, nil
}

func samePriceCross(a, b *PriceCross) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// RotateSecret gives projectID's endpoint id a new secret and returns it.
func (s *Service) RotateSecret(ctx context.Context, projectID, id string) (Endpoint, error) {
	e, err := s.Get(ctx, projectID, id)
	if err != nil {
		return Endpoint{}, err
	}
	if e.Secret, err = NewSecret(); err != nil {
		return Endpoint{}, err
	}
	e.UpdatedAt = s.now().UTC().Truncate(time.Millisecond)
	if err := s.store.UpdateWebhook(ctx, e, false); err != nil {
		return Endpoint{}, fmt.Errorf("webhooks: rotate %s: %w", id, err)
	}
	return e, nil
}

// Delete removes projectID's endpoint id with its outbox and log.
func (s *Service) Delete(ctx context.Context, projectID, id string) error {
	if _, err := s.Get(ctx, projectID, id); err != nil {
		return err
	}
	if err := s.store.DeleteWebhook(ctx, id); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("webhooks: delete %s: %w", id, err)
	}
	return nil
}

// Attempts lists the delivery log of projectID's endpoint id at or after
// since (clamped to the 7-day retention), newest first, at most limit.
func (s *Service) Attempts(ctx context.Context, projectID, id string, since time.Time, limit int) ([]Attempt, error) {
	if _, err := s.Get(ctx, projectID, id); err != nil {
		return nil, err
	}
	if floor := s.now().Add(-LogRetention); since.Before(floor) {
		since = floor
	}
	out, err := s.store.WebhookAttempts(ctx, id, since, limit)
	if err != nil {
		return nil, fmt.Errorf("webhooks: attempts %s: %w", id, err)
	}
	return out, nil
}

// Redeliver queues delivery deliveryID of projectID's endpoint id again,
// due now, with the same webhook-id.
func (s *Service) Redeliver(ctx context.Context, projectID, id, deliveryID string) (Delivery, error) {
	if _, err := s.Get(ctx, projectID, id); err != nil {
		return Delivery{}, err
	}
	d, err := s.store.WebhookDelivery(ctx, deliveryID)
	if errors.Is(err, storage.ErrNotFound) || err == nil && d.EndpointID != id {
		return Delivery{}, ErrNotFound
	}
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: redeliver %s: %w", deliveryID, err)
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	if err := s.store.RedeliverWebhook(ctx, deliveryID, now); err != nil {
		return Delivery{}, fmt.Errorf("webhooks: redeliver %s: %w", deliveryID, err)
	}
	d.Status, d.NextAt = StatusPending, now
	return d, nil
}
