package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// memExports is an in-memory tokenlist.Store (the engines' own behaviour
// is in the storage conformance suite).
type memExports struct {
	mu sync.Mutex
	m  map[string]tokenlist.State
}

func (s *memExports) ExportState(_ context.Context, key string) (tokenlist.State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[key]
	if !ok {
		return st, storage.ErrNotFound
	}
	return st, nil
}

func (s *memExports) SaveExportState(_ context.Context, st tokenlist.State, prev *tokenlist.Version) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.m[st.Key]
	if ok != (prev != nil) || ok && cur.Version != *prev {
		return storage.ErrConflict
	}
	s.m[st.Key] = st
	return nil
}

// exportHarness is the list harness with the export route and a clock that
// advances one second per read.
func exportHarness(t *testing.T) (*harness, advMap) {
	t.Helper()
	h, adv, _ := listHarness(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h.srv.d.TokenLists = &tokenlist.Exporter{Store: &memExports{m: map[string]tokenlist.State{}}, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}}
	h.h = h.srv.build(nil)
	return h, adv
}

type exported struct {
	Name      string            `json:"name"`
	Timestamp string            `json:"timestamp"`
	Version   tokenlist.Version `json:"version"`
	Tokens    []tokenlist.Token `json:"tokens"`
}

func getExport(t *testing.T, h *harness, slug string) (exported, resp) {
	t.Helper()
	r := h.get(t, "/v2/lists/"+slug+"/tokenlist.json")
	var doc exported
	if r.status == 200 {
		if err := json.Unmarshal([]byte(r.raw), &doc); err != nil {
			t.Fatalf("decode %s: %v", r.raw, err)
		}
	}
	return doc, r
}

func TestTokenListExportVersions(t *testing.T) {
	h, _ := exportHarness(t)
	key := h.plain["read"]
	send := func(method, path, body string, want int) {
		t.Helper()
		if r := h.send(t, method, path, key, body); r.status != want {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.raw)
		}
	}
	send("POST", "/v2/lists", `{"slug":"my-list","name":"My list: majors!","status":"draft"}`, 201)
	// Same visibility as the list read: a draft is 404.
	if _, r := getExport(t, h, "my-list"); r.status != 404 || errTag(r) != "NotFoundError" {
		t.Fatalf("draft export: %d %s", r.status, r.raw)
	}
	send("PATCH", "/v2/lists/my-list", `{"status":"published"}`, 200)
	send("PUT", "/v2/lists/my-list/members/"+mkUSDC, "", 201)
	send("PUT", "/v2/lists/my-list/members/"+mkSOL, "", 201)

	doc, r := getExport(t, h, "my-list")
	if r.status != 200 || r.header.Get("Cache-Control") != cacheLists || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("export: %d %v %s", r.status, r.header, r.raw)
	}
	if doc.Name != "My list majors" || doc.Version != tokenlist.Initial || len(doc.Tokens) != 2 ||
		doc.Tokens[0].Address != mkUSDC || doc.Tokens[0].ChainID != 101 || doc.Tokens[1].Address != mkSOL {
		t.Fatalf("first export: %+v", doc)
	}
	if doc.Tokens[0].Symbol == "" || len(doc.Tokens[0].Tags) == 0 || doc.Tokens[0].Tags[0] != tokenlist.TagVerified {
		t.Fatalf("token fields: %+v", doc.Tokens[0])
	}
	// No change, no bump: same version and timestamp.
	again, _ := getExport(t, h, "my-list")
	if again.Version != doc.Version || again.Timestamp != doc.Timestamp {
		t.Fatalf("unchanged list moved: %+v then %+v", doc, again)
	}
	steps := []struct {
		what         string
		method, path string
		body         string
		status       int
		want         tokenlist.Version
	}{
		{"reorder (patch)", "PUT", "/v2/lists/my-list/members/" + mkSOL, `{"rank":1}`, 200, tokenlist.Version{Major: 1, Patch: 1}},
		{"rename (patch: metadata only, no token change → no bump)", "PATCH", "/v2/lists/my-list", `{"name":"Renamed"}`, 200, tokenlist.Version{Major: 1, Patch: 1}},
		{"removal (major)", "DELETE", "/v2/lists/my-list/members/" + mkUSDC, "", 200, tokenlist.Version{Major: 2}},
		{"addition (minor)", "PUT", "/v2/lists/my-list/members/" + mkUSDC, "", 201, tokenlist.Version{Major: 2, Minor: 1}},
	}
	for _, st := range steps {
		send(st.method, st.path, st.body, st.status)
		got, r := getExport(t, h, "my-list")
		if r.status != 200 || got.Version != st.want {
			t.Fatalf("%s: version %+v, want %+v (%s)", st.what, got.Version, st.want, r.raw)
		}
	}
	// Curated slugs export too.
	cur, r := getExport(t, h, "majors")
	if r.status != 200 || cur.Version != tokenlist.Initial || len(cur.Tokens) == 0 {
		t.Fatalf("curated export: %d %s", r.status, r.raw)
	}
	if _, r := getExport(t, h, "no-such-list"); r.status != 404 {
		t.Fatalf("unknown slug: %d", r.status)
	}
}

