package dashboard

import (
	"context"
	"crypto/tls"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/webhooks"
)

type fakeSessions map[string]session.Identity

func (f fakeSessions) Verify(_ context.Context, tok string) (session.Identity, error) {
	id, ok := f[tok]
	if !ok {
		return id, session.ErrInvalid
	}
	return id, nil
}

func (f fakeSessions) SignOut(context.Context, string) error { return nil }

// fakeUsage answers every read with its buckets of the asked size
// (hourly and daily ones are given separately).
type fakeUsage struct{ hours, days []usage.Bucket }

func (f fakeUsage) UsageBuckets(_ context.Context, _ string, from time.Time, bucket time.Duration) ([]usage.Bucket, error) {
	src := f.days
	if bucket == time.Hour {
		src = f.hours
	}
	var out []usage.Bucket
	for _, b := range src {
		if !b.Start.Before(from.Truncate(bucket)) {
			out = append(out, b)
		}
	}
	return out, nil
}

type fakeTokens struct{}

const (
	mintA = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" // USDC
	mintB = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB" // USDT
)

func (fakeTokens) SearchTokens(_ context.Context, q string, _ int) ([]lists.Candidate, error) {
	return []lists.Candidate{{Mint: mintA, Symbol: "USDC"}, {Mint: mintB, Symbol: "USDT", Advisory: "blocked", Suppressed: true}}, nil
}

func (fakeTokens) ResolveMints(_ context.Context, mints []string) map[string]lists.Snapshot {
	out := map[string]lists.Snapshot{}
	for _, m := range mints {
		sym := "USDC"
		out[m] = lists.Snapshot{Symbol: &sym, Verified: true}
	}
	return out
}

type env struct {
	h     *Handler
	st    *sqlite.Store
	owner *project.Member
	other string // a project id the users are not in
}

const (
	ownerTok  = "ads_owner"
	memberTok = "ads_member"
)

func newEnv(t *testing.T, u Usage) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	o, err := st.PutProjectMember(ctx, "acme", "u-owner", project.RoleOwner, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutProjectMember(ctx, "acme", "u-member", project.RoleMember, now); err != nil {
		t.Fatal(err)
	}
	x, err := st.PutProjectMember(ctx, "elsewhere", "u-stranger", project.RoleOwner, now)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := lists.New(st, lists.Limits{}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	guard := &webhooks.Guard{Resolver: hookNames{"hooks.example.com": "93.184.215.14", "private.example.com": "10.0.0.1"}}
	h := New(Deps{
		Webhooks: webhooks.NewService(st, guard, func() time.Time { return now }),
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sessions: fakeSessions{ownerTok: {UserID: "u-owner", PrimaryEmail: "o@example.com"}, memberTok: {UserID: "u-member", PrimaryEmail: "m@example.com"}},
		Projects: st, Keys: st, KeyManager: apikey.Manager{Store: st, Now: func() time.Time { return now }},
		Usage: u, Lists: svc, Flashes: st, Limits: ratelimit.Policy{Requests: 600, Window: time.Minute, QuotaPerMonth: 1000}, Views: lists.NewViews(st, 100), Tokens: fakeTokens{}, Now: func() time.Time { return now },
		Store: "SQLite in ./data-demo; CLI commands reach it with --demo",
	})
	return &env{h: h, st: st, owner: &o, other: x.ProjectID}
}

type result struct {
	status int
	header http.Header
	body   string
}

func (e *env) do(t *testing.T, method, path, token string, form url.Values, tlsOn bool) result {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, path, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: token})
	}
	if tlsOn {
		r.TLS = &tls.ConnectionState{}
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return result{w.Code, w.Header(), w.Body.String()}
}

func (e *env) post(t *testing.T, path, token string, form url.Values) result {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("csrf") == "" {
		form.Set("csrf", csrfFor(token))
	}
	return e.do(t, "POST", path, token, form, false)
}

// follow GETs the Location of a 303 with the same session.
func (e *env) follow(t *testing.T, r result, token string) result {
	t.Helper()
	if r.status != http.StatusSeeOther {
		t.Fatalf("want 303, got %d\n%s", r.status, r.body)
	}
	return e.do(t, "GET", r.header.Get("Location"), token, nil, false)
}

