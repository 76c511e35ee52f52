package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/assetd/assetd/internal/contracttest"
)

// screensEnv names the directory the browser test writes its step
// screenshots to (default $TMPDIR/assetd-e2e-screens); .ci/run sets it.
const screensEnv = "ASSETD_E2E_SCREENS"

// chromium returns the browser binary, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ASSETD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary found (install Debian's chromium or set ASSETD_CHROMIUM): browser test skipped")
	return ""
}

// axeEnv names axe-core's axe.min.js for the accessibility check; without
// it the test looks in the cache .ci/run installs to
// ($XDG_CACHE_HOME or ~/.cache)/assetd/axe and in ./node_modules.
const axeEnv = "ASSETD_AXE_JS"

// axeSource returns axe-core's script and where it came from, or "" and
// why not.
func axeSource() (src, from string) {
	var cands []string
	if p := os.Getenv(axeEnv); p != "" {
		cands = append(cands, p)
	}
	if d, err := os.UserCacheDir(); err == nil {
		cands = append(cands, filepath.Join(d, "assetd", "axe", "node_modules", "axe-core", "axe.min.js"))
	}
	cands = append(cands, filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js"))
	for _, p := range cands {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			return string(b), p
		}
	}
	return "", "axe-core not found (looked at " + strings.Join(cands, ", ") + "; .ci/run installs it with npm, or set " + axeEnv + ")"
}

// axeViolation is one failed axe-core rule on a page.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeRun injects axe-core into the current page (through DevTools, so the
// page's Content-Security-Policy does not apply) and runs every rule
// axe-core enables by default (WCAG 2.x A/AA and best practices).
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || "", help: v.help,
  nodes: v.nodes.map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").replace(/\s+/g, " "))})))`

// pageWidth is what the 360 px check measures.
type pageWidth struct {
	ScrollWidth int `json:"scrollWidth"`
	ClientWidth int `json:"clientWidth"`
	InnerWidth  int `json:"innerWidth"`
}

// keyStatus is the status of an authenticated call with key.
func keyStatus(t *testing.T, s *server, key string) int {
	t.Helper()
	status, _, _ := s.get(t, authedPath, map[string]string{"x-api-key": key})
	return status
}

// projectIDOf returns the id of the named project, from the member
// listing of the CLI.
func projectIDOf(t *testing.T, dir, name string) string {
	t.Helper()
	out := mustCLI(t, "projects", "members", "--project", name, "--data-dir", dir)
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "prj_") {
			return f
		}
	}
	t.Fatalf("no project id for %s in %q", name, out)
	return ""
}