// TestTokenListMatchesPublishedSchema validates exports against the JSON
// schema of @uniswap/token-lists, fetched from the npm registry at test
// time (skips when npm or the registry is unavailable).
func TestTokenListMatchesPublishedSchema(t *testing.T) {
	sch := uniswapSchema(t)
	h, _ := exportHarness(t)
	key := h.plain["read"]
	for _, req := range []struct{ method, path, body string }{
		{"POST", "/v2/lists", `{"slug":"schema-check","name":"Schema check – ünïcode & punctuation, much longer than thirty characters"}`},
		{"PUT", "/v2/lists/schema-check/members/" + mkUSDC, ""},
		{"PUT", "/v2/lists/schema-check/members/" + mkSOL, ""},
	} {
		if r := h.send(t, req.method, req.path, key, req.body); r.status >= 300 {
			t.Fatalf("%s %s: %d %s", req.method, req.path, r.status, r.raw)
		}
	}
	// The validator is live: the raw list name breaks the schema's name rule.
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"name":"Schema check – ü","timestamp":"2026-11-01T00:00:00Z","version":{"major":1,"minor":0,"patch":0},"tokens":[{"chainId":101,"address":"` + mkSOL + `","symbol":"SOL","name":"SOL","decimals":9}]}`))
	if sch.Validate(bad) == nil {
		t.Fatal("the schema accepts a name with punctuation: validation is not running")
	}
	for _, slug := range []string{"schema-check", "majors"} {
		r := h.get(t, "/v2/lists/"+slug+"/tokenlist.json")
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s does not match the token-lists schema: %v\n%s", slug, err, r.raw)
		}
	}
}

func uniswapSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed: cannot fetch @uniswap/token-lists; schema check skipped")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "@uniswap/token-lists", "--pack-destination", dir, "--silent")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("npm pack @uniswap/token-lists failed (registry unreachable?): %v: %s; schema check skipped", err, out)
	}
	tgz := filepath.Join(dir, strings.TrimSpace(lastLine(string(out))))
	if err := exec.CommandContext(ctx, "tar", "-xzf", tgz, "-C", dir, "package/src/tokenlist.schema.json").Run(); err != nil {
		t.Fatalf("extract schema from %s: %v", tgz, err)
	}
	f, err := os.Open(filepath.Join(dir, "package/src/tokenlist.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // timestamp is date-time, logoURI is uri
	if err := c.AddResource("tokenlist.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("tokenlist.schema.json")
	if err != nil {
		t.Fatalf("compile the published schema: %v", err)
	}
	return sch
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