func (e *env) keys(t *testing.T) []apikey.Key {
	t.Helper()
	ks, err := e.st.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func cookie(t *testing.T, h http.Header, name string) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", name, h)
	return nil
}

func TestSignIn(t *testing.T) {
	e := newEnv(t, nil)
	for _, tlsOn := range []bool{false, true} {
		r := e.do(t, "GET", "/dashboard/", "", nil, tlsOn)
		if r.status != 200 || !strings.Contains(r.body, `id="token"`) || r.header.Get("Cache-Control") != "no-store" ||
			r.header.Get("X-Frame-Options") != "DENY" || !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Fatalf("sign-in page: %d %v", r.status, r.header)
		}
		c := cookie(t, r.header, preCSRFCookie)
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure != tlsOn || c.Path != "/dashboard/" {
			t.Fatalf("pre-session cookie (tls %v): %+v", tlsOn, c)
		}
	}
	signIn := func(token, csrfCookie, csrfForm string, tlsOn bool) result {
		r := httptest.NewRequest("POST", "/dashboard/signin", strings.NewReader(url.Values{"token": {token}, "csrf": {csrfForm}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: preCSRFCookie, Value: csrfCookie})
		if tlsOn {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		return result{w.Code, w.Header(), w.Body.String()}
	}
	if r := signIn(ownerTok, "abc", "xyz", false); r.status != 403 {
		t.Fatalf("sign-in with a wrong CSRF token: %d", r.status)
	}
	// A failed sign-in names the store the server reads sessions from.
	// (Post/Redirect/Get: the refused POST answers 303 to the sign-in
	// page, which says why.)
	if r := signIn("ads_nope", "abc", "abc", false); r.status != 303 || r.header.Get("Location") != "/dashboard/?signin=failed" {
		t.Fatalf("sign-in with a bad session: %d %v", r.status, r.header)
	}
	if r := e.do(t, "GET", "/dashboard/?signin=failed", "", nil, false); r.status != 401 || !strings.Contains(r.body, "invalid or expired") ||
		!strings.Contains(r.body, "This server reads sessions from SQLite in ./data-demo; CLI commands reach it with --demo") {
		t.Fatalf("sign-in page after a bad session: %d %s", r.status, r.body)
	}
	for _, tlsOn := range []bool{false, true} {
		r := signIn(ownerTok, "abc", "abc", tlsOn)
		if r.status != 303 || r.header.Get("Location") != "/dashboard/" {
			t.Fatalf("sign-in: %d %v", r.status, r.header)
		}
		c := cookie(t, r.header, sessionCookie)
		if c.Value != ownerTok || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure != tlsOn || c.Path != "/dashboard/" {
			t.Fatalf("session cookie (tls %v): %+v", tlsOn, c)
		}
	}
	// Signed in with one project: straight to it.
	if r := e.do(t, "GET", "/dashboard/", ownerTok, nil, false); r.status != 303 || r.header.Get("Location") != projectURL(e.owner.ProjectID) {
		t.Fatalf("home: %d %v", r.status, r.header)
	}
	// Signed out pages send to sign-in.
	if r := e.do(t, "GET", projectURL(e.owner.ProjectID), "", nil, false); r.status != 303 {
		t.Fatalf("project page signed out: %d", r.status)
	}
}

func TestKeysNeedCSRFAndRole(t *testing.T) {
	e := newEnv(t, nil)
	base := projectURL(e.owner.ProjectID)
	// No CSRF token, or another session's: 403 and nothing created.
	if r := e.do(t, "POST", base+"keys", ownerTok, url.Values{"scope": {"assets:read"}}, false); r.status != 403 {
		t.Fatalf("create without CSRF: %d", r.status)
	}
	if r := e.post(t, base+"keys", ownerTok, url.Values{"csrf": {csrfFor(memberTok)}}); r.status != 403 {
		t.Fatalf("create with another session's CSRF: %d", r.status)
	}
	// A plain member may not change keys.
	if r := e.post(t, base+"keys", memberTok, nil); r.status != 400 || !strings.Contains(r.body, "Only owners and admins") {
		t.Fatalf("member create: %d %s", r.status, r.body)
	}
	if n := len(e.keys(t)); n != 0 {
		t.Fatalf("%d keys created by refused requests", n)
	}
	// A project the user is not in is 404.
	if r := e.do(t, "GET", projectURL(e.other), ownerTok, nil, false); r.status != 404 {
		t.Fatalf("foreign project: %d", r.status)
	}
	// The owner creates a key (Post/Redirect/Get): the POST answers 303
	// to the project page with a flash, whose first GET shows the secret;
	// a reload shows it no more and creates nothing.
	r := e.post(t, base+"keys", ownerTok, url.Values{"name": {"  Backend  "}, "scope": {"assets:read", "assets:risk:read"}})
	if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), base+"?flash=") {
		t.Fatalf("create: %d %v\n%s", r.status, r.header, r.body)
	}
	shown := e.follow(t, r, ownerTok)
	ks := e.keys(t)
	if shown.status != 200 || len(ks) != 1 || !strings.Contains(shown.body, `id="secret">adk_`) || ks[0].Name != "Backend" ||
		!strings.Contains(shown.body, `id="secret-key-name">Backend<`) {
		t.Fatalf("created page: %d keys=%d %+v\n%s", shown.status, len(ks), ks, shown.body)
	}
	secret := shown.body[strings.Index(shown.body, `id="secret">`)+len(`id="secret">`):]
	secret = secret[:strings.Index(secret, "<")]
	if apikey.Hash(secret) != ks[0].Hash || len(ks[0].Scopes) != 2 {
		t.Fatalf("secret does not match the stored key %+v", ks[0])
	}
	// The quickstart carries the new key and this server's origin.
	if !strings.Contains(shown.body, "curl -H 'x-api-key: "+secret+"' \\\n  'http://example.com/v1/assets/search?q=usdc'") ||
		!strings.Contains(shown.body, "export ASSETD_API_KEY="+secret) || !strings.Contains(shown.body, `http.NewRequest("GET", "http://example.com/v1/assets/search`) {
		t.Fatalf("quickstart:\n%s", shown.body)
	}
	reload := e.do(t, "GET", r.header.Get("Location"), ownerTok, nil, false)
	if reload.status != 200 || strings.Contains(reload.body, secret) || !strings.Contains(reload.body, `id="flash-gone"`) || len(e.keys(t)) != 1 {
		t.Fatalf("reload of the created page: %d keys=%d\n%s", reload.status, len(e.keys(t)), reload.body)
	}
	page := e.do(t, "GET", base, ownerTok, nil, false)
	if strings.Contains(page.body, secret) || !strings.Contains(page.body, ks[0].ID) || !strings.Contains(page.body, "usage not available") ||
		!strings.Contains(page.body, "<td>Backend</td>") {
		t.Fatalf("project page after create:\n%s", page.body)
	}
	// Regenerate: a new secret shown once, the old key revoked, the name kept.
	r = e.post(t, base+"keys/"+ks[0].ID+"/regenerate", ownerTok, nil)
	regen := e.follow(t, r, ownerTok)
	if regen.status != 200 || !strings.Contains(regen.body, "was regenerated") || strings.Contains(regen.body, secret) || !strings.Contains(regen.body, `id="secret">adk_`) {
		t.Fatalf("regenerate: %d\n%s", regen.status, regen.body)
	}
	if again := e.do(t, "GET", r.header.Get("Location"), ownerTok, nil, false); strings.Contains(again.body, `id="secret"`) || len(e.keys(t)) != 2 {
		t.Fatalf("reload of the regenerated page: keys=%d\n%s", len(e.keys(t)), again.body)
	}
	old, _ := e.st.GetKey(context.Background(), ks[0].ID)
	if old.Active() {
		t.Fatal("old key still active after regenerate")
	}
	// Limits and revoke of the new key.
	var next apikey.Key
	for _, k := range e.keys(t) {
		if k.Active() {
			next = k
		}
	}
	if next.Name != "Backend" {
		t.Fatalf("regenerated key's name %q", next.Name)
	}
	r = e.post(t, base+"keys/"+next.ID+"/limits", ownerTok, url.Values{"rateRequests": {"10"}, "rateWindowSeconds": {"60"}, "quotaPerMonth": {"1000"}})
	if saved := e.follow(t, r, ownerTok); !strings.Contains(saved.body, "Limits saved: rate 10 requests per 60 s (this key), monthly quota 1000 (this key).") {
		t.Fatalf("limits: %d %s", saved.status, saved.body)
	}
	got, _ := e.st.GetKey(context.Background(), next.ID)
	if got.Limits != (apikey.Limits{RateRequests: 10, RateWindow: time.Minute, QuotaPerMonth: 1000}) {
		t.Fatalf("limits = %+v", got.Limits)
	}
	if r := e.post(t, base+"keys/"+next.ID+"/limits", ownerTok, url.Values{"rateRequests": {"10"}}); r.status != 400 {
		t.Fatalf("rate without window: %d", r.status)
	}
	if r := e.follow(t, e.post(t, base+"keys/"+next.ID+"/revoke", ownerTok, nil), ownerTok); !strings.Contains(r.body, "revoked: it no longer authenticates") {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if got, _ := e.st.GetKey(context.Background(), next.ID); got.Active() {
		t.Fatal("revoked key still active")
	}
	// A key of another project is not found through this one.
	if _, k, err := (apikey.Manager{Store: e.st, Now: time.Now}).Create(context.Background(), "elsewhere", nil); err != nil {
		t.Fatal(err)
	} else if r := e.post(t, base+"keys/"+k.ID+"/revoke", ownerTok, nil); r.status != 404 {
		t.Fatalf("revoke a foreign key: %d", r.status)
	}
}

