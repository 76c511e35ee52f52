package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/webhooks"
)

// WebhookService manages a project's webhook endpoints
// (webhooks.Service). Every method is scoped to the calling key's
// project: another project's endpoint is webhooks.ErrNotFound.
type WebhookService interface {
	Create(ctx context.Context, projectID string, in webhooks.Input) (webhooks.Endpoint, error)
	List(ctx context.Context, projectID string) ([]webhooks.Endpoint, error)
	Get(ctx context.Context, projectID, id string) (webhooks.Endpoint, error)
	Update(ctx context.Context, projectID, id string, p webhooks.Patch) (webhooks.Endpoint, error)
	Delete(ctx context.Context, projectID, id string) error
	RotateSecret(ctx context.Context, projectID, id string) (webhooks.Endpoint, error)
	Attempts(ctx context.Context, projectID, id string, since time.Time, limit int) ([]webhooks.Attempt, error)
	Redeliver(ctx context.Context, projectID, id, deliveryID string) (webhooks.Delivery, error)
}

func webhookErr(err error) error {
	var ie *webhooks.InputError
	switch {
	case errors.As(err, &ie):
		return apierr.New(apierr.BadRequest, ie.Message).WithDetails(apierr.Details{"code": ie.Code, "param": ie.Param})
	case errors.Is(err, webhooks.ErrNotFound):
		return apierr.New(apierr.NotFound, "webhook not found")
	}
	return apierr.Wrap(err)
}

type webhookJSON struct {
	ID        string           `json:"id"`
	URL       string           `json:"url"`
	Events    []string         `json:"events"`
	Filters   webhooks.Filters `json:"filters"`
	Enabled   bool             `json:"enabled"`
	CreatedAt int64            `json:"createdAt"`
	UpdatedAt int64            `json:"updatedAt"`
	// Secret is set only on creation and rotation.
	Secret string `json:"secret,omitempty"`
}

func webhookBody(e webhooks.Endpoint, withSecret bool) webhookJSON {
	out := webhookJSON{ID: e.ID, URL: e.URL, Events: e.Events, Filters: e.Filters, Enabled: e.Enabled,
		CreatedAt: e.CreatedAt.UnixMilli(), UpdatedAt: e.UpdatedAt.UnixMilli()}
	if out.Events == nil {
		out.Events = []string{}
	}
	if withSecret {
		out.Secret = e.Secret
	}
	return out
}

// POST /v1/webhooks
func (s *Server) webhookCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		URL     string           `json:"url"`
		Events  []string         `json:"events"`
		Filters webhooks.Filters `json:"filters"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.URL == "" {
		return missingParam("url", "url is required: the https endpoint deliveries are posted to")
	}
	e, err := s.d.Webhooks.Create(r.Context(), project(r), webhooks.Input{URL: body.URL, Events: body.Events, Filters: body.Filters})
	if err != nil {
		return webhookErr(err)
	}
	return writeJSON(w, http.StatusCreated, webhookBody(e, true))
}

// GET /v1/webhooks
func (s *Server) webhookList(w http.ResponseWriter, r *http.Request) error {
	eps, err := s.d.Webhooks.List(r.Context(), project(r))
	if err != nil {
		return webhookErr(err)
	}
	out := make([]webhookJSON, len(eps))
	for i, e := range eps {
		out[i] = webhookBody(e, false)
	}
	return writeJSON(w, http.StatusOK, struct {
		Webhooks []webhookJSON `json:"webhooks"`
	}{out})
}

// GET /v1/webhooks/{id}
func (s *Server) webhookGet(w http.ResponseWriter, r *http.Request) error {
	e, err := s.d.Webhooks.Get(r.Context(), project(r), r.PathValue("id"))
	if err != nil {
		return webhookErr(err)
	}
	return writeJSON(w, http.StatusOK, webhookBody(e, false))
}

// PATCH /v1/webhooks/{id}
func (s *Server) webhookUpdate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		URL     *string           `json:"url"`
		Events  *[]string         `json:"events"`
		Filters *webhooks.Filters `json:"filters"`
		Enabled *bool             `json:"enabled"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	p := webhooks.Patch{URL: body.URL, Filters: body.Filters, Enabled: body.Enabled}
	if body.Events != nil {
		p.Events = *body.Events
		if p.Events == nil {
			p.Events = []string{} // explicit null: refused as empty
		}
	}
	e, err := s.d.Webhooks.Update(r.Context(), project(r), r.PathValue("id"), p)
	if err != nil {
		return webhookErr(err)
	}
	return writeJSON(w, http.StatusOK, webhookBody(e, false))
}

// DELETE /v1/webhooks/{id}
func (s *Server) webhookDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.d.Webhooks.Delete(r.Context(), project(r), id); err != nil {
		return webhookErr(err)
	}
	return writeJSON(w, http.StatusOK, struct {
		ID      string `json:"id"`
		Deleted bool   `json:"deleted"`
	}{id, true})
}

// POST /v1/webhooks/{id}/secret: a new secret, shown once.
func (s *Server) webhookRotate(w http.ResponseWriter, r *http.Request) error {
	e, err := s.d.Webhooks.RotateSecret(r.Context(), project(r), r.PathValue("id"))
	if err != nil {
		return webhookErr(err)
	}
	return writeJSON(w, http.StatusOK, webhookBody(e, true))
}

type attemptJSON struct {
	DeliveryID   string  `json:"deliveryId"`
	EventID      uint64  `json:"eventId"`
	EventType    string  `json:"eventType"`
	Attempt      int     `json:"attempt"`
	At           int64   `json:"at"`
	Outcome      string  `json:"outcome"`
	LatencyMS    int64   `json:"latencyMs"`
	ResponseCode *int    `json:"responseCode"`
	Error        *string `json:"error"`
}

// GET /v1/webhooks/{id}/deliveries?since=<unix ms>&limit=
func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := limitParam(q, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	var since time.Time
	if v := q.Get("since"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return badParam("since", "since must be a time in unix milliseconds", nil)
		}
		since = time.UnixMilli(ms)
	}
	atts, err := s.d.Webhooks.Attempts(r.Context(), project(r), r.PathValue("id"), since, limit)
	if err != nil {
		return webhookErr(err)
	}
	out := make([]attemptJSON, len(atts))
	for i, a := range atts {
		out[i] = attemptJSON{DeliveryID: a.DeliveryID, EventID: a.EventID, EventType: a.EventType, Attempt: a.Attempt,
			At: a.At.UnixMilli(), Outcome: a.Outcome, LatencyMS: max(a.LatencyMS, 0), Error: optStr(a.Error)}
		if a.ResponseCode > 0 {
			out[i].ResponseCode = &a.ResponseCode
		}
	}
	return writeJSON(w, http.StatusOK, struct {
		Attempts []attemptJSON `json:"attempts"`
	}{out})
}

// POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver
func (s *Server) webhookRedeliver(w http.ResponseWriter, r *http.Request) error {
	d, err := s.d.Webhooks.Redeliver(r.Context(), project(r), r.PathValue("id"), r.PathValue("deliveryId"))
	if err != nil {
		return webhookErr(err)
	}
	return writeJSON(w, http.StatusAccepted, struct {
		DeliveryID string `json:"deliveryId"`
		EventID    uint64 `json:"eventId"`
		Status     string `json:"status"`
	}{d.ID, d.EventID, d.Status})
}
