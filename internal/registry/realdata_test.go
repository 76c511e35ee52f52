package registry

import (
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

// These tests import the full public data files from ../../../shared/data;
// they skip when the data set is absent.

func parseShared(t testing.TB, name string, parse func(io.Reader) (Document, *Report, error)) (Document, *Report) {
	t.Helper()
	doc, rep, err := parse(openSharedData(t, name))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return doc, rep
}

func TestImportFullReferenceRegistry(t *testing.T) {
	ref, rep := parseShared(t, "reference-registry.json", ParseReferenceRegistry)
	variants := 0
	for _, a := range ref.Assets {
		variants += len(a.Variants)
	}
	if len(ref.Assets) != 551 || variants != 695 {
		t.Errorf("imported %d assets / %d variants, want 551 / 695", len(ref.Assets), variants)
	}
	if got := rep.Count(IssueKindMapped); got != 4 {
		t.Errorf("kind_mapped = %d, want the 4 spot gold variants", got)
	}
	labels := map[string]bool{}
	for _, i := range rep.Filter(IssueIssuerLabelDropped) {
		labels[i.Key] = true
	}
	for _, l := range []string{"ondo", "xstock", "backpack securities"} {
		if !labels[l] {
			t.Errorf("issuer label %q not reported", l)
		}
	}
	t.Logf("reference import: %s", rep.Summary())

	refMints := map[string]bool{}
	for _, a := range ref.Assets {
		for _, v := range a.Variants {
			refMints[v.Mint] = true
		}
	}
	seed, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		docs []Document
	}{
		{"reference alone", []Document{ref}},
		{"seed plus reference", []Document{seed, ref}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, r := mustBuild(t, tc.docs[0], tc.docs[1:]...)
			t.Logf("build: %d assets, %d variants; %s", s.Stats().Assets, s.Stats().Variants, r.Summary())
			if n := len(s.CuratedAssetIDs(AllListID)); n < 300 {
				t.Errorf("curated all holds %d assets, want at least 300", n)
			}
			for _, id := range staticListIDs() {
				if l, _ := s.CuratedList(id); len(l.Members) == 0 {
					t.Errorf("curated list %s is empty", id)
				}
			}
			// A replaced asset takes its variants with it: seed-curated mints
			// the reference's entry lacks become singletons (and are
			// reported). No reference mint may end up that way.
			for _, i := range r.Filter(IssueCuratedUnknownMint) {
				if refMints[i.Mint] {
					t.Errorf("reference mint %s in list %s resolves to no asset", i.Mint, i.ListID)
				}
			}
			tests := []struct{ ref, wantAsset, wantBy string }{
				{mintUSDC, "usd", asset.ResolvedByMint},
				{"solana-" + mintUSDC, "usd", asset.ResolvedBySingletonMint},
				{mintWSOL, "solana", asset.ResolvedByMint},
				{"XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB", "tesla", asset.ResolvedByMint}, // Tesla xStock
				{"KeGv7bsfR4MheC1CkmnAVceoApjrkvBhHYjWb67ondo", "tesla", asset.ResolvedByMint}, // Tesla Ondo
				{"suifhC9gU1VbJAPYPTBkHJyyyStKGLLYPVDTmPoqbvA", "sui", asset.ResolvedByMint},   // home override
				{"hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo", "gold", asset.ResolvedByMint},  // home override
				{"xstock-tesla", "tesla", asset.ResolvedByAlias},
				{"xstock-sui", "sui", asset.ResolvedByAlias},        // folded away
				{"spdr-gold-shares", "gold", asset.ResolvedByAlias}, // folded away
				{"bitcoin", "bitcoin", asset.ResolvedByAssetID},
			}
			for _, tt := range tests {
				res, err := s.Resolve(tt.ref)
				if err != nil || res.AssetID != tt.wantAsset || res.ResolvedBy != tt.wantBy {
					t.Errorf("Resolve(%q) = %s/%s, %v; want %s/%s", tt.ref, res.AssetID, res.ResolvedBy, err, tt.wantAsset, tt.wantBy)
				}
			}
			if _, err := s.Resolve("ondo"); !errors.Is(err, ErrNotFound) {
				t.Errorf(`Resolve("ondo") = %v, want not found: issuer labels are not aliases`, err)
			}
		})
	}
}

