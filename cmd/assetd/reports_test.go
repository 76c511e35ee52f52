package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/contracttest"
)

// TestReportAcceptedAsBlockedPropagates: a key files a report over HTTP,
// an operator accepts it as blocked with the CLI, and the running server
// (a separate process on the same store) then suppresses the mint in
// search-tokens with gate_advisory_blocked, refuses it in execution, and
// shows the change in the advisory feed. The accept commits the advisory
// and bumps the advisories change version in one transaction; the
// server's poller (--reload-interval 500ms, the propagation bound) reloads
// the advisory index on that bump.
func TestReportAcceptedAsBlockedPropagates(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			key := strings.TrimSpace(mustCLI(t, append([]string{"keys", "create", "--project", "reporter"}, e.flags...)...))
			s := startServer(t, append([]string{"--demo", "--reload-interval", "500ms"}, e.flags...)...)
			hdr := map[string]string{"X-Api-Key": key}
			suppressed := func() (inResults, inSuppressed bool) {
				_, _, body := s.get(t, "/v2/lists/search-tokens?policy=degen&q="+usdcMint, hdr)
				for _, r := range asList(body["results"]) {
					inResults = inResults || r["mint"] == usdcMint
				}
				for _, r := range asList(body["suppressed"]) {
					if r["mint"] == usdcMint {
						b, _ := json.Marshal(r["suppressedBy"])
						inSuppressed = strings.Contains(string(b), "gate_advisory_blocked")
					}
				}
				return
			}
			if in, sup := suppressed(); !in || sup {
				t.Fatalf("before: in results %v, suppressed %v", in, sup)
			}
			body, _ := json.Marshal(map[string]string{"mint": usdcMint, "kind": "impersonation", "claimedAsset": "usdc", "note": "synthetic test report"})
			req, _ := http.NewRequest("POST", s.base+"/v1/advisories/reports", bytes.NewReader(body))
			req.Header.Set("X-Api-Key", key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Transport: contracttest.Transport(t, nil)}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var filed struct{ ID, Status string }
			_ = json.NewDecoder(resp.Body).Decode(&filed)
			resp.Body.Close()
			if resp.StatusCode != 201 || filed.Status != "pending" {
				t.Fatalf("file: %d %+v", resp.StatusCode, filed)
			}
			if out := mustCLI(t, append([]string{"advisories", "reports", "list"}, e.flags...)...); !strings.Contains(out, filed.ID) {
				t.Fatalf("reports list: %q", out)
			}
			mustCLI(t, append([]string{"advisories", "reports", "accept", filed.ID, "--status", "blocked"}, e.flags...)...)
			d := eventually(t, time.Second, "search-tokens suppresses the blocked mint", func() bool { in, sup := suppressed(); return !in && sup })
			t.Logf("%s: accepted report reached search-tokens after %s (bound: the 500ms reload interval)", e.name, d.Round(time.Millisecond))
			st, _, refusal := s.get(t, "/v2/execution/links?mint="+usdcMint, hdr)
			errObj, _ := refusal["error"].(map[string]any)
			det, _ := errObj["details"].(map[string]any)
			if st != 403 || errObj["_tag"] != "AssetAdvisoryError" || det["code"] != "advisory_blocked" {
				t.Fatalf("execution after accept: %d %v", st, refusal)
			}
			_, _, rep := s.get(t, "/v1/advisories/reports/"+filed.ID, hdr)
			if rep["status"] != "accepted" || rep["resolution"] != "blocked" {
				t.Fatalf("report: %v", rep)
			}
			_, _, feed := s.get(t, "/v1/advisories", hdr)
			evs := asList(feed["events"])
			if len(evs) == 0 || evs[len(evs)-1]["mint"] != usdcMint || evs[len(evs)-1]["source"] != "report" || evs[len(evs)-1]["status"] != "blocked" {
				t.Fatalf("feed: %v", feed)
			}
		})
	}
}

func asList(v any) []map[string]any {
	var out []map[string]any
	for _, x := range asAnySlice(v) {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func asAnySlice(v any) []any { s, _ := v.([]any); return s }
