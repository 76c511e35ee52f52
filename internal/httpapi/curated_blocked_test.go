package httpapi

import (
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

// Issue 27 item 6: a blocked variant is left out of curated (variants=all,
// every variantsMode, and groupBy=mint) as from every other list surface,
// while direct asset reads still serve it.
func TestCuratedOmitsBlockedVariants(t *testing.T) {
	h, adv, _ := listHarness(t)
	must := func(r resp, status int) resp {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
		}
		return r
	}
	// A curated mint that is not its asset's primary, so the rule is seen
	// apart from primary-variant selection.
	byMint := must(h.get(t, "/v1/assets/curated?list=majors&groupBy=mint&variantsMode=all"), 200).raw
	r := must(h.get(t, "/v1/assets/curated?list=majors&variants=all&variantsMode=all"), 200)
	var blocked string
	for _, row := range r.body["assets"].([]any) {
		row := row.(map[string]any)
		prim := row["primaryVariant"].(map[string]any)["mint"]
		for _, v := range row["variants"].([]any) {
			if m := v.(map[string]any)["mint"]; m != prim && strings.Contains(byMint, m.(string)) {
				blocked = m.(string)
				break
			}
		}
	}
	if blocked == "" {
		t.Fatal("fixture: every curated majors mint is its asset's primary")
	}
	adv[blocked] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "synthetic", Since: 1}
	h.srv.d.Catalog.SetAdvisories(adv.Get)
	for _, path := range []string{
		"/v1/assets/curated?list=majors&variants=all",
		"/v1/assets/curated?list=majors&variants=all&variantsMode=all",
		"/v1/assets/curated?list=all&variants=all&variantsMode=all&limit=500",
		"/v1/assets/curated?list=majors&groupBy=mint",
		"/v1/assets/curated?list=majors&groupBy=mint&variantsMode=all",
		"/v2/lists/majors",
	} {
		if r := must(h.get(t, path), 200); strings.Contains(r.raw, blocked) {
			t.Errorf("%s serves the blocked mint %s", path, blocked)
		}
	}
	if r := must(h.get(t, "/v1/assets/resolve?mint="+blocked), 200); !strings.Contains(r.raw, blocked) {
		t.Errorf("the direct read no longer serves the blocked mint: %.300s", r.raw)
	}
}
