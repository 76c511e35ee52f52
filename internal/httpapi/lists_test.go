package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage/sqlite"
)

type advMap map[string]*asset.Advisory

func (a advMap) Get(m string) *asset.Advisory { return a[m] }

// listHarness serves the v2 lists over a fresh SQLite store with two
// projects' keys ("read" owns lists, "other" does not) and small limits.
func listHarness(t *testing.T) (*harness, advMap, string) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc, err := lists.New(st, lists.Limits{ListsPerProject: 3, MembersPerList: 4, BatchSize: 8}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	h := newAssetHarness(t, newSeedCatalog(t, false))
	adv := advMap{}
	h.srv.d.Lists, h.srv.d.Advisories = svc, adv
	h.srv.d.ListViews = lists.NewViews(st, svc.Limits().MembersPerList)
	// The reader's advisories number their states by content, so list
	// reads go through the caches keyed by the advisory version.
	h.srv.d.ListReader = &lists.Reader{Catalog: h.srv.d.Catalog, Views: h.srv.d.ListViews, Advisories: contentVersioned{adv}, Log: h.srv.d.Log}
	h.srv.d.ListsConfig = ListsConfig{BatchBudget: 3}.withDefaults()
	// A key of another project (mkKey gives each key its own project).
	otherPlain, other := mkKey(t, "key_other", apikey.ScopeAssetsRead)
	h.keys.set(t, append(h.keysFor(t), other)...)
	h.h = h.srv.build(nil)
	return h, adv, otherPlain
}

// keysFor re-reads the harness keys so more can be added.
func (h *harness) keysFor(t *testing.T) []apikey.Key {
	t.Helper()
	var out []apikey.Key
	for name, p := range h.plain {
		k := h.keys.Lookup(p)
		if k == nil {
			t.Fatalf("key %s vanished", name)
		}
		out = append(out, *k)
	}
	return out
}

func (h *harness) send(t *testing.T, method, path, key, body string) resp {
	t.Helper()
	hdr := map[string]string{"X-Api-Key": key}
	if body != "" {
		hdr["Content-Type"] = "application/json"
	}
	return h.do(t, method, path, hdr, strings.NewReader(body))
}