// TestUsagePage: the key page charts requests per day and per hour by
// status class, counts 4xx/429/5xx, breaks them down by route and
// status, says when the key was last used (with the time), and meters
// the monthly quota against the effective limits.
func TestUsagePage(t *testing.T) {
	// now is 2026-11-20 12:00 UTC (newEnv).
	day := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	search, detail := "GET /v1/assets/search", "GET /v1/assets/{assetId}"
	last := time.Date(2026, 11, 20, 11, 58, 0, 0, time.UTC)
	f := fakeUsage{
		days: []usage.Bucket{
			{Start: day.AddDate(0, -1, 0), Route: search, Status: 200, Requests: 1000, Charged: 1000, Last: day.AddDate(0, -1, 0)}, // before the 30 days
			{Start: day, Route: search, Status: 200, Requests: 30, Charged: 30, Last: day.Add(time.Hour)},
			{Start: day, Route: detail, Status: 429, Requests: 10, Last: day.Add(time.Hour)},
			{Start: day.AddDate(0, 0, 1), Route: detail, Status: 500, Requests: 2, Charged: 2, Last: last},
			{Start: day.AddDate(0, 0, 1), Route: detail, Status: 404, Requests: 3, Charged: 3, Last: last.Add(-time.Hour)},
		},
		hours: []usage.Bucket{
			{Start: last.Truncate(time.Hour), Route: detail, Status: 500, Requests: 2, Charged: 2, Last: last},
		},
	}
	e := newEnv(t, f)
	_, k, err := (apikey.Manager{Store: e.st, Now: time.Now}).CreateNamed(context.Background(), "acme", "Charts", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := e.do(t, "GET", keyURL(e.owner.ProjectID, k.ID), ownerTok, nil, false)
	for _, want := range []string{
		`<h1>Key Charts</h1>`,
		`id="count-total">45<`, `id="count-4xx">13<`, `id="count-429">10<`, `id="count-5xx">2<`,
		`<title>11-19: 40 requests (4xx 10, of which 429 10; 5xx 0)</title>`,
		`<title>11-20 11:00: 2 requests (4xx 0, of which 429 0; 5xx 2)</title>`,
		`class="c-5xx"`, `class="c-4xx"`, `class="c-ok"`,
		"<td><code>GET /v1/assets/search</code></td><td class=\"num\">200</td><td class=\"num\">30</td>",
		"<td><code>GET /v1/assets/{assetId}</code></td><td class=\"num\">429</td><td class=\"num\">10</td>",
		`id="last-used">2026-11-20 11:58 UTC (2 min ago)<`,
		// Effective limits: the server's defaults, a quota meter over the
		// charged requests of November (35: the 429s are not charged).
		`id="eff-rate">600 requests per 60 s<`, `id="eff-quota">1000<`,
		`<meter id="quota-meter" min="0" max="1000"`, `value="35"`, `35 of 1000 requests (3 %); 965 left.`,
		`placeholder="600"`, `placeholder="60"`, `placeholder="1000"`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("key page lacks %s", want)
		}
	}
	if strings.Contains(r.body, `value="0"`) {
		t.Error("the limits form shows 0 for a limit the key does not override")
	}
	if t.Failed() {
		t.Fatalf("key page: %d\n%s", r.status, r.body)
	}
	if p := e.do(t, "GET", projectURL(e.owner.ProjectID), ownerTok, nil, false); !strings.Contains(p.body, "2026-11-20 11:58 UTC (2 min ago)") {
		t.Fatalf("last used not shown:\n%s", p.body)
	}
	for _, c := range []struct {
		last, created time.Time
		want          string
	}{
		{time.Time{}, day, "never"},
		{time.Time{}, day.AddDate(0, -2, 0), "not in the last 30 days"},
		{last.Add(-3 * time.Hour), day, "2026-11-20 08:58 UTC (3 h ago)"},
		{last.AddDate(0, 0, -3), day.AddDate(0, -1, 0), "2026-11-17 11:58 UTC (3 days ago)"},
	} {
		if got := lastUsedText(c.last, c.created, last.Add(2*time.Minute)); got != c.want {
			t.Errorf("lastUsedText(%v, %v) = %q, want %q", c.last, c.created, got, c.want)
		}
	}
	// Without a usage reader the page says so.
	e2 := newEnv(t, nil)
	_, k2, _ := (apikey.Manager{Store: e2.st, Now: time.Now}).Create(context.Background(), "acme", nil)
	if r := e2.do(t, "GET", keyURL(e2.owner.ProjectID, k2.ID), ownerTok, nil, false); !strings.Contains(r.body, "Usage not available") {
		t.Fatalf("no usage reader:\n%s", r.body)
	}
}