// TestDashboardInBrowser drives the dashboard in headless Chromium: sign
// in with a local session, pick the project, create a named key (the
// secret and quickstart are shown once; reloading the page creates no key
// and shows no secret) and use it, regenerate it (the old secret stops
// working), take a scope away (the key gets 403), create a list, add two
// members through the search, publish it and read it back through the
// API, then set the key's limits low and read its usage page (per day and
// per hour, 4xx/429/5xx, route breakdown, quota meter, last used). Every
// step leaves a screenshot in $ASSETD_E2E_SCREENS; every page is checked
// at 1280 px and at 360 px (the page must not scroll sideways: its
// scrollWidth fits its width) and, when axe-core is available, with
// axe-core (0 violations; the "axe-core" subtest skips without it).
func TestDashboardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := chromium(t)
	screens := os.Getenv(screensEnv)
	if screens == "" {
		screens = filepath.Join(os.TempDir(), "assetd-e2e-screens")
	}
	if err := os.MkdirAll(screens, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots: %s", screens)

	dir := t.TempDir()
	token := strings.TrimSpace(mustCLI(t, "sessions", "create", "--user-id", "e2e-user", "--email", "e2e@example.com", "--data-dir", dir))
	mustCLI(t, "projects", "add-member", "--project", "e2e", "--user-id", "e2e-user", "--role", "owner", "--data-dir", dir)
	// A second project, so the projects page lists them rather than
	// redirecting to the only one.
	mustCLI(t, "projects", "add-member", "--project", "e2e-other", "--user-id", "e2e-user", "--role", "member", "--data-dir", dir)
	// --webhook-allow-private: the webhook step's receiver is an
	// httptest server on 127.0.0.1.
	s := startServer(t, "--data-dir", dir, "--demo", "--webhook-allow-private")
	axeJS, axeFrom := axeSource()
	t.Logf("accessibility check: %s", map[bool]string{true: "axe-core from " + axeFrom, false: axeFrom}[axeJS != ""])
	keyCount := func() int {
		t.Helper()
		return strings.Count(mustCLI(t, "keys", "list", "--data-dir", dir), "key_")
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser), chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer cancelCtx()
	// The first run starts the browser and must not carry a timeout; each
	// later step gets a generous one (the machine may be busy).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium %s: %v", browser, err)
	}
	stepCtx := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 90*time.Second) }

	step := 0
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			step++
			png, err := chromedp.FullScreenshot(100)(ctx, tg) // quality 100: PNG
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(screens, fmt.Sprintf("%02d-%s.png", step, name)), png, 0o644)
		})
	}
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		c, cancel := stepCtx()
		defer cancel()
		if err := chromedp.Do(c, steps...); err != nil {
			t.Fatalf("%s: %v\nserver log:\n%s", what, err, s.logs)
		}
	}
	// check screenshots the current page at desktop and phone widths,
	// measures that it does not scroll sideways at 360 px, and runs
	// axe-core on it (violations are reported by the axe-core subtest).
	type widthResult struct {
		page string
		pageWidth
	}
	var widths []widthResult
	axeFound := map[string][]axeViolation{}
	runAxe := func() ([]axeViolation, error) {
		c, cancel := stepCtx()
		defer cancel()
		var v []axeViolation
		err := chromedp.Do(c, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := chromedp.Evaluate[bool](axeJS+"\n;true")(ctx, tg); err != nil {
				return err
			}
			var err error
			v, err = chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise)(ctx, tg)
			return err
		}))
		return v, err
	}
	check := func(name string) {
		t.Helper()
		for _, vp := range []struct {
			label string
			w, h  int64
			opts  []chromedp.EmulateViewportOption
		}{{"desktop", 1280, 1000, nil}, {"phone", 360, 780, []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait}}} {
			run(name+" at "+vp.label, chromedp.EmulateViewport(vp.w, vp.h, vp.opts...), shot(name+"-"+vp.label))
			if vp.label == "phone" {
				c, cancel := stepCtx()
				pw, err := chromedp.Run(c, chromedp.Evaluate[pageWidth](`({scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth, innerWidth: window.innerWidth})`))
				cancel()
				if err != nil {
					t.Fatalf("%s: measure width: %v", name, err)
				}
				widths = append(widths, widthResult{name, pw})
				if pw.ScrollWidth > pw.ClientWidth || pw.ClientWidth > 360 {
					t.Errorf("%s does not fit 360 px: scrollWidth %d, clientWidth %d, innerWidth %d (see %s)", name, pw.ScrollWidth, pw.ClientWidth, pw.InnerWidth, screens)
				}
			}
			if axeJS == "" {
				continue
			}
			v, err := runAxe()
			if err != nil {
				t.Fatalf("%s: axe-core: %v", name, err)
			}
			axeFound[name+" at "+vp.label] = v
		}
		run("back to desktop", chromedp.EmulateViewport(1280, 1000))
	}
	text := func(sel chromedp.ID) string {
		t.Helper()
		c, cancel := stepCtx()
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(v)
	}

	// 1. Sign in with the local session token; /dashboard (no slash)
	// redirects to the sign-in page.
	run("sign-in page", chromedp.Navigate(s.base+"/dashboard"), chromedp.WaitVisible(chromedp.ID("token")))
	check("signin")
	run("refused sign-in",
		chromedp.SendKeys(chromedp.ID("token"), "ads_not-a-session"),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(`//p[@role="alert" and contains(., "invalid or expired")]`),
	)
	check("signin-refused")
	run("sign in",
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(`//a[text()="e2e-other"]`),
	)
	check("projects")
	run("open the project",
		chromedp.Click(`//a[text()="e2e"]`),
		chromedp.WaitVisible(chromedp.ID("create-key")),
	)
	check("project")
	// Focus is visible: the keyboard's first Tab stop gets a 3 px outline.
	c, cancel := stepCtx()
	var focus string
	err := chromedp.Do(c, chromedp.KeyEvent("\t"), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		var err error
		focus, err = chromedp.Evaluate[string](`(() => { const e = document.activeElement, s = getComputedStyle(e);
			return e.tagName + " " + s.outlineStyle + " " + s.outlineWidth })()`)(ctx, tg)
		return err
	}))
	cancel()
	if err != nil || !strings.HasSuffix(focus, "solid 3px") || strings.HasPrefix(focus, "BODY") {
		t.Fatalf("keyboard focus not visible: %q (%v)", focus, err)
	}
	t.Logf("first Tab stop: %s", focus)

	// 2. Create a named key with the form's default scopes (the CLI's):
	// the secret and the quickstart show once; reloading the page (a GET:
	// the POST answered 303) shows no secret and creates no key. The key
	// works on the API.
	before := keyCount()
	run("create key",
		chromedp.SendKeys(chromedp.ID("key-name"), "E2E backend"),
		chromedp.Click(chromedp.ID("create-key")),
		chromedp.WaitVisible(chromedp.ID("secret")),
	)
	check("key-created")
	key1, key1ID := text("secret"), text("secret-key-id")
	if name := text("secret-key-name"); name != "E2E backend" {
		t.Fatalf("created key's name %q", name)
	}
	if qs := text("quickstart-curl"); !strings.Contains(qs, "x-api-key: "+key1) || !strings.Contains(qs, s.base+"/v1/") {
		t.Fatalf("curl quickstart %q", qs)
	}
	if qs := text("quickstart-go"); !strings.Contains(qs, s.base+"/v1/") || !strings.Contains(qs, "x-api-key") {
		t.Fatalf("Go quickstart %q", qs)
	}
	if n := keyCount(); n != before+1 {
		t.Fatalf("create made %d keys", n-before)
	}
	run("reload the key-created page",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.ID("flash-gone")),
	)
	check("key-created-reloaded")
	if n := keyCount(); n != before+1 {
		t.Fatalf("reloading the key-created page made %d more keys", n-before-1)
	}
	c, cancel = stepCtx()
	secretShown, err := chromedp.Run(c, chromedp.Evaluate[bool](`document.getElementById("secret") !== null || document.body.innerText.includes(`+"`"+key1+"`"+`)`))
	cancel()
	if err != nil || secretShown {
		t.Fatalf("the reloaded page shows the secret again (%v)", err)
	}
	if k := mustCLI(t, "keys", "list", "--data-dir", dir); !strings.Contains(k, "assets:read,execution:read") {
		t.Fatalf("the form's default scopes are not the CLI's (assets:read,execution:read): %q", k)
	}
	eventually(t, time.Minute, "new key answers 200", func() bool { return keyStatus(t, s, key1) == http.StatusOK })

	// 3. Regenerate it (the confirm dialog is answered yes): the old
	// secret gets 401, the new one 200.
	run("regenerate key",
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)(ctx, tg)
			return err
		}),
		chromedp.Click(chromedp.CSS(`form[action$="/keys/`+key1ID+`/regenerate"] button`)),
		chromedp.WaitVisible(`//p[contains(., "was regenerated")]`),
		shot("key-regenerated"),
	)
	key2, key2ID := text("secret"), text("secret-key-id")
	if key2 == "" || key2 == key1 {
		t.Fatalf("regenerated secret %q (old %q)", key2, key1)
	}
	took := eventually(t, time.Minute, "old key answers 401", func() bool { return keyStatus(t, s, key1) == http.StatusUnauthorized })
	t.Logf("old key refused %s after the regenerate page rendered", took)
	eventually(t, time.Minute, "regenerated key answers 200", func() bool { return keyStatus(t, s, key2) == http.StatusOK })

	// 4. On the key's page, replace assets:read by assets:ohlcv:read: the
	// key gets 403 on a route that needs assets:read; ticking it again
	// restores 200.
	projectPage := s.base + "/dashboard/p/" + projectIDOf(t, dir, "e2e") + "/"
	keyPage := projectPage + "keys/" + key2ID + "/"
	scopeBox := `//input[@name="scope" and @value="assets:read"]`
	run("remove a scope",
		chromedp.Navigate(keyPage),
		chromedp.WaitVisible(chromedp.ID("save-scopes")),
		chromedp.Click(scopeBox), // untick assets:read
		chromedp.Click(`//input[@name="scope" and @value="assets:ohlcv:read"]`),
		shot("scope-unticked"),
		chromedp.Click(chromedp.ID("save-scopes")),
		chromedp.WaitVisible(scopeBox+`[not(@checked)]`),
		chromedp.WaitVisible(`//p[@id="flash" and contains(., "Scopes saved")]`),
		shot("scope-removed"),
	)
	took = eventually(t, time.Minute, "key without assets:read answers 403", func() bool { return keyStatus(t, s, key2) == http.StatusForbidden })
	t.Logf("scope removal refused the key (403) %s after the key page rendered", took)
	run("grant the scope again",
		chromedp.Click(scopeBox),
		chromedp.Click(chromedp.ID("save-scopes")),
		chromedp.WaitVisible(scopeBox+`[@checked]`),
		chromedp.Navigate(projectPage),
		chromedp.WaitVisible(chromedp.ID("create-list")),
	)
	eventually(t, time.Minute, "key with assets:read again answers 200", func() bool { return keyStatus(t, s, key2) == http.StatusOK })

	// 5. Create a list, add two members through the search, publish.
	const slug = "e2e-picks"
	run("create list and add members",
		chromedp.SendKeys(chromedp.ID("list-slug"), slug),
		chromedp.SendKeys(chromedp.ID("list-name"), "E2E picks"),
		chromedp.Click(chromedp.ID("create-list")),
		chromedp.WaitVisible(chromedp.ID("save-list")),
		shot("list-created"),
		chromedp.SendKeys(chromedp.ID("q"), "usd"),
		chromedp.Click(chromedp.ID("search")),
		chromedp.WaitVisible(chromedp.ID("add-members")),
		chromedp.Click(`(//input[@name="mint"])[1]`),
		chromedp.Click(`(//input[@name="mint"])[2]`),
		shot("search"),
		chromedp.Click(chromedp.ID("add-members")),
		chromedp.WaitVisible(`//h2[contains(., "Members (2)")]`),
		shot("members-added"),
		chromedp.SetValue(chromedp.ID("l-status"), "published"),
		chromedp.Click(chromedp.ID("save-list")),
		chromedp.WaitVisible(`//span[@id="list-status-now" and text()="published"]`),
		chromedp.WaitVisible(`//p[@id="flash" and contains(., "List saved")]`),
	)
	check("list")

	// 6. Read it back through the API with the regenerated key.
	status, _, body := s.get(t, "/v2/lists/"+slug, map[string]string{"x-api-key": key2})
	toks, _ := body["tokens"].([]any)
	if status != http.StatusOK || body["status"] != "published" || len(toks) != 2 {
		t.Fatalf("GET /v2/lists/%s: %d %v", slug, status, body)
	}
	req, _ := http.NewRequest("GET", s.base+"/v2/lists/"+slug+"/tokenlist.json", nil)
	req.Header.Set("x-api-key", key2)
	resp, err := (&http.Client{Transport: contracttest.Transport(t, nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tl struct {
		Version map[string]int `json:"version"`
		Tokens  []struct {
			Address string `json:"address"`
		} `json:"tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tl); err != nil || resp.StatusCode != http.StatusOK || tl.Version["major"] != 1 {
		t.Fatalf("tokenlist.json: %d %+v %v", resp.StatusCode, tl, err)
	}

	// 7. Limits and usage: 3 requests per hour and a quota of 1000 on the
	// key; the saved limits show as the effective ones. Calls past the
	// rate get 429; the key page then counts them (once the usage
	// recorder has flushed) with the route breakdown and the quota meter.
	run("set limits",
		chromedp.Navigate(keyPage),
		chromedp.WaitVisible(chromedp.ID("save-limits")),
		chromedp.SendKeys(chromedp.ID("rr"), "3"),
		chromedp.SendKeys(chromedp.ID("rw"), "3600"),
		chromedp.SendKeys(chromedp.ID("qm"), "1000"),
		chromedp.Click(chromedp.ID("save-limits")),
		chromedp.WaitVisible(`//p[@id="flash" and contains(., "Limits saved")]`),
	)
	if got := text("eff-rate"); got != "3 requests per 3600 s" {
		t.Fatalf("effective rate %q", got)
	}
	eventually(t, time.Minute, "key past its rate answers 429", func() bool { return keyStatus(t, s, key2) == http.StatusTooManyRequests })
	eventually(t, time.Minute, "the key page counts the 429s", func() bool {
		c, cancel := stepCtx()
		defer cancel()
		if err := chromedp.Do(c, chromedp.Navigate(keyPage), chromedp.WaitVisible(chromedp.ID("count-429"))); err != nil {
			t.Fatalf("key page: %v", err)
		}
		n, err := chromedp.Run(c, chromedp.Text(chromedp.ID("count-429")))
		return err == nil && strings.TrimSpace(n) != "0"
	})
	check("key-usage")
	if lu := text("last-used"); !strings.Contains(lu, " UTC (") {
		t.Fatalf("last used %q", lu)
	}
	if q := text("quota-text"); !strings.Contains(q, "of 1000 requests") {
		t.Fatalf("quota meter text %q", q)
	}
	c, cancel = stepCtx()
	routes, err := chromedp.Run(c, chromedp.Text(chromedp.ID("routes")))
	cancel()
	if err != nil || !strings.Contains(routes, "429") || !strings.Contains(routes, "GET /v1/assets/resolve") {
		t.Fatalf("route breakdown %q (%v)", routes, err)
	}

	// 8. Webhooks: a refused form shows the service's message in place;
	// then create one on a local receiver (the signing secret shows once;
	// a reload shows it no more), queue a synthetic delivery through the
	// store as the dispatcher would, and watch the server deliver it
	// signed with the shown secret; the deliveries page lists the attempt
	// and Redeliver sends it again with the same webhook-id.
	rcv := newHookReceiver(t)
	run("webhooks page",
		chromedp.Navigate(projectPage),
		chromedp.WaitVisible(chromedp.ID("webhooks-link")),
		chromedp.Click(chromedp.ID("webhooks-link")),
		chromedp.WaitVisible(chromedp.ID("create-webhook")),
	)
	check("webhooks")
	priceBox, listBox := `//input[@name="event" and @value="price"]`, `//input[@name="event" and @value="list"]`
	run("refused webhook",
		chromedp.SendKeys(chromedp.ID("wh-url"), rcv.URL+"/hook"),
		chromedp.Click(priceBox),
		chromedp.Click(chromedp.ID("create-webhook")),
		chromedp.WaitVisible(`//p[@id="form-error" and contains(., "price_cross.mint")]`),
	)
	check("webhook-refused")
	run("create webhook",
		chromedp.Click(priceBox+`[@checked]`), // untick price
		chromedp.Click(listBox),
		chromedp.SendKeys(chromedp.ID("wh-list"), "e2e-quiet"),
		chromedp.Click(chromedp.ID("create-webhook")),
		chromedp.WaitVisible(chromedp.ID("webhook-secret")),
	)
	check("webhook-created")
	hookSecret := text("webhook-secret")
	if !strings.HasPrefix(hookSecret, "whsec_") {
		t.Fatalf("webhook secret %q", hookSecret)
	}
	c, cancel = stepCtx()
	hookPath, err := chromedp.Run(c, chromedp.Evaluate[string](`location.pathname`))
	cancel()
	if err != nil || !strings.Contains(hookPath, "/webhooks/wh_") {
		t.Fatalf("webhook page path %q (%v)", hookPath, err)
	}
	hookID := filepath.Base(strings.TrimSuffix(hookPath, "/"))
	run("reload the webhook-created page",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.ID("flash-gone")),
	)
	c, cancel = stepCtx()
	secretShown, err = chromedp.Run(c, chromedp.Evaluate[bool](`document.getElementById("webhook-secret") !== null || document.body.innerText.includes(`+"`"+hookSecret+"`"+`)`))
	cancel()
	if err != nil || secretShown {
		t.Fatalf("the reloaded webhook page shows the secret again (%v)", err)
	}
	const deliveryID = "msg_e2e_dashboard_synthetic"
	queueSyntheticDelivery(t, dir, hookID, deliveryID)
	eventually(t, time.Minute, "the receiver gets the synthetic delivery", func() bool { return rcv.count() >= 1 })
	rcv.verify(t, hookSecret, deliveryID)
	run("deliveries page",
		chromedp.Click(chromedp.ID("deliveries-link")),
		chromedp.WaitVisible(chromedp.ID("attempts")),
	)
	eventually(t, time.Minute, "the deliveries page lists the attempt", func() bool {
		c, cancel := stepCtx()
		defer cancel()
		if err := chromedp.Do(c, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("attempts"))); err != nil {
			t.Fatalf("deliveries page: %v", err)
		}
		n, err := chromedp.Run(c, chromedp.Evaluate[int](`document.querySelectorAll("tr[data-delivery]").length`))
		return err == nil && n > 0
	})
	check("deliveries")
	if a := text("attempts"); !strings.Contains(a, deliveryID) || !strings.Contains(a, "delivered") || !strings.Contains(a, "204") {
		t.Fatalf("deliveries table %q", a)
	}
	run("redeliver",
		chromedp.Click(chromedp.CSS(`form[action$="/deliveries/`+deliveryID+`/redeliver"] button`)),
		chromedp.WaitVisible(`//p[@id="flash" and contains(., "queued again")]`),
		shot("redelivered"),
	)
	eventually(t, time.Minute, "the receiver gets the redelivery", func() bool { return rcv.count() >= 2 })
	rcv.verify(t, hookSecret, deliveryID)

	for _, w := range widths {
		t.Logf("360 px: %-22s scrollWidth %d, clientWidth %d", w.page, w.ScrollWidth, w.ClientWidth)
	}
	t.Run("axe-core", func(t *testing.T) {
		if axeJS == "" {
			t.Skip(axeFrom)
		}
		// The harness finds what it should: an image without alt text on
		// a page of its own is a violation.
		c, cancel := stepCtx()
		err := chromedp.Do(c, chromedp.Navigate(`data:text/html,<!doctype html><html lang="en"><title>t</title><main><h1>t</h1><img src="x.png"></main></html>`))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		probe, err := runAxe()
		if err != nil || !slices.ContainsFunc(probe, func(v axeViolation) bool { return v.ID == "image-alt" }) {
			t.Fatalf("axe-core missed an image without alt text: %+v %v", probe, err)
		}
		pages := slices.Sorted(maps.Keys(axeFound))
		for _, p := range pages {
			for _, v := range axeFound[p] {
				t.Errorf("%s: %s (%s): %s\n  %s", p, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n  "))
			}
		}
		t.Logf("axe-core: %d page checks, %d violations", len(pages), func() (n int) {
			for _, v := range axeFound {
				n += len(v)
			}
			return n
		}())
	})
}
