package dashboard

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage/sqlite"
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

type fakeUsage []DayCount

func (f fakeUsage) UsageByDay(context.Context, string, time.Time, time.Time) ([]DayCount, error) {
	return f, nil
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

func newEnv(t *testing.T, usage Usage) *env {
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
	h := New(Deps{
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sessions: fakeSessions{ownerTok: {UserID: "u-owner", PrimaryEmail: "o@example.com"}, memberTok: {UserID: "u-member", PrimaryEmail: "m@example.com"}},
		Projects: st, Keys: st, KeyManager: apikey.Manager{Store: st, Now: func() time.Time { return now }},
		Usage: usage, Lists: svc, Views: lists.NewViews(st, 100), Tokens: fakeTokens{}, Now: func() time.Time { return now },
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
	if r := signIn("ads_nope", "abc", "abc", false); r.status != 401 || !strings.Contains(r.body, "invalid or expired") ||
		!strings.Contains(r.body, "This server reads sessions from SQLite in ./data-demo; CLI commands reach it with --demo") {
		t.Fatalf("sign-in with a bad session: %d %s", r.status, r.body)
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
	// The owner creates a key: the secret is on that page only.
	r := e.post(t, base+"keys", ownerTok, url.Values{"scope": {"assets:read", "assets:risk:read"}})
	ks := e.keys(t)
	if r.status != 200 || len(ks) != 1 || !strings.Contains(r.body, `id="secret">adk_`) {
		t.Fatalf("create: %d keys=%d\n%s", r.status, len(ks), r.body)
	}
	secret := r.body[strings.Index(r.body, `id="secret">`)+len(`id="secret">`):]
	secret = secret[:strings.Index(secret, "<")]
	if apikey.Hash(secret) != ks[0].Hash || len(ks[0].Scopes) != 2 {
		t.Fatalf("secret does not match the stored key %+v", ks[0])
	}
	page := e.do(t, "GET", base, ownerTok, nil, false)
	if strings.Contains(page.body, secret) || !strings.Contains(page.body, ks[0].ID) || !strings.Contains(page.body, "usage not available") {
		t.Fatalf("project page after create:\n%s", page.body)
	}
	// Regenerate: a new secret, the old key revoked.
	r = e.post(t, base+"keys/"+ks[0].ID+"/regenerate", ownerTok, nil)
	if r.status != 200 || !strings.Contains(r.body, "was regenerated") || strings.Contains(r.body, secret) {
		t.Fatalf("regenerate: %d", r.status)
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
	if r := e.post(t, base+"keys/"+next.ID+"/limits", ownerTok, url.Values{"rateRequests": {"10"}, "rateWindowSeconds": {"60"}, "quotaPerMonth": {"1000"}}); r.status != 303 {
		t.Fatalf("limits: %d %s", r.status, r.body)
	}
	got, _ := e.st.GetKey(context.Background(), next.ID)
	if got.Limits != (apikey.Limits{RateRequests: 10, RateWindow: time.Minute, QuotaPerMonth: 1000}) {
		t.Fatalf("limits = %+v", got.Limits)
	}
	if r := e.post(t, base+"keys/"+next.ID+"/limits", ownerTok, url.Values{"rateRequests": {"10"}}); r.status != 400 {
		t.Fatalf("rate without window: %d", r.status)
	}
	if r := e.post(t, base+"keys/"+next.ID+"/revoke", ownerTok, nil); r.status != 303 {
		t.Fatalf("revoke: %d", r.status)
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

func TestUsageChart(t *testing.T) {
	day := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	e := newEnv(t, fakeUsage{{Day: day, Count: 40}, {Day: day.AddDate(0, 0, 1), Count: 10}})
	_, k, err := (apikey.Manager{Store: e.st, Now: time.Now}).Create(context.Background(), "acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := e.do(t, "GET", projectURL(e.owner.ProjectID)+"keys/"+k.ID+"/", ownerTok, nil, false)
	if r.status != 200 || !strings.Contains(r.body, "50 requests in total") || !strings.Contains(r.body, "<title>2026-11-19: 40</title>") ||
		!strings.Contains(r.body, `height="140"`) {
		t.Fatalf("usage page: %d\n%s", r.status, r.body)
	}
	if p := e.do(t, "GET", projectURL(e.owner.ProjectID), ownerTok, nil, false); !strings.Contains(p.body, "2026-11-20") {
		t.Fatalf("last used not shown:\n%s", p.body)
	}
	// Without a usage reader the page says so.
	e2 := newEnv(t, nil)
	_, k2, _ := (apikey.Manager{Store: e2.st, Now: time.Now}).Create(context.Background(), "acme", nil)
	if r := e2.do(t, "GET", projectURL(e2.owner.ProjectID)+"keys/"+k2.ID+"/", ownerTok, nil, false); !strings.Contains(r.body, "Usage not available") {
		t.Fatalf("no usage reader:\n%s", r.body)
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
		r.header.Get("Location") != listURL(e.owner.ProjectID, "top-picks") {
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
	if r.status != 303 || r.header.Get("Location") != base+"keys/"+k.ID+"/" {
		t.Fatalf("set scopes: %d %v %s", r.status, r.header, r.body)
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
