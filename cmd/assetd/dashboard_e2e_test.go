package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
// in with a local session, create a key and use it, regenerate it (the old
// secret stops working), take a scope away (the key gets 403), create a list, add two members through the
// search, publish it and read it back through the API. Every step leaves a
// screenshot in $ASSETD_E2E_SCREENS.
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
	s := startServer(t, "--data-dir", dir, "--demo")

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

	// 1. Sign in with the local session token.
	run("sign in",
		chromedp.Navigate(s.base+"/dashboard/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		shot("signin"),
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("create-key")),
		shot("project"),
	)

	// 2. Create a key; it works on the API.
	run("create key",
		chromedp.Click(chromedp.ID("create-key")),
		chromedp.WaitVisible(chromedp.ID("secret")),
		shot("key-created"),
	)
	key1, key1ID := text("secret"), text("secret-key-id")
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
	keyPage := s.base + "/dashboard/p/" + projectIDOf(t, dir, "e2e") + "/keys/" + key2ID + "/"
	scopeBox := `//input[@name="scope" and @value="assets:read"]`
	run("remove a scope",
		chromedp.Navigate(keyPage),
		chromedp.WaitVisible(chromedp.ID("save-scopes")),
		chromedp.Click(scopeBox), // untick assets:read
		chromedp.Click(`//input[@name="scope" and @value="assets:ohlcv:read"]`),
		shot("scope-unticked"),
		chromedp.Click(chromedp.ID("save-scopes")),
		chromedp.WaitVisible(scopeBox+`[not(@checked)]`),
		shot("scope-removed"),
	)
	took = eventually(t, time.Minute, "key without assets:read answers 403", func() bool { return keyStatus(t, s, key2) == http.StatusForbidden })
	t.Logf("scope removal refused the key (403) %s after the key page rendered", took)
	run("grant the scope again",
		chromedp.Click(scopeBox),
		chromedp.Click(chromedp.ID("save-scopes")),
		chromedp.WaitVisible(scopeBox+`[@checked]`),
		chromedp.Navigate(s.base+"/dashboard/"),
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
		shot("published"),
	)

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
}
