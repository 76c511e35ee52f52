package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteSyntheticDecimals: every variant is visibly synthetic and
// carries decimals from synDecimals, the same on every run.
func TestWriteSyntheticDecimals(t *testing.T) {
	read := func() []assetDoc {
		t.Helper()
		p := filepath.Join(t.TempDir(), "reg.json")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f, 25, 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Assets []assetDoc }
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Assets
	}
	a, b := read(), read()
	if len(a) != 25 {
		t.Fatalf("assets %d, want 25", len(a))
	}
	variants := 0
	for i, as := range a {
		if !strings.HasPrefix(as.AssetID, "syn-") || !strings.HasPrefix(as.Name, "Synthetic asset ") {
			t.Errorf("asset %d not visibly synthetic: %+v", i, as)
		}
		for k, v := range as.Variants {
			variants++
			if !strings.HasPrefix(v.VariantID, "syn-") {
				t.Errorf("variant %s not synthetic", v.VariantID)
			}
			if v.Decimals == nil || !slices.Contains(synDecimals, *v.Decimals) {
				t.Fatalf("variant %s: decimals %v, want one of %v", v.VariantID, v.Decimals, synDecimals)
			}
			if want := synDecimals[(i+k)%len(synDecimals)]; *v.Decimals != want {
				t.Errorf("variant %s: decimals %d, want %d", v.VariantID, *v.Decimals, want)
			}
			w := b[i].Variants[k]
			if w.Mint != v.Mint || *w.Decimals != *v.Decimals {
				t.Errorf("variant %s differs between runs", v.VariantID)
			}
		}
	}
	if variants != 28 { // 25 native, a wrapped one for assets 0, 10, 20
		t.Errorf("variants %d, want 28", variants)
	}
}
