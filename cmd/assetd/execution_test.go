package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDemoExecution is the execution acceptance against --demo: the
// default bitcoin route answers with a valid allocation (its latency is
// logged, not asserted), keys get execution:read by default, a key whose
// --scopes leaves it out still reads the family with assets:read, and an advisory set by the CLI refuses links and
// moves the variant to the route's excluded[].
func TestDemoExecution(t *testing.T) {
	dir := t.TempDir()
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "demo", "--data-dir", dir))
	narrow := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "demo", "--scopes", "assets:read", "--data-dir", dir))
	s := startServer(t, "--data-dir", dir, "--demo")
	hdr := map[string]string{"X-Api-Key": key}

	start := time.Now()
	st, h, body := s.get(t, "/v2/execution/route?assetId=bitcoin&amountUsd=1000000", hdr)
	t.Logf("route bitcoin $1M answered in %s (shared machine; not asserted)", time.Since(start).Round(time.Microsecond))
	if st != 200 || h.Get("Cache-Control") != "no-store" || body["allocationStatus"] != "ok" {
		t.Fatalf("route: %d %v", st, body)
	}
	alloc := body["allocation"].(map[string]any)
	var sum int64
	for _, l := range alloc["legs"].([]any) {
		n, err := strconv.ParseInt(l.(map[string]any)["amountUsd"].(string), 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("leg %v", l)
		}
		sum += n
	}
	un, _ := strconv.ParseInt(alloc["unallocatedUsd"].(string), 10, 64)
	if sum+un != 1_000_000 {
		t.Errorf("legs %d + unallocated %d != 1000000", sum, un)
	}
	if provs := body["providers"].([]any); len(provs) != 2 || !strings.HasPrefix(provs[0].(string), "simulated_") {
		t.Errorf("providers %v", provs)
	}

	if st, _, _ := s.get(t, "/v2/execution/evaluate?mint=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij", hdr); st != 200 {
		t.Errorf("evaluate %d", st)
	}
	if st, _, body := s.get(t, "/v2/execution/links?assetId=bitcoin", map[string]string{"X-Api-Key": narrow}); st != 200 {
		t.Errorf("key with assets:read only: %d %v", st, body)
	}

	const cbBTC = "cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij"
	mustCLI(t, "advisories", "set", cbBTC, "--status", "compromised", "--reason", "test", "--data-dir", dir)
	eventually(t, 10*time.Second, "links refuse the compromised mint", func() bool {
		st, _, _ := s.get(t, "/v2/execution/links?mint="+cbBTC, hdr)
		return st == 403
	})
	_, _, body = s.get(t, "/v2/execution/links?mint="+cbBTC, hdr)
	d := body["error"].(map[string]any)["details"].(map[string]any)
	if body["error"].(map[string]any)["_tag"] != "AssetAdvisoryError" || d["code"] != "advisory_compromised" || d["mint"] != cbBTC || d["reason"] != "test" {
		t.Errorf("refusal %v", body)
	}
	_, _, body = s.get(t, "/v2/execution/route?assetId=bitcoin", hdr)
	found := false
	for _, x := range body["excluded"].([]any) {
		m := x.(map[string]any)
		found = found || m["mint"] == cbBTC && m["reason"] == "advisory_compromised"
	}
	if !found || body["allocationStatus"] != "ok" {
		t.Errorf("route with a compromised variant: excluded %v, status %v", body["excluded"], body["allocationStatus"])
	}
}