func TestListsLifecycle(t *testing.T) {
	h, adv, other := listHarness(t)
	key := h.plain["read"]
	must := func(r resp, status int) resp {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
		}
		return r
	}
	// Create: rules and codes.
	must(h.send(t, "POST", "/v2/lists", key, `{"slug":"my-list","name":"Mine"}`), 201)
	for _, tc := range []struct{ body, code string }{
		{`{"slug":"My-List","name":"x"}`, "invalid_slug"},
		{`{"slug":"ab","name":"x"}`, "invalid_slug"},
		{`{"slug":"tokens","name":"x"}`, "reserved_slug"},
		{`{"slug":"majors","name":"x"}`, "reserved_slug"},
		{`{"slug":"my-list","name":"x"}`, "slug_conflict"},
	} {
		if r := h.send(t, "POST", "/v2/lists", key, tc.body); r.status != 400 || errCode(r) != tc.code {
			t.Errorf("create %s: %d %s", tc.body, r.status, r.raw)
		}
	}
	must(h.send(t, "POST", "/v2/lists", key, `{"slug":"second","name":"2","status":"draft"}`), 201)
	must(h.send(t, "POST", "/v2/lists", key, `{"slug":"third","name":"3","status":"unlisted"}`), 201)
	if r := h.send(t, "POST", "/v2/lists", key, `{"slug":"fourth","name":"4"}`); r.status != 400 || errCode(r) != "project_lists_limit" {
		t.Fatalf("over the project limit: %d %s", r.status, r.raw)
	}
	// Reads by status: draft 404, unlisted readable, published readable.
	must(h.get(t, "/v2/lists/second"), 404)
	must(h.get(t, "/v2/lists/third"), 200)
	must(h.get(t, "/v2/lists/my-list"), 200)
	// The catalog shows curated lists first and only published community lists.
	cat := must(h.get(t, "/v2/lists"), 200)
	ls := cat.body["lists"].([]any)
	if ls[0].(map[string]any)["curated"] != true || ls[len(ls)-1].(map[string]any)["slug"] != "my-list" {
		t.Fatalf("catalog order: %s", cat.raw)
	}
	if strings.Contains(cat.raw, `"third"`) || strings.Contains(cat.raw, `"second"`) {
		t.Fatalf("catalog shows unpublished lists: %s", cat.raw)
	}
	// Members: registry mints resolve verified; ranks stay dense.
	must(h.send(t, "PUT", "/v2/lists/my-list/members/"+mkUSDC, key, ""), 201)
	must(h.send(t, "PUT", "/v2/lists/my-list/members/"+mkSOL, key, `{"rank":1,"note":"first"}`), 201)
	if r := h.send(t, "PUT", "/v2/lists/my-list/members/nope", key, ""); r.status != 400 || errCode(r) != "invalid_mint" {
		t.Fatalf("invalid mint: %s", r.raw)
	}
	if r := h.send(t, "PUT", "/v2/lists/my-list/members/"+mkUnknown, key, ""); r.status != 400 || errCode(r) != "unknown_mint" {
		t.Fatalf("unknown mint: %s", r.raw)
	}
	// Another project may not write.
	if r := h.send(t, "PUT", "/v2/lists/my-list/members/"+mkUSDC, other, ""); r.status != 403 || errTag(r) != "ForbiddenError" {
		t.Fatalf("foreign write: %d %s", r.status, r.raw)
	}
	if r := h.send(t, "DELETE", "/v2/lists/my-list", other, ""); r.status != 403 {
		t.Fatalf("foreign delete: %d", r.status)
	}
	d := must(h.get(t, "/v2/lists/my-list"), 200)
	toks := d.body["tokens"].([]any)
	if len(toks) != 2 || toks[0].(map[string]any)["mint"] != mkSOL || toks[0].(map[string]any)["rank"] != 1.0 ||
		toks[0].(map[string]any)["note"] != "first" || toks[1].(map[string]any)["rank"] != 2.0 || toks[0].(map[string]any)["verified"] != true {
		t.Fatalf("detail tokens: %s", d.raw)
	}
	// Bulk: dedupe, invalid, unknown, list_full at 4 members.
	snap, _ := seedSnapshot()
	var mints []string
	for _, a := range snap.Assets()[:3] {
		mints = append(mints, fmt.Sprintf("%q", a.Variants[0].Mint))
	}
	body := `{"mints":["nope",` + fmt.Sprintf("%q,%q,", mkUnknown, mkSOL) + strings.Join(mints, ",") + "," + mints[0] + `]}`
	b := must(h.send(t, "POST", "/v2/lists/my-list/members", key, body), 200)
	if !strings.Contains(b.raw, `"error":"invalid_mint"`) || !strings.Contains(b.raw, `"error":"unknown_mint"`) || !strings.Contains(b.raw, `"error":"list_full"`) {
		t.Fatalf("bulk failures: %s", b.raw)
	}
	if r := h.send(t, "POST", "/v2/lists/my-list/members", key, `{"mints":["a","b","c","d","e","f","g","h","i"]}`); r.status != 400 || errCode(r) != "batch_too_large" {
		t.Fatalf("batch too large: %s", r.raw)
	}
	// Advisories: blocked omitted with dense ranks and visible counts;
	// caution carried.
	adv[mkSOL] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "test", Since: 1}
	adv[mkUSDC] = &asset.Advisory{Status: asset.AdvisoryCaution, Reason: "test", Since: 1}
	d = must(h.get(t, "/v2/lists/my-list"), 200)
	toks = d.body["tokens"].([]any)
	if strings.Contains(d.raw, mkSOL) || toks[0].(map[string]any)["rank"] != 1.0 || d.body["tokenCount"] != float64(len(toks)) ||
		toks[0].(map[string]any)["advisory"].(map[string]any)["status"] != "caution" {
		t.Fatalf("advisory handling: %s", d.raw)
	}
	delete(adv, mkSOL)
	// Compose: union, per-token lists, notFound, limits.
	c := must(h.get(t, "/v2/lists/tokens?lists=my-list,majors,second,nope&limit=2"), 200)
	if nf := c.body["notFound"].([]any); len(nf) != 2 || c.body["total"].(float64) < 4 || len(c.body["tokens"].([]any)) != 2 {
		t.Fatalf("compose: %s", c.raw)
	}
	if !strings.Contains(c.raw, `"lists":["my-list","majors"]`) {
		t.Fatalf("compose per-token lists: %s", c.raw)
	}
	if r := h.get(t, "/v2/lists/tokens?lists=a1a,b1b,c1c,d1d,e1e,f1f,g1g,h1h,i1i,j1j,k1k"); r.status != 400 {
		t.Fatalf("11 lists: %d", r.status)
	}
	if r := h.get(t, "/v2/lists/tokens"); r.status != 400 || errCode(r) != "missing_param" {
		t.Fatalf("no lists: %s", r.raw)
	}
	// Member delete: 404 when absent; ranks close up.
	must(h.send(t, "DELETE", "/v2/lists/my-list/members/"+mkSOL, key, ""), 200)
	must(h.send(t, "DELETE", "/v2/lists/my-list/members/"+mkSOL, key, ""), 404)
	// Rename holds the old slug; archive hides; delete releases.
	must(h.send(t, "PATCH", "/v2/lists/my-list", key, `{"slug":"renamed","name":"Renamed"}`), 200)
	must(h.get(t, "/v2/lists/my-list"), 404)
	if r := h.send(t, "POST", "/v2/lists", other, `{"slug":"my-list","name":"steal"}`); r.status != 400 || errCode(r) != "slug_conflict" {
		t.Fatalf("held slug taken by another project: %s", r.raw)
	}
	for _, st := range []string{"archived", "draft", "unlisted", "published"} {
		must(h.send(t, "PATCH", "/v2/lists/renamed", key, `{"status":"`+st+`"}`), 200)
		want := 200
		if st == "archived" || st == "draft" {
			want = 404
		}
		must(h.get(t, "/v2/lists/renamed"), want)
	}
	if r := h.send(t, "PATCH", "/v2/lists/renamed", key, `{"status":"gone"}`); r.status != 400 || errCode(r) != "invalid_status" {
		t.Fatalf("bad status: %s", r.raw)
	}
	must(h.send(t, "DELETE", "/v2/lists/renamed", key, ""), 200)
	must(h.get(t, "/v2/lists/renamed"), 404)
	must(h.send(t, "POST", "/v2/lists", other, `{"slug":"renamed","name":"free again"}`), 201)
	// Curated lists cannot be written.
	if r := h.send(t, "PUT", "/v2/lists/majors/members/"+mkSOL, key, ""); r.status != 403 {
		t.Fatalf("curated write: %d", r.status)
	}
	// Curated detail is readable.
	if r := h.get(t, "/v2/lists/majors?limit=5"); r.status != 200 || len(r.body["tokens"].([]any)) != 5 || r.body["curated"] != true {
		t.Fatalf("curated detail: %s", r.raw)
	}
}

func TestListsBatchBudget(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	h.send(t, "POST", "/v2/lists", key, `{"slug":"budget","name":"b"}`)
	for i := range 3 {
		if r := h.send(t, "POST", "/v2/lists/budget/members", key, `{"mints":[]}`); r.status != 200 {
			t.Fatalf("call %d: %d %s", i, r.status, r.raw)
		}
	}
	if r := h.send(t, "POST", "/v2/lists/budget/members", key, `{"mints":[]}`); r.status != 429 || errTag(r) != "RateLimitedError" {
		t.Fatalf("over budget: %d %s", r.status, r.raw)
	}
}
