package httpapi

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestErrorCodesDocumented (issue 12 item 11): every details.code the API
// can emit, from the handlers and from the list rules, is listed in
// docs/errors.md, so clients can branch on each.
func TestErrorCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{ // code → where it is emitted
		"rate_limited":  "middleware.go (limiter reason rate)",
		"quota_limited": "middleware.go (limiter reason quota)",
	}
	literal := regexp.MustCompile(`"code": *"([a-z_]+)"`)
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			codes[m[1]] = f
		}
	}
	src, err := os.ReadFile("../lists/errors.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`Code\w+ *= *"([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		codes[m[1]] = "internal/lists/errors.go"
	}
	whsrc, err := os.ReadFile("../webhooks/webhooks.go")
	if err != nil {
		t.Fatal(err)
	}
	guard, err := os.ReadFile("../webhooks/guard.go")
	if err != nil {
		t.Fatal(err)
	}
	service, err := os.ReadFile("../webhooks/service.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range [][]byte{whsrc, guard, service} {
		for _, m := range regexp.MustCompile(`inputErr\("([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
			codes[m[1]] = "internal/webhooks"
		}
	}
	if len(codes) < 25 {
		t.Fatalf("found only %d codes; the scan is broken", len(codes))
	}
	var missing []string
	for c, where := range codes {
		if !strings.Contains(string(doc), "`"+c+"`") {
			missing = append(missing, c+" ("+where+")")
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("details.code values missing from docs/errors.md:\n  %s", strings.Join(missing, "\n  "))
	}
}

// TestListWritesNeedAssetsRead (issue 12 item 11): "Every v2 list endpoint
// needs only assets:read" and "every key of a project, whatever its read
// scopes, may manage that project's lists": a key of the project holding
// assets:read may write; one holding only a fine-grained read scope may
// not (403 insufficient_scope, before any list rule).
func TestListWritesNeedAssetsRead(t *testing.T) {
	h, _, _ := listHarness(t)
	if r := h.send(t, "POST", "/v2/lists", h.plain["read"], `{"slug":"scope-test","name":"Scope"}`); r.status != 201 {
		t.Fatalf("assets:read create: %d %s", r.status, r.raw)
	}
	for _, k := range []string{"risk", "none"} { // assets:risk:read, assets:ohlcv:read only
		wantErr(t, h.send(t, "POST", "/v2/lists", h.plain[k], `{"slug":"scope-test-2","name":"Scope"}`), 403, "ForbiddenError", "insufficient_scope")
		wantErr(t, h.send(t, "GET", "/v2/lists/scope-test", h.plain[k], ""), 403, "ForbiddenError", "insufficient_scope")
	}
}
