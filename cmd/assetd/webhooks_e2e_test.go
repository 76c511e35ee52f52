package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/webhooks"
)

// exerciseWebhooks calls every webhook operation of the contract against
// a server started with --webhook-allow-private and the SQLite store in
// dir: an endpoint on a local receiver, a delivery row written to the
// store as the dispatcher writes one (so redeliver has one to queue).
func (c *contractClient) exerciseWebhooks(dir string) {
	t := c.t
	t.Helper()
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer rcv.Close()
	st, body := c.keyed("POST", "/v1/webhooks", map[string]any{"url": rcv.URL + "/hook", "events": []string{"advisory", "trending"},
		"filters": map[string]any{"advisory": map[string]any{"mints": []string{"So11111111111111111111111111111111111111112"}}}})
	id, _ := body["id"].(string)
	if st != http.StatusCreated || id == "" {
		t.Errorf("create webhook: %d %v", st, body)
		return
	}
	c.get("/v1/webhooks")
	c.get("/v1/webhooks/" + id)
	c.keyed("PATCH", "/v1/webhooks/"+id, map[string]any{"events": []string{"advisory"}, "filters": map[string]any{}})
	c.keyed("POST", "/v1/webhooks/"+id+"/secret", nil)
	ctx := context.Background()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cur, _, err := s.WebhookCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	dl := webhooks.Delivery{ID: "msg_contractwalk", EndpointID: id, EventID: 1, EventType: "advisory", Payload: []byte(`{"synthetic":true}`),
		Status: webhooks.StatusFailed, CreatedAt: now, WindowStart: now, NextAt: now, LastAt: now}
	if err := s.EnqueueWebhookDeliveries(ctx, cur, []webhooks.Delivery{dl}, nil); err != nil {
		t.Fatal(err)
	}
	c.keyed("POST", "/v1/webhooks/"+id+"/deliveries/"+dl.ID+"/redeliver", nil)
	c.get("/v1/webhooks/" + id + "/deliveries")
	c.get("/v1/webhooks/" + id + "/deliveries?since=0&limit=10")
	c.keyed("DELETE", "/v1/webhooks/"+id, nil)
}
