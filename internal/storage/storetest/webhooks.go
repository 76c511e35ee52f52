package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/webhooks"
	"github.com/google/go-cmp/cmp"
)

// WebhookTests are the conformance tests of the webhook store (migration
// 0021); Run runs them too.
var WebhookTests = []struct {
	Name string
	Fn   func(*testing.T, Harness)
}{
	{"WebhookEndpoints", testWebhookEndpoints},
	{"WebhookOutbox", testWebhookOutbox},
	{"WebhookLeases", testWebhookLeases},
	{"WebhookDueOrder", testWebhookDueOrder},
}

var whT0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func synthEndpoint(id, project string) webhooks.Endpoint {
	return webhooks.Endpoint{ID: id, ProjectID: project, URL: "https://hooks.example.com/" + id, Events: []string{"advisory", "trending"},
		Filters: webhooks.Filters{Advisory: &webhooks.AdvisoryFilter{Mints: []string{"So11111111111111111111111111111111111111112"}}, Trending: &webhooks.Empty{}},
		Secret:  "whsec_c3ludGhldGljLXRlc3Qtc2VjcmV0", Enabled: true, CreatedAt: whT0, UpdatedAt: whT0}
}

func testWebhookEndpoints(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	a, b := synthEndpoint("wh_a", "p1"), synthEndpoint("wh_b", "p2")
	for _, e := range []webhooks.Endpoint{a, b} {
		if err := s.CreateWebhook(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Webhook(ctx, "wh_a")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, got); d != "" {
		t.Errorf("Webhook (-want +got):\n%s", d)
	}
	if _, err := s.Webhook(ctx, "wh_none"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("unknown webhook: err = %v, want ErrNotFound", err)
	}
	mine, err := s.Webhooks(ctx, "p1")
	if err != nil || len(mine) != 1 || mine[0].ID != "wh_a" {
		t.Errorf("Webhooks(p1) = %v, %v", mine, err)
	}
	all, err := s.Webhooks(ctx, "")
	if err != nil || len(all) != 2 {
		t.Errorf("Webhooks(all) = %d, %v", len(all), err)
	}
	// The dispatcher's cross state survives an update without a reset.
	if err := s.EnqueueWebhookDeliveries(ctx, 0, nil, map[string]string{"wh_a": "met"}); err != nil {
		t.Fatal(err)
	}
	a.URL, a.Enabled, a.CrossState, a.UpdatedAt = "https://hooks.example.com/new", false, "met", whT0.Add(time.Minute)
	a.Filters = webhooks.Filters{PriceCross: &webhooks.PriceCross{Mint: "So11111111111111111111111111111111111111112", Direction: "above", Value: 1.5, Mode: "once"}}
	a.Events = []string{"price"}
	stale := a
	stale.CrossState = ""
	if err := s.UpdateWebhook(ctx, stale, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Webhook(ctx, "wh_a"); !cmp.Equal(a, got) {
		t.Errorf("after update (-want +got):\n%s", cmp.Diff(a, got))
	}
	if err := s.UpdateWebhook(ctx, a, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Webhook(ctx, "wh_a"); got.CrossState != "" {
		t.Errorf("cross state after a reset = %q", got.CrossState)
	}
	if err := s.UpdateWebhook(ctx, synthEndpoint("wh_none", "p1"), false); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("update unknown: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteWebhook(ctx, "wh_a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteWebhook(ctx, "wh_a"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("second delete: err = %v, want ErrNotFound", err)
	}
}

func testWebhookOutbox(t *testing.T, h Harness) {
	s, reopen := h.Fresh(t)
	ctx := context.Background()
	if _, ok, err := s.WebhookCursor(ctx); err != nil || ok {
		t.Fatalf("fresh cursor: ok=%v err=%v, want none", ok, err)
	}
	if err := s.CreateWebhook(ctx, synthEndpoint("wh_a", "p1")); err != nil {
		t.Fatal(err)
	}
	d1 := webhooks.Delivery{ID: "msg_1", EndpointID: "wh_a", EventID: 7, EventType: "advisory", Payload: []byte(`{"n":1}`),
		Status: webhooks.StatusPending, CreatedAt: whT0, WindowStart: whT0, NextAt: whT0}
	d2 := d1
	d2.ID, d2.EventID, d2.Payload = "msg_2", 8, []byte(`{"n":2}`)
	if err := s.EnqueueWebhookDeliveries(ctx, 8, []webhooks.Delivery{d1, d2}, map[string]string{"wh_a": "met"}); err != nil {
		t.Fatal(err)
	}
	// A repeated fan-out leaves existing rows as they are.
	dup := d1
	dup.Payload = []byte(`{"n":"changed"}`)
	if err := s.EnqueueWebhookDeliveries(ctx, 9, []webhooks.Delivery{dup}, nil); err != nil {
		t.Fatal(err)
	}
	// A second handle (another process, or the same after a crash) sees it all.
	s2 := reopen()
	if c, ok, err := s2.WebhookCursor(ctx); err != nil || !ok || c != 9 {
		t.Errorf("cursor = %d %v %v, want 9", c, ok, err)
	}
	if e, _ := s2.Webhook(ctx, "wh_a"); e.CrossState != "met" {
		t.Errorf("cross state = %q, want met", e.CrossState)
	}
	if ids, err := s2.DueWebhookEndpoints(ctx, whT0.Add(-time.Second), 10); err != nil || len(ids) != 0 {
		t.Errorf("due before next_at = %v %v, want none", ids, err)
	}
	if ids, err := s2.DueWebhookEndpoints(ctx, whT0, 10); err != nil || !cmp.Equal(ids, []string{"wh_a"}) {
		t.Errorf("due endpoints = %v %v, want [wh_a]", ids, err)
	}
	due, err := s2.DueWebhookDeliveries(ctx, "wh_a", whT0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]webhooks.Delivery{d1, d2}, due); d != "" {
		t.Errorf("due deliveries (-want +got):\n%s", d)
	}
	if n, _ := s2.WebhookBacklog(ctx); n != 2 {
		t.Errorf("backlog = %d, want 2", n)
	}
	// One failed attempt, then a success.
	at1 := whT0.Add(time.Second)
	d1.Attempts, d1.LastAt, d1.NextAt = 1, at1, at1.Add(5*time.Second)
	a1 := webhooks.Attempt{DeliveryID: "msg_1", EndpointID: "wh_a", EventID: 7, EventType: "advisory", Attempt: 1, At: at1,
		Outcome: webhooks.OutcomeFailed, LatencyMS: 12, ResponseCode: 503, Error: "response status 503"}
	if err := s2.RecordWebhookAttempt(ctx, d1, a1); err != nil {
		t.Fatal(err)
	}
	at2 := at1.Add(5 * time.Second)
	d1.Attempts, d1.LastAt, d1.Status = 2, at2, webhooks.StatusDelivered
	a2 := a1
	a2.Attempt, a2.At, a2.Outcome, a2.ResponseCode, a2.Error = 2, at2, webhooks.OutcomeDelivered, 204, ""
	if err := s2.RecordWebhookAttempt(ctx, d1, a2); err != nil {
		t.Fatal(err)
	}
	got, err := s.WebhookDelivery(ctx, "msg_1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(d1, got); d != "" {
		t.Errorf("delivery after attempts (-want +got):\n%s", d)
	}
	atts, err := s.WebhookAttempts(ctx, "wh_a", whT0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]webhooks.Attempt{a2, a1}, atts); d != "" {
		t.Errorf("attempts, newest first (-want +got):\n%s", d)
	}
	if atts, _ := s.WebhookAttempts(ctx, "wh_a", at2, 10); len(atts) != 1 {
		t.Errorf("attempts since the second = %d, want 1", len(atts))
	}
	// Redeliver makes it pending again with the same id and a new window.
	re := at2.Add(time.Hour)
	if err := s.RedeliverWebhook(ctx, "msg_1", re); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.WebhookDelivery(ctx, "msg_1"); got.Status != webhooks.StatusPending || !got.NextAt.Equal(re) || !got.WindowStart.Equal(re) {
		t.Errorf("redelivered = %+v", got)
	}
	if err := s.RedeliverWebhook(ctx, "msg_none", re); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("redeliver unknown: err = %v", err)
	}
	// Pruning drops attempts older than the cut and finished deliveries.
	d2.Status, d2.Attempts, d2.LastAt = webhooks.StatusFailed, 1, at1
	if err := s.RecordWebhookAttempt(ctx, d2, webhooks.Attempt{DeliveryID: "msg_2", EndpointID: "wh_a", EventID: 8, EventType: "advisory", Attempt: 1, At: at1, Outcome: webhooks.OutcomeFailed}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneWebhookLog(ctx, at2); err != nil || n != 2 {
		t.Errorf("prune = %d %v, want the 2 attempts before the cut", n, err)
	}
	if _, err := s.WebhookDelivery(ctx, "msg_2"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("finished delivery not pruned: %v", err)
	}
	if _, err := s.WebhookDelivery(ctx, "msg_1"); err != nil {
		t.Errorf("pending delivery pruned: %v", err)
	}
	// Deleting the endpoint deletes its outbox and log.
	if err := s.DeleteWebhook(ctx, "wh_a"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.WebhookBacklog(ctx); n != 0 {
		t.Errorf("backlog after delete = %d", n)
	}
}

func testWebhookLeases(t *testing.T, h Harness) {
	s, reopen := h.Fresh(t)
	s2 := reopen()
	ctx := context.Background()
	ttl := 30 * time.Second
	acquire := func(st Store, holder string, now time.Time) bool {
		t.Helper()
		ok, err := st.AcquireWebhookLease(ctx, "endpoint:wh_a", holder, now, now.Add(ttl))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !acquire(s, "r1", whT0) {
		t.Fatal("r1 could not take a free lease")
	}
	if acquire(s2, "r2", whT0.Add(ttl-time.Millisecond)) {
		t.Fatal("r2 took r1's live lease")
	}
	if !acquire(s, "r1", whT0.Add(10*time.Second)) {
		t.Fatal("r1 could not renew")
	}
	if acquire(s2, "r2", whT0.Add(ttl)) {
		t.Fatal("r2 took a renewed lease")
	}
	if !acquire(s2, "r2", whT0.Add(10*time.Second+ttl)) {
		t.Fatal("r2 could not take an expired lease")
	}
	if acquire(s, "r1", whT0.Add(10*time.Second+ttl)) {
		t.Fatal("r1 took r2's lease back")
	}
	if err := s.ReleaseWebhookLease(ctx, "endpoint:wh_a", "r1"); err != nil {
		t.Fatal(err)
	}
	if acquire(s, "r1", whT0.Add(11*time.Second+ttl)) {
		t.Fatal("a release by a non-holder freed the lease")
	}
	if err := s2.ReleaseWebhookLease(ctx, "endpoint:wh_a", "r2"); err != nil {
		t.Fatal(err)
	}
	if !acquire(s, "r1", whT0.Add(11*time.Second+ttl)) {
		t.Fatal("r1 could not take a released lease")
	}
}

// Due endpoints come longest overdue first; a disabled one is not due.
func testWebhookDueOrder(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	off := synthEndpoint("wh_c", "p1")
	off.Enabled = false
	for _, e := range []webhooks.Endpoint{synthEndpoint("wh_a", "p1"), synthEndpoint("wh_b", "p1"), off} {
		if err := s.CreateWebhook(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	d := func(id, ep string, next time.Time) webhooks.Delivery {
		return webhooks.Delivery{ID: id, EndpointID: ep, EventID: 1, EventType: "trending", Payload: []byte(`{}`), Status: webhooks.StatusPending,
			CreatedAt: whT0, WindowStart: whT0, NextAt: next}
	}
	ds := []webhooks.Delivery{d("msg_a", "wh_a", whT0.Add(time.Minute)), d("msg_b", "wh_b", whT0), d("msg_c", "wh_c", whT0.Add(-time.Hour))}
	if err := s.EnqueueWebhookDeliveries(ctx, 1, ds, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.DueWebhookEndpoints(ctx, whT0.Add(time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"wh_b", "wh_a"}, got); d != "" {
		t.Errorf("due endpoints (-want +got):\n%s", d)
	}
	if got, _ := s.DueWebhookEndpoints(ctx, whT0.Add(time.Hour), 1); len(got) != 1 || got[0] != "wh_b" {
		t.Errorf("limit 1 = %v, want [wh_b]", got)
	}
}