// TestNewKeyFormDefaults: the new-key form ticks exactly the CLI's
// default scopes, and has a labelled name field.
func TestNewKeyFormDefaults(t *testing.T) {
	e := newEnv(t, nil)
	r := e.do(t, "GET", projectURL(e.owner.ProjectID), ownerTok, nil, false)
	def, _ := apikey.ParseScopes(apikey.DefaultScopeList)
	for _, s := range apikey.AllScopes {
		ticked := strings.Contains(r.body, `value="`+s+`" checked`)
		if want := slices.Contains(def, s); ticked != want {
			t.Errorf("scope %s ticked %v, want %v (CLI default %s)", s, ticked, want, apikey.DefaultScopeList)
		}
	}
	if !strings.Contains(r.body, `<label for="key-name">`) || !strings.Contains(r.body, `id="key-name"`) {
		t.Error("no labelled key name field")
	}
	if r := e.post(t, projectURL(e.owner.ProjectID)+"keys", ownerTok, url.Values{"name": {strings.Repeat("x", 65)}, "scope": {"assets:read"}}); r.status != 400 {
		t.Errorf("over-long name: %d", r.status)
	}
	if r := e.post(t, projectURL(e.owner.ProjectID)+"keys", ownerTok, url.Values{"name": {"none"}}); r.status != 400 {
		t.Errorf("no scope ticked: %d", r.status)
	}
	if n := len(e.keys(t)); n != 0 {
		t.Fatalf("%d keys created by refused forms", n)
	}
	// Renaming: owners and admins only, at most 64 characters.
	_, k, err := (apikey.Manager{Store: e.st, Now: time.Now}).CreateNamed(context.Background(), "acme", "keep", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := keyURL(e.owner.ProjectID, k.ID) + "name"
	if r := e.post(t, path, memberTok, url.Values{"name": {"x"}}); r.status != 400 {
		t.Errorf("member rename: %d", r.status)
	}
	if r := e.post(t, path, ownerTok, url.Values{"name": {strings.Repeat("y", 65)}}); r.status != 400 {
		t.Errorf("over-long rename: %d", r.status)
	}
	if got, _ := e.st.GetKey(context.Background(), k.ID); got.Name != "keep" {
		t.Fatalf("refused renames changed the name to %q", got.Name)
	}
}

// TestFlashIsBoundToTheSession: another session following the redirect
// (a leaked URL) sees no secret, and the flash is gone for its owner too;
// an expired flash shows nothing.
func TestFlashIsBoundToTheSession(t *testing.T) {
	e := newEnv(t, nil)
	r := e.post(t, projectURL(e.owner.ProjectID)+"keys", ownerTok, url.Values{"scope": {"assets:read"}})
	loc := r.header.Get("Location")
	// memberTok is another user of the same project.
	if other := e.do(t, "GET", loc, memberTok, nil, false); other.status != 200 || strings.Contains(other.body, `id="secret"`) {
		t.Fatalf("another session saw the flash: %d\n%s", other.status, other.body)
	}
	if own := e.do(t, "GET", loc, ownerTok, nil, false); strings.Contains(own.body, `id="secret"`) {
		t.Fatal("the flash was shown after another session took it")
	}
	// Sealed for one session, it does not open with another token.
	payload, err := sealFlash(ownerTok, "id1", flash{Message: "m", Secret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openFlash(memberTok, "id1", payload); err == nil {
		t.Fatal("a flash opened with another session's token")
	}
	if _, err := openFlash(ownerTok, "id2", payload); err == nil {
		t.Fatal("a flash opened under another id")
	}
	if f, err := openFlash(ownerTok, "id1", payload); err != nil || f.Secret != "s" {
		t.Fatalf("open: %+v %v", f, err)
	}
	// The in-memory fallback expires and takes once, like the store.
	m := &memFlashes{m: map[string]memFlash{}}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	_ = m.PutFlash(context.Background(), "a", []byte("x"), now, now.Add(flashTTL))
	if _, err := m.TakeFlash(context.Background(), "a", now.Add(flashTTL+time.Second)); err == nil {
		t.Fatal("expired flash taken")
	}
	_ = m.PutFlash(context.Background(), "b", []byte("x"), now, now.Add(flashTTL))
	if _, err := m.TakeFlash(context.Background(), "b", now); err != nil {
		t.Fatal(err)
	}
	if _, err := m.TakeFlash(context.Background(), "b", now); err == nil {
		t.Fatal("flash taken twice")
	}
}

// TestEveryFormRedirects: every state-changing form answers 303 (Post/
// Redirect/Get) with a flash the next page shows once.
func TestEveryFormRedirects(t *testing.T) {
	e := newEnv(t, nil)
	base := projectURL(e.owner.ProjectID)
	_, k, err := (apikey.Manager{Store: e.st, Now: time.Now}).Create(context.Background(), "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	lp := listURL(e.owner.ProjectID, "picks")
	steps := []struct {
		path string
		form url.Values
		want string
	}{
		{base + "keys", url.Values{"scope": {"assets:read"}}, "created."},
		{base + "keys/" + k.ID + "/scopes", url.Values{"scope": {"assets:read"}}, "Scopes saved"},
		{base + "keys/" + k.ID + "/name", url.Values{"name": {"  Staging "}}, "Renamed to Staging."},
		{base + "keys/" + k.ID + "/name", url.Values{"name": {""}}, "Name removed."},
		{base + "keys/" + k.ID + "/limits", url.Values{}, "Limits saved: rate 600 requests per 60 s (server default), monthly quota 1000 (server default)."},
		{base + "keys/" + k.ID + "/regenerate", nil, "was regenerated"},
		{base + "lists", url.Values{"slug": {"picks"}, "name": {"Picks"}, "status": {"draft"}}, "List picks created."},
		{lp + "members", url.Values{"mint": {mintA}}, "Added 1 of 1 tokens."},
		{lp + "members/" + mintA + "/move", url.Values{"rank": {"1"}}, "Moved " + mintA + " to rank 1."},
		{lp + "members/" + mintA + "/remove", nil, "Removed " + mintA + "."},
		{lp + "update", url.Values{"name": {"Picks 2"}, "status": {"unlisted"}}, "List saved: Picks 2 (picks, unlisted)."},
		{lp + "delete", url.Values{"confirm": {"picks"}}, "List picks deleted."},
	}
	for _, st := range steps {
		r := e.post(t, st.path, ownerTok, st.form)
		if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "?flash=") {
			t.Fatalf("POST %s: %d %v\n%s", st.path, r.status, r.header, r.body)
		}
		page := e.follow(t, r, ownerTok)
		if !strings.Contains(page.body, `id="flash">`) || !strings.Contains(page.body, html.EscapeString(st.want)) {
			t.Fatalf("after POST %s: no flash %q\n%s", st.path, st.want, page.body)
		}
		if again := e.do(t, "GET", r.header.Get("Location"), ownerTok, nil, false); strings.Contains(again.body, `id="flash">`) {
			t.Fatalf("after POST %s: the flash showed twice", st.path)
		}
	}
}

func TestListPages(t *testing.T) {
	e := newEnv(t, nil)
	base := projectURL(e.owner.ProjectID)
	if r := e.post(t, base+"lists", memberTok, url.Values{"slug": {"picks"}, "name": {"Picks"}, "status": {"draft"}}); r.status != 303 {
		t.Fatalf("create list: %d %s", r.status, r.body)
	}
	lp := listURL(e.owner.ProjectID, "picks")
	r := e.do(t, "GET", lp+"?q=usd", memberTok, nil, false)
	if r.status != 200 || !strings.Contains(r.body, `value="`+mintA+`"`) || !strings.Contains(r.body, "Suppressed") || strings.Contains(r.body, `value="`+mintB+`"`) {
		t.Fatalf("search: %d\n%s", r.status, r.body)
	}
	if r := e.post(t, lp+"members", memberTok, url.Values{"mint": {mintA, mintB}}); r.status != 303 {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	if r := e.post(t, lp+"members/"+mintB+"/move", memberTok, url.Values{"rank": {"1"}}); r.status != 303 {
		t.Fatalf("move: %d %s", r.status, r.body)
	}
	if r := e.post(t, lp+"update", memberTok, url.Values{"name": {"Top picks"}, "slug": {"top-picks"}, "status": {"published"}}); r.status != 303 ||
		!strings.HasPrefix(r.header.Get("Location"), listURL(e.owner.ProjectID, "top-picks")+"?flash=") {
		t.Fatalf("update: %d %v %s", r.status, r.header, r.body)
	}
	np := listURL(e.owner.ProjectID, "top-picks")
	r = e.do(t, "GET", np, memberTok, nil, false)
	if !strings.Contains(r.body, "Members (2)") || strings.Index(r.body, mintB) > strings.Index(r.body, mintA) || !strings.Contains(r.body, ">published<") {
		t.Fatalf("list page after edits:\n%s", r.body)
	}
	if r := e.post(t, np+"members/"+mintA+"/remove", memberTok, nil); r.status != 303 {
		t.Fatalf("remove: %d", r.status)
	}
	if r := e.post(t, np+"delete", memberTok, url.Values{"confirm": {"wrong"}}); r.status != 400 {
		t.Fatalf("delete unconfirmed: %d", r.status)
	}
	if r := e.post(t, np+"delete", memberTok, url.Values{"confirm": {"top-picks"}}); r.status != 303 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := e.do(t, "GET", np, memberTok, nil, false); r.status != 404 {
		t.Fatalf("deleted list page: %d", r.status)
	}
}

func TestKeyScopes(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	base := projectURL(e.owner.ProjectID)
	mgr := apikey.Manager{Store: e.st, Now: time.Now}
	_, k, err := mgr.Create(ctx, "acme", []string{"assets:read", "assets:ohlcv:read"})
	if err != nil {
		t.Fatal(err)
	}
	path := base + "keys/" + k.ID + "/scopes"
	scopesOf := func(id string) []string {
		got, err := e.st.GetKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return got.Scopes
	}
	// The key page shows the form to owners, with the key's scopes ticked.
	page := e.do(t, "GET", base+"keys/"+k.ID+"/", ownerTok, nil, false)
	if page.status != 200 || !strings.Contains(page.body, `action="`+path+`"`) ||
		!strings.Contains(page.body, `value="assets:ohlcv:read" checked`) || strings.Contains(page.body, `value="trades:write" checked`) {
		t.Fatalf("key page: %d\n%s", page.status, page.body)
	}
	if page := e.do(t, "GET", base+"keys/"+k.ID+"/", memberTok, nil, false); strings.Contains(page.body, `action="`+path+`"`) {
		t.Fatal("a member sees the scopes form")
	}
	refused := []struct {
		name   string
		token  string
		form   url.Values
		raw    bool // send without the CSRF token
		path   string
		status int
	}{
		{"no CSRF token", ownerTok, url.Values{"scope": {"execution:read"}}, true, path, 403},
		{"another session's CSRF token", ownerTok, url.Values{"scope": {"execution:read"}, "csrf": {csrfFor(memberTok)}}, false, path, 403},
		{"member", memberTok, url.Values{"scope": {"execution:read"}}, false, path, 400},
		{"no scope ticked", ownerTok, url.Values{}, false, path, 400},
		{"unknown scope", ownerTok, url.Values{"scope": {"assets:read", "assets:write"}}, false, path, 400},
		{"key of another project", ownerTok, url.Values{"scope": {"execution:read"}}, false, "", 404},
	}
	_, foreign, err := mgr.Create(ctx, "elsewhere", []string{"assets:read"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range refused {
		p := c.path
		if p == "" {
			p = base + "keys/" + foreign.ID + "/scopes"
		}
		var r result
		if c.raw {
			r = e.do(t, "POST", p, c.token, c.form, false)
		} else {
			r = e.post(t, p, c.token, c.form)
		}
		if r.status != c.status {
			t.Errorf("%s: %d, want %d\n%s", c.name, r.status, c.status, r.body)
		}
	}
	if got := scopesOf(k.ID); strings.Join(got, ",") != "assets:read,assets:ohlcv:read" {
		t.Fatalf("refused requests changed the scopes: %v", got)
	}
	if got := scopesOf(foreign.ID); strings.Join(got, ",") != "assets:read" {
		t.Fatalf("foreign key's scopes changed: %v", got)
	}
	// The owner removes assets:read and adds execution:read.
	r := e.post(t, path, ownerTok, url.Values{"scope": {"assets:ohlcv:read", "execution:read"}})
	if saved := e.follow(t, r, ownerTok); !strings.HasPrefix(r.header.Get("Location"), base+"keys/"+k.ID+"/?flash=") ||
		!strings.Contains(saved.body, "Scopes saved: assets:ohlcv:read, execution:read.") {
		t.Fatalf("set scopes: %d %v %s", r.status, r.header, saved.body)
	}
	if got := scopesOf(k.ID); strings.Join(got, ",") != "assets:ohlcv:read,execution:read" {
		t.Fatalf("scopes after the form = %v", got)
	}
	// A revoked key's scopes cannot change.
	if err := mgr.Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if r := e.post(t, path, ownerTok, url.Values{"scope": {"assets:read"}}); r.status != 400 {
		t.Fatalf("scopes of a revoked key: %d", r.status)
	}
}

// TestSignOutRevokesSession: after sign-out the same token (a copy of the
// cookie) no longer opens the dashboard: it is revoked in the store, not
// only cleared from the browser.
func TestSignOutRevokesSession(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	local := session.Local{Store: e.st, Now: time.Now}
	tok, _, err := local.Create(ctx, "u-owner", "o@example.com", session.DefaultTTL)
	if err != nil {
		t.Fatal(err)
	}
	e.h.d.Sessions = session.Router{Local: local}
	page := projectURL(e.owner.ProjectID)
	if r := e.do(t, "GET", page, tok, nil, false); r.status != 200 {
		t.Fatalf("project page signed in: %d", r.status)
	}
	r := e.post(t, "/dashboard/signout", tok, nil)
	if r.status != 303 || cookie(t, r.header, sessionCookie).MaxAge >= 0 {
		t.Fatalf("sign-out: %d %v", r.status, r.header)
	}
	if r := e.do(t, "GET", page, tok, nil, false); r.status != 303 || r.header.Get("Location") != "/dashboard/" {
		t.Fatalf("project page with the signed-out token: %d %v; want 303 to sign-in", r.status, r.header)
	}
	if r := e.do(t, "GET", "/dashboard/", tok, nil, false); r.status != 200 || !strings.Contains(r.body, `id="token"`) {
		t.Fatalf("home with the signed-out token: %d; want the sign-in page", r.status)
	}
}