// TestReferenceHomesAreHonoured checks every reference mint against the
// reference's own answer (isHomeForMint) when the reference is imported
// alone.
func TestReferenceHomesAreHonoured(t *testing.T) {
	raw, err := io.ReadAll(openSharedData(t, "reference-registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var homes struct {
		Assets []struct {
			AssetID  string `json:"assetId"`
			Variants []struct {
				Mint   string `json:"mint"`
				IsHome bool   `json:"isHomeForMint"`
			} `json:"variants"`
		} `json:"assets"`
	}
	if err := json.Unmarshal(raw, &homes); err != nil {
		t.Fatal(err)
	}
	ref, _ := parseShared(t, "reference-registry.json", ParseReferenceRegistry)
	s, _ := mustBuild(t, ref)
	checked := 0
	for _, a := range homes.Assets {
		for _, v := range a.Variants {
			if !v.IsHome {
				continue
			}
			checked++
			res, err := s.ResolveMint(v.Mint)
			if err != nil || res.AssetID != a.AssetID {
				t.Errorf("mint %s resolves to %s (%v), the reference says %s", v.Mint, res.AssetID, err, a.AssetID)
			}
		}
	}
	if checked < 690 {
		t.Errorf("checked only %d home mints", checked)
	}
}

func TestImportFullSanctumList(t *testing.T) {
	lst, rep := parseShared(t, "sanctum-lst-list.json", DetectAndParse)
	if rep.Format != FormatSanctum || len(lst.LSTIndex) != 239 {
		t.Fatalf("format %q, %d entries; want %q and 239 (240 minus the SOL reserve)", rep.Format, len(lst.LSTIndex), FormatSanctum)
	}
	seed, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	s, r := mustBuild(t, seed, lst)
	seedMints := map[string]bool{}
	for _, a := range seed.Assets {
		for _, v := range a.Variants {
			seedMints[v.Mint] = true
		}
	}
	for _, e := range lst.LSTIndex {
		res, err := s.ResolveMint(e.Mint)
		wantBy := asset.ResolvedByLSTIndex
		if seedMints[e.Mint] {
			wantBy = asset.ResolvedByMint
		}
		if err != nil || res.AssetID != "solana" || res.ResolvedBy != wantBy {
			t.Errorf("LST %s (%s) = %s/%s, %v; want solana/%s", e.Symbol, e.Mint, res.AssetID, res.ResolvedBy, err, wantBy)
		}
	}
	if got, want := s.Stats().LSTIndexVariants, 239-r.Count(IssueLSTIndexKnownMint); got != want {
		t.Errorf("LST index variants = %d, want %d", got, want)
	}
	if res, err := s.Resolve("BTHSSOL"); err != nil || res.ResolvedBy != asset.ResolvedByLSTIndex {
		t.Errorf("Resolve(BTHSSOL) = %+v, %v; want solana by lst_index", res, err)
	}
}

func TestImportFullTokenList(t *testing.T) {
	tl, rep := parseShared(t, "solana-labs-tokenlist.json", DetectAndParse)
	if rep.Format != FormatTokenList || !tl.Supplemental || len(tl.Assets) < 400 {
		t.Fatalf("format %q, supplemental %v, %d assets", rep.Format, tl.Supplemental, len(tl.Assets))
	}
	t.Logf("token list import: %d assets; %s", len(tl.Assets), rep.Summary())
	seed, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := parseShared(t, "reference-registry.json", ParseReferenceRegistry)
	s, r := mustBuild(t, seed, ref, tl)
	t.Logf("build: %d assets; %s", s.Stats().Assets, r.Summary())
	for ref, want := range map[string]string{
		"usdc": "usd", "usdt": "usd", mintUSDT: "usd", "sol": "solana", "tesla": "tesla",
		"wrapped-bitcoin": "wrapped-bitcoin", // a token-list group fills the gap
	} {
		if res, err := s.Resolve(ref); err != nil || res.AssetID != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, res.AssetID, err, want)
		}
	}
}

func BenchmarkBuildSeedPlusReference(b *testing.B) {
	seed, err := Seed()
	if err != nil {
		b.Fatal(err)
	}
	ref, _ := parseShared(b, "reference-registry.json", ParseReferenceRegistry)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Build(seed, ref); err != nil {
			b.Fatal(err)
		}
	}
}
