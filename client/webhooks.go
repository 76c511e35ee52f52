package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
)

// Webhook management (docs/webhooks.md). Endpoints belong to the key's
// project; deliveries are signed per the Standard Webhooks scheme.

// WebhookFilters are a webhook's per-type filters (nested objects stay
// raw: price_cross {mint, direction, value, mode}, advisory {mints},
// list {slug}, trending {}, depeg {}).
type WebhookFilters struct {
	PriceCross json.RawMessage `json:"price_cross,omitempty"`
	Advisory   json.RawMessage `json:"advisory,omitempty"`
	List       json.RawMessage `json:"list,omitempty"`
	Trending   json.RawMessage `json:"trending,omitempty"`
	Depeg      json.RawMessage `json:"depeg,omitempty"`
}

// Webhook is one endpoint. Secret is set only by CreateWebhook and
// RotateWebhookSecret (the only times it is shown).
type Webhook struct {
	ID        string         `json:"id"`
	URL       string         `json:"url"`
	Events    []string       `json:"events"`
	Filters   WebhookFilters `json:"filters"`
	Enabled   bool           `json:"enabled"`
	CreatedAt int64          `json:"createdAt"` // unix ms
	UpdatedAt int64          `json:"updatedAt"` // unix ms
	Secret    string         `json:"secret,omitempty"`
}

// CreateWebhookRequest is the body of POST /v1/webhooks.
type CreateWebhookRequest struct {
	URL     string          `json:"url"`
	Events  []string        `json:"events"`
	Filters *WebhookFilters `json:"filters,omitempty"`
}

// CreateWebhook calls POST /v1/webhooks: a new endpoint; keep its Secret, it is not shown again.
func (c *Client) CreateWebhook(ctx context.Context, body *CreateWebhookRequest) (*Webhook, error) {
	return call[Webhook](ctx, c, "POST", "/v1/webhooks", nil, body)
}

// ListWebhooksResponse is the body of GET /v1/webhooks.
type ListWebhooksResponse struct {
	Webhooks []Webhook `json:"webhooks"`
}

// ListWebhooks calls GET /v1/webhooks: the project's endpoints.
func (c *Client) ListWebhooks(ctx context.Context) (*ListWebhooksResponse, error) {
	return call[ListWebhooksResponse](ctx, c, "GET", "/v1/webhooks", nil, nil)
}

// GetWebhook calls GET /v1/webhooks/{id}.
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	return call[Webhook](ctx, c, "GET", "/v1/webhooks/"+url.PathEscape(id), nil, nil)
}

// UpdateWebhookRequest is the body of PATCH /v1/webhooks/{id} (nil fields are kept).
type UpdateWebhookRequest struct {
	URL     *string         `json:"url,omitempty"`
	Events  []string        `json:"events,omitempty"`
	Filters *WebhookFilters `json:"filters,omitempty"`
	Enabled *bool           `json:"enabled,omitempty"`
}

// UpdateWebhook calls PATCH /v1/webhooks/{id}.
func (c *Client) UpdateWebhook(ctx context.Context, id string, body *UpdateWebhookRequest) (*Webhook, error) {
	if body == nil {
		body = &UpdateWebhookRequest{}
	}
	return call[Webhook](ctx, c, "PATCH", "/v1/webhooks/"+url.PathEscape(id), nil, body)
}

// DeleteWebhookResponse is the body of DELETE /v1/webhooks/{id}.
type DeleteWebhookResponse struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// DeleteWebhook calls DELETE /v1/webhooks/{id}: the endpoint, its pending deliveries and its log.
func (c *Client) DeleteWebhook(ctx context.Context, id string) (*DeleteWebhookResponse, error) {
	return call[DeleteWebhookResponse](ctx, c, "DELETE", "/v1/webhooks/"+url.PathEscape(id), nil, nil)
}

// RotateWebhookSecret calls POST /v1/webhooks/{id}/secret: a new secret, shown once.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (*Webhook, error) {
	return call[Webhook](ctx, c, "POST", "/v1/webhooks/"+url.PathEscape(id)+"/secret", nil, nil)
}

// WebhookAttempt is one entry of a delivery log.
type WebhookAttempt struct {
	DeliveryID   string  `json:"deliveryId"` // the webhook-id header of every attempt of the delivery
	EventID      uint64  `json:"eventId"`
	EventType    string  `json:"eventType"`
	Attempt      int     `json:"attempt"`
	At           int64   `json:"at"`      // unix ms
	Outcome      string  `json:"outcome"` // delivered, failed or refused
	LatencyMS    int64   `json:"latencyMs"`
	ResponseCode *int    `json:"responseCode"`
	Error        *string `json:"error"`
}

// ListWebhookDeliveriesParams are the query parameters of GET /v1/webhooks/{id}/deliveries.
type ListWebhookDeliveriesParams struct {
	Since *int64 // unix ms (default and floor: 7 days ago)
	Limit *int64 // 1..1000, default 100
}

// ListWebhookDeliveriesResponse is the body of GET /v1/webhooks/{id}/deliveries.
type ListWebhookDeliveriesResponse struct {
	Attempts []WebhookAttempt `json:"attempts"`
}

// ListWebhookDeliveries calls GET /v1/webhooks/{id}/deliveries: the delivery log, newest first.
func (c *Client) ListWebhookDeliveries(ctx context.Context, id string, p *ListWebhookDeliveriesParams) (*ListWebhookDeliveriesResponse, error) {
	q := url.Values{}
	if p != nil {
		if p.Since != nil {
			q.Set("since", strconv.FormatInt(*p.Since, 10))
		}
		if p.Limit != nil {
			q.Set("limit", strconv.FormatInt(*p.Limit, 10))
		}
	}
	return call[ListWebhookDeliveriesResponse](ctx, c, "GET", "/v1/webhooks/"+url.PathEscape(id)+"/deliveries", q, nil)
}

// RedeliverWebhookResponse is the body of a queued redelivery.
type RedeliverWebhookResponse struct {
	DeliveryID string `json:"deliveryId"`
	EventID    uint64 `json:"eventId"`
	Status     string `json:"status"`
}

// RedeliverWebhook calls POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver: send it again (same webhook-id).
func (c *Client) RedeliverWebhook(ctx context.Context, id, deliveryID string) (*RedeliverWebhookResponse, error) {
	return call[RedeliverWebhookResponse](ctx, c, "POST", "/v1/webhooks/"+url.PathEscape(id)+"/deliveries/"+url.PathEscape(deliveryID)+"/redeliver", nil, nil)
}
