package dashboard

import (
	"context"
	"html"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/webhooks"
)

// hookNames resolves the synthetic host names of the webhook tests
// (93.184.215.14 stands for a public address; nothing is dialled).
type hookNames map[string]string

func (r hookNames) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ip, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(ip)}, nil
}

// createURL is where the new-webhook form posts.
func createURL(projectID string) string { return strings.TrimSuffix(webhooksURL(projectID), "/") }

// hookForm is a valid new-webhook form: price crosses of mintA and
// advisories of mintB.
func hookForm() url.Values {
	return url.Values{"url": {"https://hooks.example.com/assetd"}, "event": {"price", "advisory"},
		"pc_mint": {mintA}, "pc_direction": {"below"}, "pc_value": {"0.99"}, "pc_mode": {"every"}, "adv_mints": {mintB}}
}

func (e *env) webhooks(t *testing.T) []webhooks.Endpoint {
	t.Helper()
	eps, err := e.st.Webhooks(context.Background(), e.owner.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// between returns the text of body between the first from and the next
// to, unescaped.
func between(body, from, to string) string {
	i := strings.Index(body, from)
	if i < 0 {
		return ""
	}
	rest := body[i+len(from):]
	if j := strings.Index(rest, to); j >= 0 {
		rest = rest[:j]
	}
	return html.UnescapeString(rest)
}

func TestWebhookCreateShowsSecretOnce(t *testing.T) {
	e := newEnv(t, nil)
	base := createURL(e.owner.ProjectID)
	// Without a CSRF token, or with another session's: 403, nothing made.
	if r := e.do(t, "POST", base, memberTok, hookForm(), false); r.status != http.StatusForbidden {
		t.Fatalf("create without CSRF: %d", r.status)
	}
	f := hookForm()
	f.Set("csrf", csrfFor(ownerTok))
	if r := e.post(t, base, memberTok, f); r.status != http.StatusForbidden {
		t.Fatalf("create with another session's CSRF: %d", r.status)
	}
	if n := len(e.webhooks(t)); n != 0 {
		t.Fatalf("%d webhooks made by refused requests", n)
	}
	// A plain member creates one (the API lets every key of the project):
	// 303 to the webhook's page, whose first GET shows the secret.
	r := e.post(t, base, memberTok, hookForm())
	eps := e.webhooks(t)
	if r.status != http.StatusSeeOther || len(eps) != 1 || !strings.HasPrefix(r.header.Get("Location"), webhookURL(e.owner.ProjectID, eps[0].ID)+"?flash=") {
		t.Fatalf("create: %d %v webhooks=%d\n%s", r.status, r.header, len(eps), r.body)
	}
	ep := eps[0]
	if ep.Filters.PriceCross == nil || ep.Filters.PriceCross.Value != 0.99 || ep.Filters.PriceCross.Direction != "below" ||
		ep.Filters.Advisory == nil || len(ep.Filters.Advisory.Mints) != 1 || ep.Filters.List != nil || strings.Join(ep.Events, ",") != "advisory,price" {
		t.Fatalf("stored endpoint %+v", ep)
	}
	shown := e.follow(t, r, memberTok)
	if shown.status != 200 || between(shown.body, `id="webhook-secret">`, "<") != ep.Secret || !strings.HasPrefix(ep.Secret, "whsec_") {
		t.Fatalf("created page: %d\n%s", shown.status, shown.body)
	}
	reload := e.do(t, "GET", r.header.Get("Location"), memberTok, nil, false)
	if reload.status != 200 || strings.Contains(html.UnescapeString(reload.body), ep.Secret) || !strings.Contains(reload.body, `id="flash-gone"`) || len(e.webhooks(t)) != 1 {
		t.Fatalf("reload: %d\n%s", reload.status, reload.body)
	}
	// The list shows it without its secret; the project page links it.
	list := e.do(t, "GET", webhooksURL(e.owner.ProjectID), ownerTok, nil, false)
	if list.status != 200 || strings.Contains(html.UnescapeString(list.body), ep.Secret) || !strings.Contains(list.body, `data-webhook="`+ep.ID+`"`) ||
		!strings.Contains(list.body, "price EPjF…Dt1v below 0.99 (every); advisories of 1 mint(s)") || !strings.Contains(list.body, "none in 7 days") {
		t.Fatalf("webhooks page:\n%s", list.body)
	}
	if p := e.do(t, "GET", projectURL(e.owner.ProjectID), ownerTok, nil, false); !strings.Contains(p.body, "1 webhook endpoint.") || !strings.Contains(p.body, `id="webhooks-link"`) {
		t.Fatalf("project page:\n%s", p.body)
	}
	// Rotating gives a new secret, shown once.
	r = e.post(t, webhookURL(e.owner.ProjectID, ep.ID)+"secret", ownerTok, nil)
	rot := e.follow(t, r, ownerTok)
	next := between(rot.body, `id="webhook-secret">`, "<")
	if next == "" || next == ep.Secret || e.webhooks(t)[0].Secret != next {
		t.Fatalf("rotate: %q (was %q)\n%s", next, ep.Secret, rot.body)
	}
	if again := e.do(t, "GET", r.header.Get("Location"), ownerTok, nil, false); strings.Contains(html.UnescapeString(again.body), next) {
		t.Fatal("the rotated secret showed twice")
	}
}

// TestWebhookFormShowsServiceErrors: refusals come from the webhooks
// service (the SSRF guard and the filter checks the API runs), shown in
// the form with what was typed.
func TestWebhookFormShowsServiceErrors(t *testing.T) {
	e := newEnv(t, nil)
	base := createURL(e.owner.ProjectID)
	for _, c := range []struct {
		name  string
		edit  func(url.Values)
		param string
		want  string
	}{
		{"private address", func(f url.Values) { f.Set("url", "https://private.example.com/x") }, "url", "url must resolve to public addresses only"},
		{"loopback literal", func(f url.Values) { f.Set("url", "https://127.0.0.1/x") }, "url", "url must resolve to public addresses only"},
		{"plain http", func(f url.Values) { f.Set("url", "http://hooks.example.com/x") }, "url", "url must use https"},
		{"no event", func(f url.Values) { f.Del("event"); f.Del("pc_mint"); f.Del("pc_value"); f.Del("adv_mints") }, "events", "events must name at least one of"},
		{"price without filter", func(f url.Values) { f.Del("pc_mint"); f.Del("pc_value") }, "filters.price_cross.mint", "price_cross.mint must be a base58"},
		{"bad value", func(f url.Values) { f.Set("pc_value", "cheap") }, "filters.price_cross.value", "price_cross.value must be a positive USD price"},
		{"bad advisory mint", func(f url.Values) { f.Set("adv_mints", "nope") }, "filters.advisory.mints", `advisory.mints: "nope" is not a base58`},
		{"list without event", func(f url.Values) { f.Set("list_slug", "picks") }, "filters.list", `filter list needs the "list" event`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := hookForm()
			c.edit(f)
			r := e.post(t, base, ownerTok, f)
			if r.status != http.StatusBadRequest || !strings.Contains(r.body, `id="form-error">`+html.EscapeString(c.want)) ||
				!strings.Contains(r.body, `aria-invalid="true"`) || !strings.Contains(r.body, `id="create-webhook"`) {
				t.Fatalf("%d\n%s", r.status, r.body)
			}
			if u := f.Get("url"); !strings.Contains(r.body, `value="`+html.EscapeString(u)+`"`) {
				t.Fatalf("the form lost the typed URL %q", u)
			}
			if n := len(e.webhooks(t)); n != 0 {
				t.Fatalf("%d webhooks made", n)
			}
		})
	}
}

func TestWebhookEditEnableDelete(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	r := e.post(t, createURL(e.owner.ProjectID), ownerTok, hookForm())
	if r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	ep := e.webhooks(t)[0]
	wp := webhookURL(e.owner.ProjectID, ep.ID)
	// Every form needs the session's CSRF token: 403 and nothing changed.
	for _, path := range []string{"update", "enabled", "secret", "delete"} {
		form := url.Values{"confirm": {"yes"}, "enabled": {"false"}, "url": {"https://hooks.example.com/csrf"}, "event": {"trending"}}
		if r := e.do(t, "POST", wp+path, ownerTok, form, false); r.status != http.StatusForbidden {
			t.Fatalf("%s without CSRF: %d", path, r.status)
		}
		form.Set("csrf", csrfFor(memberTok))
		if r := e.post(t, wp+path, ownerTok, form); r.status != http.StatusForbidden {
			t.Fatalf("%s with another session's CSRF: %d", path, r.status)
		}
	}
	if got, _ := e.st.Webhook(ctx, ep.ID); got.URL != ep.URL || got.Secret != ep.Secret || !got.Enabled {
		t.Fatalf("refused forms changed the webhook: %+v", got)
	}
	// The edit form is prefilled with the endpoint.
	page := e.do(t, "GET", wp, ownerTok, nil, false)
	if page.status != 200 || !strings.Contains(page.body, `value="`+mintA+`"`) || !strings.Contains(page.body, `value="0.99"`) ||
		!strings.Contains(page.body, `<option value="below" selected>`) || !strings.Contains(page.body, `value="price" checked`) {
		t.Fatalf("webhook page:\n%s", page.body)
	}
	// Edit: list events of one list, no price any more.
	r = e.post(t, wp+"update", ownerTok, url.Values{"url": {"https://hooks.example.com/v2"}, "event": {"list"}, "list_slug": {"picks"},
		"pc_direction": {"above"}, "pc_mode": {"every"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("update: %d\n%s", r.status, r.body)
	}
	if f := e.follow(t, r, ownerTok); !strings.Contains(f.body, "Webhook saved: https://hooks.example.com/v2 for list.") {
		t.Fatalf("update flash:\n%s", f.body)
	}
	got, _ := e.st.Webhook(ctx, ep.ID)
	if got.URL != "https://hooks.example.com/v2" || got.Filters.List == nil || got.Filters.List.Slug != "picks" || got.Filters.PriceCross != nil || got.Secret != ep.Secret {
		t.Fatalf("after edit %+v", got)
	}
	// A refused edit re-renders the page with the service's message and
	// changes nothing.
	if r := e.post(t, wp+"update", ownerTok, url.Values{"url": {"https://private.example.com/"}, "event": {"list"}}); r.status != 400 ||
		!strings.Contains(r.body, "url must resolve to public addresses only") || !strings.Contains(r.body, `id="save-webhook"`) {
		t.Fatalf("refused edit: %d\n%s", r.status, r.body)
	}
	// Disable, then enable.
	for _, c := range []struct {
		on   string
		want bool
	}{{"false", false}, {"true", true}} {
		if r := e.post(t, wp+"enabled", ownerTok, url.Values{"enabled": {c.on}}); r.status != http.StatusSeeOther {
			t.Fatalf("enabled=%s: %d %s", c.on, r.status, r.body)
		}
		if got, _ := e.st.Webhook(ctx, ep.ID); got.Enabled != c.want {
			t.Fatalf("enabled=%s stored %v", c.on, got.Enabled)
		}
	}
	if r := e.post(t, wp+"enabled", ownerTok, url.Values{"enabled": {"maybe"}}); r.status != 400 {
		t.Fatalf("enabled=maybe: %d", r.status)
	}
	// Delete needs the confirmation box.
	if r := e.post(t, wp+"delete", ownerTok, nil); r.status != 400 || len(e.webhooks(t)) != 1 {
		t.Fatalf("unconfirmed delete: %d", r.status)
	}
	r = e.post(t, wp+"delete", ownerTok, url.Values{"confirm": {"yes"}})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), webhooksURL(e.owner.ProjectID)+"?flash=") || len(e.webhooks(t)) != 0 {
		t.Fatalf("delete: %d %v", r.status, r.header)
	}
	if r := e.do(t, "GET", wp, ownerTok, nil, false); r.status != 404 {
		t.Fatalf("deleted webhook page: %d", r.status)
	}
}

// TestWebhookAuthorization: another project's webhook is not found, to its
// page and to every form, like the API's 404; signed out goes to sign-in.
func TestWebhookAuthorization(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	svc := webhooks.NewService(e.st, &webhooks.Guard{AllowPrivate: true}, nil)
	foreign, err := svc.Create(ctx, e.other, webhooks.Input{URL: "https://hooks.example.com/other", Events: []string{"trending"}})
	if err != nil {
		t.Fatal(err)
	}
	// The foreign project itself: 404.
	if r := e.do(t, "GET", webhooksURL(e.other), ownerTok, nil, false); r.status != 404 {
		t.Fatalf("foreign project's webhooks: %d", r.status)
	}
	if r := e.post(t, createURL(e.other), ownerTok, hookForm()); r.status != 404 {
		t.Fatalf("create in a foreign project: %d", r.status)
	}
	// Its webhook addressed through the caller's own project: 404.
	own := webhookURL(e.owner.ProjectID, foreign.ID)
	for _, c := range []struct{ method, path string }{
		{"GET", own}, {"GET", own + "deliveries/"}, {"POST", own + "update"}, {"POST", own + "enabled"},
		{"POST", own + "secret"}, {"POST", own + "delete"}, {"POST", own + "deliveries/d1/redeliver"},
	} {
		var r result
		if c.method == "POST" {
			r = e.post(t, c.path, ownerTok, url.Values{"confirm": {"yes"}, "enabled": {"false"}, "url": {"https://hooks.example.com/x"}, "event": {"trending"}})
		} else {
			r = e.do(t, "GET", c.path, ownerTok, nil, false)
		}
		if r.status != 404 {
			t.Fatalf("%s %s: %d\n%s", c.method, c.path, r.status, r.body)
		}
	}
	if got, _ := e.st.Webhook(ctx, foreign.ID); got.Secret != foreign.Secret || !got.Enabled || got.URL != foreign.URL {
		t.Fatalf("the foreign webhook changed: %+v", got)
	}
	// Signed out: to the sign-in page.
	if r := e.do(t, "GET", webhooksURL(e.owner.ProjectID), "", nil, false); r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/" {
		t.Fatalf("signed out: %d %v", r.status, r.header)
	}
	// A server without webhooks says so.
	e.h.d.Webhooks = nil
	if r := e.do(t, "GET", webhooksURL(e.owner.ProjectID), ownerTok, nil, false); r.status != 400 || !strings.Contains(r.body, "not available") {
		t.Fatalf("no webhook service: %d", r.status)
	}
	if r := e.do(t, "GET", projectURL(e.owner.ProjectID), ownerTok, nil, false); strings.Contains(r.body, "webhooks-link") {
		t.Fatal("the project page links webhooks the server does not have")
	}
}

