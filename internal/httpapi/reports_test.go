package httpapi

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/storage"
)

// memReports is an in-memory lists.ReportStore.
type memReports struct {
	mu sync.Mutex
	m  map[string]lists.Report
}

func (s *memReports) CreateReport(_ context.Context, r lists.Report) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[r.ID] = r
	return nil
}

func (s *memReports) GetReport(_ context.Context, id string) (lists.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[id]
	if !ok {
		return lists.Report{}, storage.ErrNotFound
	}
	return r, nil
}

func (s *memReports) ListReports(context.Context, string) ([]lists.Report, error) { return nil, nil }

func (s *memReports) ResolveReport(_ context.Context, r lists.Report, _ *lists.Advisory) (lists.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.m[r.ID]
	cur.Status, cur.Resolution, cur.ResolutionNote, cur.ResolvedBy, cur.ResolvedAt = r.Status, r.Resolution, r.ResolutionNote, r.ResolvedBy, r.ResolvedAt
	s.m[r.ID] = cur
	return cur, nil
}

const reportMint = "So11111111111111111111111111111111111111112"

func TestAdvisoryReports(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	store := &memReports{m: map[string]lists.Report{}}
	reports := lists.NewReports(store, func() time.Time { return h.now })
	h.srv.d.AdvisoryReports = reports
	h.srv.d.ReportBudget = 4
	h.h = h.srv.build(nil)
	// Any key may report: the ohlcv-only key files one.
	key := map[string]string{"x-api-key": h.plain["none"], "content-type": "application/json"}
	r := h.do(t, "POST", "/v1/advisories/reports", key, strings.NewReader(`{"mint":"`+reportMint+`","kind":"impersonation","claimedAsset":"usdc","evidenceUrl":"https://x.example/t","note":"looks fake"}`))
	if r.status != 201 || r.body["status"] != "pending" || !strings.HasPrefix(r.body["id"].(string), "rep_") || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("file: %d %v %s", r.status, r.header, r.raw)
	}
	id := r.body["id"].(string)
	r = h.do(t, "GET", "/v1/advisories/reports/"+id, key, nil)
	if r.status != 200 || r.body["status"] != "pending" || r.body["claimedAsset"] != "usdc" || r.body["resolution"] != nil || r.body["resolvedAt"] != nil {
		t.Fatalf("get: %d %s", r.status, r.raw)
	}
	// Another project's key: 404, as for an unknown id.
	other := map[string]string{"x-api-key": h.plain["read"]}
	if r = h.do(t, "GET", "/v1/advisories/reports/"+id, other, nil); r.status != 404 || errTag(r) != "NotFoundError" {
		t.Fatalf("other project: %d %s", r.status, r.raw)
	}
	if r = h.do(t, "GET", "/v1/advisories/reports/rep_nope", key, nil); r.status != 404 {
		t.Fatalf("unknown: %d %s", r.status, r.raw)
	}
	// Resolution shows to the reporter.
	if _, err := reports.Accept(context.Background(), id, "blocked", "", "ops"); err != nil {
		t.Fatal(err)
	}
	r = h.do(t, "GET", "/v1/advisories/reports/"+id, key, nil)
	if r.status != 200 || r.body["status"] != "accepted" || r.body["resolution"] != "blocked" || r.body["resolvedAt"] == nil {
		t.Fatalf("after accept: %d %s", r.status, r.raw)
	}
	// Validation: 400 with the field's code.
	for _, tc := range []struct{ body, code, param string }{
		{`{"mint":"nope","kind":"scam"}`, "invalid_mint", "mint"},
		{`{"mint":"` + reportMint + `","kind":"rug"}`, "invalid_param", "kind"},
		{`{"mint":"` + reportMint + `","kind":"scam","evidenceUrl":"ftp://x"}`, "invalid_param", "evidenceUrl"},
		{`{"mint":"` + reportMint + `","kind":"scam","note":"` + strings.Repeat("n", 1001) + `"}`, "invalid_note", "note"},
		{`{"mint":`, "invalid_json", ""},
	} {
		r = h.do(t, "POST", "/v1/advisories/reports", key, strings.NewReader(tc.body))
		if r.status != 400 || errTag(r) != "BadRequestError" || errCode(r) != tc.code {
			t.Errorf("%.60s: %d %s", tc.body, r.status, r.raw)
		}
	}
	// The per-key budget (4 here: one report and the invalid attempts after the mint
	// check, each charged): 429 with Retry-After.
	r = h.do(t, "POST", "/v1/advisories/reports", key, strings.NewReader(`{"mint":"`+reportMint+`","kind":"scam"}`))
	if r.status != 429 || errTag(r) != "RateLimitedError" || errCode(r) != "rate_limited" || r.header.Get("Retry-After") == "" {
		t.Fatalf("over budget: %d %v %s", r.status, r.header, r.raw)
	}
	// Another key has its own budget.
	r = h.do(t, "POST", "/v1/advisories/reports", map[string]string{"x-api-key": h.plain["read"], "content-type": "application/json"}, strings.NewReader(`{"mint":"`+reportMint+`","kind":"other"}`))
	if r.status != 201 {
		t.Fatalf("second key: %d %s", r.status, r.raw)
	}
}
