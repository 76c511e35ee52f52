package httpapi

import (
	"context"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/webhooks"
)

// hookNames resolves the synthetic names of the webhook tests.
type hookNames map[string]string

func (r hookNames) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ip, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(ip)}, nil
}

func webhookHarness(t *testing.T) (*harness, *sqlite.Store, string) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, ratelimit.Policy{})
	g := &webhooks.Guard{Resolver: hookNames{
		"hooks.example.com": "93.184.215.14", "loopback.example.com": "127.0.0.1",
		"private.example.com": "10.0.0.1", "metadata.example.com": "169.254.169.254",
	}}
	h.srv.d.Webhooks = webhooks.NewService(st, g, func() time.Time { return h.now })
	otherPlain, other := mkKey(t, "key_other", apikey.ScopeAssetsRead)
	h.keys.set(t, append(h.keysFor(t), other)...)
	h.h = h.srv.build(nil)
	return h, st, otherPlain
}

var secretRe = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

func TestWebhooksCRUD(t *testing.T) {
	h, _, otherPlain := webhookHarness(t)
	key := map[string]string{"x-api-key": h.plain["read"], "content-type": "application/json"}
	other := map[string]string{"x-api-key": otherPlain, "content-type": "application/json"}

	r := h.do(t, "POST", "/v1/webhooks", key, strings.NewReader(`{"url":"https://hooks.example.com/assetd","events":["price","advisory"],
		"filters":{"price_cross":{"mint":"`+reportMint+`","direction":"above","value":250,"mode":"every"},"advisory":{"mints":["`+reportMint+`"]}}}`))
	if r.status != 201 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id, _ := r.body["id"].(string)
	if !strings.HasPrefix(id, "wh_") || !secretRe.MatchString(r.body["secret"].(string)) || r.body["enabled"] != true {
		t.Fatalf("create body: %s", r.raw)
	}
	// The secret is shown once: reads leave it out.
	r = h.do(t, "GET", "/v1/webhooks/"+id, key, nil)
	if r.status != 200 || r.body["secret"] != nil || r.body["url"] != "https://hooks.example.com/assetd" {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}
	if ev := r.body["events"].([]any); len(ev) != 2 || ev[0] != "advisory" || ev[1] != "price" {
		t.Errorf("events = %v, want sorted [advisory price]", ev)
	}
	r = h.do(t, "GET", "/v1/webhooks", key, nil)
	if r.status != 200 || len(r.body["webhooks"].([]any)) != 1 {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	// Another project sees none of it.
	if r = h.do(t, "GET", "/v1/webhooks", other, nil); r.status != 200 || len(r.body["webhooks"].([]any)) != 0 {
		t.Fatalf("other project's list: %d %s", r.status, r.raw)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/webhooks/" + id, ""},
		{"PATCH", "/v1/webhooks/" + id, `{"enabled":false}`},
		{"DELETE", "/v1/webhooks/" + id, ""},
		{"POST", "/v1/webhooks/" + id + "/secret", ""},
		{"GET", "/v1/webhooks/" + id + "/deliveries", ""},
		{"POST", "/v1/webhooks/" + id + "/deliveries/msg_x/redeliver", ""},
	} {
		var body *strings.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		var rr resp
		if body != nil {
			rr = h.do(t, c.method, c.path, other, body)
		} else {
			rr = h.do(t, c.method, c.path, other, nil)
		}
		if rr.status != 404 || errTag(rr) != "NotFoundError" {
			t.Errorf("other project %s %s: %d %s", c.method, c.path, rr.status, rr.raw)
		}
	}
	// A key without assets:read is refused.
	if r = h.do(t, "GET", "/v1/webhooks", map[string]string{"x-api-key": h.plain["none"]}, nil); r.status != 403 {
		t.Errorf("ohlcv-only key: %d %s", r.status, r.raw)
	}
	r = h.do(t, "PATCH", "/v1/webhooks/"+id, key, strings.NewReader(`{"enabled":false,"url":"https://hooks.example.com/v2"}`))
	if r.status != 200 || r.body["enabled"] != false || r.body["url"] != "https://hooks.example.com/v2" || r.body["secret"] != nil {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	r = h.do(t, "PATCH", "/v1/webhooks/"+id, key, strings.NewReader(`{"url":"https://loopback.example.com/x"}`))
	if r.status != 400 || errCode(r) != "url_not_public" {
		t.Fatalf("patch to a private target: %d %s", r.status, r.raw)
	}
	r = h.do(t, "POST", "/v1/webhooks/"+id+"/secret", key, nil)
	if r.status != 200 || !secretRe.MatchString(r.body["secret"].(string)) {
		t.Fatalf("rotate: %d %s", r.status, r.raw)
	}
	r = h.do(t, "DELETE", "/v1/webhooks/"+id, key, nil)
	if r.status != 200 || r.body["deleted"] != true {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if r = h.do(t, "GET", "/v1/webhooks/"+id, key, nil); r.status != 404 {
		t.Fatalf("get after delete: %d %s", r.status, r.raw)
	}
}

// Every refused input is a 400 BadRequestError with its details.code.
func TestWebhooksBadInput(t *testing.T) {
	h, _, _ := webhookHarness(t)
	key := map[string]string{"x-api-key": h.plain["read"], "content-type": "application/json"}
	pc := func(extra string) string {
		return `{"url":"https://hooks.example.com/x","events":["price"],"filters":{"price_cross":{` + extra + `}}}`
	}
	for _, tc := range []struct{ body, code string }{
		{`{`, "invalid_json"},
		{`{"events":["trending"]}`, "missing_param"},
		{`{"url":"http://hooks.example.com/x","events":["trending"]}`, "url_not_https"},
		{`{"url":"not a url","events":["trending"]}`, "invalid_url"},
		{`{"url":"https://127.0.0.1/hook","events":["trending"]}`, "url_not_public"},
		{`{"url":"https://10.0.0.1/hook","events":["trending"]}`, "url_not_public"},
		{`{"url":"https://169.254.169.254/latest/meta-data","events":["trending"]}`, "url_not_public"},
		{`{"url":"https://loopback.example.com/hook","events":["trending"]}`, "url_not_public"},
		{`{"url":"https://private.example.com/hook","events":["trending"]}`, "url_not_public"},
		{`{"url":"https://metadata.example.com/hook","events":["trending"]}`, "url_not_public"},
		{`{"url":"https://nowhere.example.com/hook","events":["trending"]}`, "url_unresolvable"},
		{`{"url":"https://hooks.example.com/x","events":[]}`, "events_required"},
		{`{"url":"https://hooks.example.com/x","events":["candles"]}`, "invalid_event"},
		{`{"url":"https://hooks.example.com/x","events":["price"]}`, "price_cross_required"},
		{`{"url":"https://hooks.example.com/x","events":["trending"],"filters":{"list":{"slug":"x"}}}`, "filter_without_event"},
		{pc(`"mint":"nope","direction":"above","value":1,"mode":"once"`), "invalid_mint"},
		{pc(`"mint":"` + reportMint + `","direction":"up","value":1,"mode":"once"`), "invalid_direction"},
		{pc(`"mint":"` + reportMint + `","direction":"above","value":-1,"mode":"once"`), "invalid_value"},
		{pc(`"mint":"` + reportMint + `","direction":"above","value":1,"mode":"always"`), "invalid_mode"},
		{`{"url":"https://hooks.example.com/x","events":["list"],"filters":{"list":{"slug":""}}}`, "invalid_slug"},
	} {
		r := h.do(t, "POST", "/v1/webhooks", key, strings.NewReader(tc.body))
		if r.status != 400 || errTag(r) != "BadRequestError" || errCode(r) != tc.code {
			t.Errorf("%s: %d %s, want 400 %s", tc.body, r.status, r.raw, tc.code)
		}
	}
}

// The delivery log lists attempts since a time; redeliver queues one again.
func TestWebhookDeliveriesAndRedeliver(t *testing.T) {
	h, st, _ := webhookHarness(t)
	key := map[string]string{"x-api-key": h.plain["read"], "content-type": "application/json"}
	r := h.do(t, "POST", "/v1/webhooks", key, strings.NewReader(`{"url":"https://hooks.example.com/x","events":["trending"]}`))
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := r.body["id"].(string)
	ctx := context.Background()
	at := h.now.Add(-time.Hour)
	dl := webhooks.Delivery{ID: "msg_synthetic1", EndpointID: id, EventID: 3, EventType: "trending", Payload: []byte(`{}`),
		Status: webhooks.StatusPending, CreatedAt: at, WindowStart: at, NextAt: at}
	if err := st.EnqueueWebhookDeliveries(ctx, 3, []webhooks.Delivery{dl}, nil); err != nil {
		t.Fatal(err)
	}
	for i, a := range []webhooks.Attempt{
		{Outcome: webhooks.OutcomeFailed, ResponseCode: 503, Error: "response status 503", LatencyMS: 40},
		{Outcome: webhooks.OutcomeDelivered, ResponseCode: 204, LatencyMS: 12},
	} {
		a.DeliveryID, a.EndpointID, a.EventID, a.EventType, a.Attempt, a.At = dl.ID, id, 3, "trending", i+1, at.Add(time.Duration(i)*time.Minute)
		dl.Attempts, dl.LastAt = i+1, a.At
		if a.Outcome == webhooks.OutcomeDelivered {
			dl.Status = webhooks.StatusDelivered
		}
		if err := st.RecordWebhookAttempt(ctx, dl, a); err != nil {
			t.Fatal(err)
		}
	}
	r = h.do(t, "GET", "/v1/webhooks/"+id+"/deliveries", key, nil)
	if r.status != 200 {
		t.Fatalf("deliveries: %d %s", r.status, r.raw)
	}
	atts := r.body["attempts"].([]any)
	if len(atts) != 2 {
		t.Fatalf("attempts: %s", r.raw)
	}
	first, last := atts[1].(map[string]any), atts[0].(map[string]any)
	if last["outcome"] != "delivered" || last["responseCode"] != 204.0 || last["error"] != nil || last["attempt"] != 2.0 ||
		first["outcome"] != "failed" || first["responseCode"] != 503.0 || first["error"] != "response status 503" || first["latencyMs"] != 40.0 ||
		first["deliveryId"] != "msg_synthetic1" {
		t.Errorf("attempts, newest first: %s", r.raw)
	}
	since := at.Add(30 * time.Second).UnixMilli()
	if r = h.do(t, "GET", "/v1/webhooks/"+id+"/deliveries?since="+strconv.FormatInt(since, 10), key, nil); r.status != 200 || len(r.body["attempts"].([]any)) != 1 {
		t.Errorf("since: %d %s", r.status, r.raw)
	}
	if r = h.do(t, "GET", "/v1/webhooks/"+id+"/deliveries?since=yesterday", key, nil); r.status != 400 || errCode(r) != "invalid_param" {
		t.Errorf("bad since: %d %s", r.status, r.raw)
	}
	r = h.do(t, "POST", "/v1/webhooks/"+id+"/deliveries/msg_synthetic1/redeliver", key, nil)
	if r.status != 202 || r.body["status"] != "pending" || r.body["deliveryId"] != "msg_synthetic1" {
		t.Fatalf("redeliver: %d %s", r.status, r.raw)
	}
	if got, _ := st.WebhookDelivery(ctx, "msg_synthetic1"); got.Status != webhooks.StatusPending || !got.NextAt.Equal(h.now) {
		t.Errorf("after redeliver: %+v", got)
	}
	if r = h.do(t, "POST", "/v1/webhooks/"+id+"/deliveries/msg_nope/redeliver", key, nil); r.status != 404 {
		t.Errorf("redeliver unknown: %d %s", r.status, r.raw)
	}
}