func TestDeliveriesPageAndRedeliver(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	now := e.h.d.Now()
	r := e.post(t, createURL(e.owner.ProjectID), ownerTok, url.Values{"url": {"https://hooks.example.com/a"}, "event": {"trending"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	ep := e.webhooks(t)[0]
	// Synthetic delivery log: one event, a failed attempt then a
	// delivered one, and an attempt older than the 7-day window.
	d := webhooks.Delivery{ID: "msg_synthetic1", EndpointID: ep.ID, EventID: 42, EventType: "trending", Payload: []byte(`{}`),
		Status: webhooks.StatusPending, CreatedAt: now.Add(-time.Hour), WindowStart: now.Add(-time.Hour), NextAt: now.Add(-time.Hour)}
	old := d
	old.ID, old.EventID = "msg_synthetic0", 7
	if err := e.st.EnqueueWebhookDeliveries(ctx, 42, []webhooks.Delivery{old, d}, nil); err != nil {
		t.Fatal(err)
	}
	for i, a := range []webhooks.Attempt{
		{DeliveryID: old.ID, EventID: 7, Attempt: 1, At: now.Add(-8 * 24 * time.Hour), Outcome: "delivered", LatencyMS: 5, ResponseCode: 200},
		{DeliveryID: d.ID, EventID: 42, Attempt: 1, At: now.Add(-50 * time.Minute), Outcome: "failed", LatencyMS: 1200, ResponseCode: 503, Error: "synthetic: 503 Service Unavailable"},
		{DeliveryID: d.ID, EventID: 42, Attempt: 2, At: now.Add(-40 * time.Minute), Outcome: "delivered", LatencyMS: 35, ResponseCode: 204},
	} {
		a.EndpointID, a.EventType = ep.ID, "trending"
		dd := d
		if a.DeliveryID == old.ID {
			dd = old
		}
		dd.Status, dd.Attempts, dd.LastAt = a.Outcome, i+1, a.At
		if err := e.st.RecordWebhookAttempt(ctx, dd, a); err != nil {
			t.Fatal(err)
		}
	}
	dp := deliveriesURL(e.owner.ProjectID, ep.ID)
	page := e.do(t, "GET", dp, memberTok, nil, false)
	if page.status != 200 || strings.Contains(page.body, old.ID) || strings.Count(page.body, `data-delivery="`+d.ID+`"`) != 2 ||
		strings.Count(page.body, ">Redeliver</button>") != 1 || !strings.Contains(page.body, "synthetic: 503 Service Unavailable") ||
		!strings.Contains(page.body, "1200 ms") || !strings.Contains(page.body, `<td class="num">204</td>`) || !strings.Contains(page.body, "2 attempts") {
		t.Fatalf("deliveries page: %d\n%s", page.status, page.body)
	}
	// The webhooks page shows the newest attempt.
	if l := e.do(t, "GET", webhooksURL(e.owner.ProjectID), memberTok, nil, false); !strings.Contains(between(l.body, `class="last-delivery">`, "</td>"), "delivered (204)") {
		t.Fatalf("last delivery:\n%s", l.body)
	}
	// Redeliver: CSRF required, then 303 back with a flash; the delivery
	// is pending again with the same id.
	if r := e.do(t, "POST", dp+d.ID+"/redeliver", memberTok, url.Values{}, false); r.status != 403 {
		t.Fatalf("redeliver without CSRF: %d", r.status)
	}
	r = e.post(t, dp+d.ID+"/redeliver", memberTok, nil)
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), dp+"?flash=") {
		t.Fatalf("redeliver: %d %v\n%s", r.status, r.header, r.body)
	}
	if f := e.follow(t, r, memberTok); !strings.Contains(f.body, "Delivery "+d.ID+" (trending event 42) queued again with the same webhook-id.") {
		t.Fatalf("redeliver flash:\n%s", f.body)
	}
	if got, _ := e.st.WebhookDelivery(ctx, d.ID); got.Status != webhooks.StatusPending {
		t.Fatalf("after redeliver: %+v", got)
	}
	if r := e.post(t, dp+"msg_unknown/redeliver", memberTok, nil); r.status != 404 {
		t.Fatalf("unknown delivery: %d", r.status)
	}
}
