package webhooks

import (
	"context"
	"time"
)

// Store persists endpoints, the outbox, the delivery log, the
// dispatcher's cursor and the delivery leases. Both engines implement it
// (migration 0021). Methods addressing one row return an error wrapping
// storage.ErrNotFound when it does not exist.
type Store interface {
	// CreateWebhook stores a new endpoint.
	CreateWebhook(ctx context.Context, e Endpoint) error
	// Webhook reads one endpoint.
	Webhook(ctx context.Context, id string) (Endpoint, error)
	// Webhooks lists a project's endpoints by creation, or every endpoint
	// when projectID is "".
	Webhooks(ctx context.Context, projectID string) ([]Endpoint, error)
	// UpdateWebhook replaces an endpoint's URL, events, filters, secret,
	// enabled flag and UpdatedAt; resetCross also clears its cross state
	// (otherwise the state the dispatcher keeps is left as it is).
	UpdateWebhook(ctx context.Context, e Endpoint, resetCross bool) error
	// DeleteWebhook removes an endpoint with its deliveries and attempts.
	DeleteWebhook(ctx context.Context, id string) error

	// WebhookCursor reads the dispatcher's stored cursor into the event
	// log (false: none yet).
	WebhookCursor(ctx context.Context) (uint64, bool, error)
	// EnqueueWebhookDeliveries stores ds (a delivery whose ID exists is
	// left as it is), the endpoints' new cross states and the cursor, in
	// one transaction.
	EnqueueWebhookDeliveries(ctx context.Context, cursor uint64, ds []Delivery, crossStates map[string]string) error
	// DueWebhookEndpoints lists enabled endpoints with a pending delivery
	// due at now, longest overdue first, at most limit.
	DueWebhookEndpoints(ctx context.Context, now time.Time, limit int) ([]string, error)
	// DueWebhookDeliveries lists an endpoint's pending deliveries due at
	// now, oldest event first, at most limit.
	DueWebhookDeliveries(ctx context.Context, endpointID string, now time.Time, limit int) ([]Delivery, error)
	// RecordWebhookAttempt appends a to the delivery log and stores d's
	// new status, attempts, next and last attempt times, in one
	// transaction.
	RecordWebhookAttempt(ctx context.Context, d Delivery, a Attempt) error
	// WebhookDelivery reads one delivery.
	WebhookDelivery(ctx context.Context, id string) (Delivery, error)
	// WebhookAttempts lists an endpoint's attempts at or after since,
	// newest first, at most limit.
	WebhookAttempts(ctx context.Context, endpointID string, since time.Time, limit int) ([]Attempt, error)
	// RedeliverWebhook makes a delivery pending again, due at now, with a
	// fresh retry window starting at now (its ID is kept).
	RedeliverWebhook(ctx context.Context, id string, now time.Time) error
	// PruneWebhookLog deletes attempts before before and finished
	// (delivered or failed) deliveries last attempted before it.
	PruneWebhookLog(ctx context.Context, before time.Time) (int64, error)
	// WebhookBacklog counts pending deliveries.
	WebhookBacklog(ctx context.Context) (int64, error)
	// AcquireWebhookLease takes or renews the lease name for holder until
	// `until` when it is free, expired at now, or already holder's;
	// it reports whether holder holds it.
	AcquireWebhookLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
	// ReleaseWebhookLease gives up holder's lease (no-op otherwise).
	ReleaseWebhookLease(ctx context.Context, name, holder string) error
}
