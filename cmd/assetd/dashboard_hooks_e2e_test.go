package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/webhooks"
)

// hookReceiver is a local webhook receiver that records every request.
type hookReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []hookRequest
}

type hookRequest struct {
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	r := &hookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, hookRequest{req.Header.Clone(), b})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *hookReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// verify checks that the newest request carries webhook-id id and a
// signature that verifies with secret.
func (r *hookReceiver) verify(t *testing.T, secret, id string) {
	t.Helper()
	r.mu.Lock()
	last := r.reqs[len(r.reqs)-1]
	r.mu.Unlock()
	h := last.header
	if got := h.Get("webhook-id"); got != id {
		t.Fatalf("webhook-id %q, want %q", got, id)
	}
	if err := webhooks.Verify(secret, id, h.Get("webhook-timestamp"), h.Get("webhook-signature"), last.body, time.Now(), time.Hour); err != nil {
		t.Fatalf("the delivery does not verify with the secret the dashboard showed: %v", err)
	}
}

// queueSyntheticDelivery writes a pending delivery for endpoint hookID to
// the SQLite store in dir, due now, as the dispatcher writes one from an
// event (its payload is labelled synthetic), keeping the dispatcher's
// cursor where it is.
func queueSyntheticDelivery(t *testing.T, dir, hookID, id string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cur, _, err := st.WebhookCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	d := webhooks.Delivery{ID: id, EndpointID: hookID, EventID: 1, EventType: webhooks.EventList, Payload: []byte(`{"type":"list","synthetic":true}`),
		Status: webhooks.StatusPending, CreatedAt: now, WindowStart: now, NextAt: now}
	if err := st.EnqueueWebhookDeliveries(ctx, cur, []webhooks.Delivery{d}, nil); err != nil {
		t.Fatal(err)
	}
}
