package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// maxReportedProblems bounds how many problems ValidationError.Error spells
// out; the rest are counted.
const maxReportedProblems = 10

// Problem is one reason a document was rejected. The identifying fields say
// which entry is at fault.
type Problem struct {
	AssetID   string
	VariantID string
	Mint      string
	ListID    string
	Message   string
}

func (p Problem) String() string {
	var b strings.Builder
	for _, f := range [...]struct{ name, v string }{
		{"curated list", p.ListID}, {"asset", p.AssetID}, {"variant", p.VariantID}, {"mint", p.Mint},
	} {
		if f.v != "" {
			fmt.Fprintf(&b, "%s %q: ", f.name, f.v)
		}
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem found in a document. A document with
// any problem is rejected as a whole.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid registry document: ")
	for i, p := range e.Problems {
		if i == maxReportedProblems {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Validate checks one document on its own. It returns a *ValidationError
// listing every problem, or nil. Rules (docs/registry.md, "Validation"):
//
//   - asset ids are canonical slugs (ValidAssetID), unique in the document;
//   - categories, kinds, tiers and stockVariantTier values are in the spec's
//     enums (legacy tier "experimental" is accepted and means tier3;
//     trustTier, when set, must mirror liquidityTier);
//   - every asset has at least one variant; variant ids are
//     "<assetId>:<suffix>" and unique; mints are valid addresses and unique
//     within an asset;
//   - names, symbols, aliases and labels are clean text; URLs are absolute;
//   - curated lists use the seven list ids (not "all"), once each, with
//     valid, non-repeated member mints;
//   - mintHomes and lstIndex entries name valid mints and slugs.
//
// A mint listed by two different assets is not a validation error: Build
// repairs it (see Build). Alias collisions are not errors either.
func Validate(doc Document) error {
	var v validator
	v.document(doc)
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: v.problems}
}

type validator struct {
	problems []Problem
}

func (v *validator) fail(p Problem, format string, args ...any) {
	p.Message = fmt.Sprintf(format, args...)
	v.problems = append(v.problems, p)
}

func (v *validator) document(doc Document) {
	assetIDs := make(map[string]bool, len(doc.Assets))
	variantIDs := make(map[string]bool)
	for i := range doc.Assets {
		a := &doc.Assets[i]
		if assetIDs[a.AssetID] {
			v.fail(Problem{AssetID: a.AssetID}, "duplicate assetId")
		}
		assetIDs[a.AssetID] = true
		v.asset(a, variantIDs)
	}
	v.curatedLists(doc.CuratedLists)
	for mint, home := range doc.MintHomes {
		if !ValidMint(mint) {
			v.fail(Problem{Mint: mint}, "mintHomes: not a base58 32-byte address")
		}
		if !ValidAssetID(home) {
			v.fail(Problem{Mint: mint, AssetID: home}, "mintHomes: home is not a valid assetId")
		}
	}
	v.lstIndex(doc.LSTIndex)
}

func (v *validator) asset(a *Asset, variantIDs map[string]bool) {
	at := Problem{AssetID: a.AssetID}
	if !ValidAssetID(a.AssetID) {
		v.fail(at, "assetId is not a canonical slug (lower-case letters, digits and single hyphens, at most %d characters, not solana-<mint>)", MaxAssetIDLength)
	}
	if !slices.Contains(asset.Categories, a.Category) {
		v.fail(at, "category %q is not one of %v", a.Category, asset.Categories)
	}
	v.optionalText(at, "name", a.Name)
	v.optionalText(at, "symbol", a.Symbol)
	v.optionalText(at, "coinId", a.CoinID)
	v.optionalText(at, "stockTicker", a.StockTicker)
	for _, alias := range a.Aliases {
		if !validText(alias) {
			v.fail(at, "alias %q is blank, padded, too long or has control characters", alias)
		}
	}
	if a.ImageURL != "" && !validURL(a.ImageURL) {
		v.fail(at, "imageUrl %q is not an absolute http(s) URL", a.ImageURL)
	}
	if len(a.Variants) == 0 {
		v.fail(at, "asset has no variants")
	}
	mints := make(map[string]bool, len(a.Variants))
	for i := range a.Variants {
		vr := &a.Variants[i]
		if mints[vr.Mint] {
			v.fail(Problem{AssetID: a.AssetID, VariantID: vr.VariantID, Mint: vr.Mint}, "mint listed twice in one asset")
		}
		mints[vr.Mint] = true
		if variantIDs[vr.VariantID] {
			v.fail(Problem{AssetID: a.AssetID, VariantID: vr.VariantID}, "duplicate variantId")
		}
		variantIDs[vr.VariantID] = true
		v.variant(a.AssetID, vr)
	}
	if p := a.PreIPO; p != nil {
		if !validText(p.Symbol) {
			v.fail(at, "preIpo.symbol is required")
		}
		if p.Mint != "" && !mints[p.Mint] {
			v.fail(Problem{AssetID: a.AssetID, Mint: p.Mint}, "preIpo.mint is not a variant of the asset")
		}
	}
}

func (v *validator) variant(assetID string, vr *Variant) {
	at := Problem{AssetID: assetID, VariantID: vr.VariantID, Mint: vr.Mint}
	suffix, ok := strings.CutPrefix(vr.VariantID, assetID+":")
	if !ok || !validVariantSuffix(suffix) {
		v.fail(at, "variantId must be %q followed by 1 to %d printable characters without spaces", assetID+":", maxVariantSuffixLength)
	}
	if !ValidMint(vr.Mint) {
		v.fail(at, "mint is not a base58 32-byte address")
	}
	v.variantFields(at, vr)
}

// variantFields checks the fields shared by asset variants and LST index
// entries.
func (v *validator) variantFields(at Problem, vr *Variant) {
	if !slices.Contains(asset.Kinds, vr.Kind) {
		v.fail(at, "kind %q is not one of %v", vr.Kind, asset.Kinds)
	}
	lt, lok := normaliseTier(vr.LiquidityTier)
	tt, tok := normaliseTier(vr.TrustTier)
	if !lok {
		v.fail(at, "liquidityTier %q is not tier1, tier2 or tier3", vr.LiquidityTier)
	}
	if !tok {
		v.fail(at, "trustTier %q is not tier1, tier2 or tier3", vr.TrustTier)
	}
	if lok && tok && vr.LiquidityTier != "" && vr.TrustTier != "" && lt != tt {
		v.fail(at, "trustTier %q must mirror liquidityTier %q", vr.TrustTier, vr.LiquidityTier)
	}
	if vr.StockVariantTier != "" && !slices.Contains(asset.StockVariantTiers, vr.StockVariantTier) {
		v.fail(at, "stockVariantTier %q is not one of %v", vr.StockVariantTier, asset.StockVariantTiers)
	}
	for _, f := range [...]struct{ name, value string }{
		{"issuer", vr.Issuer}, {"label", vr.Label}, {"symbol", vr.Symbol}, {"name", vr.Name},
	} {
		v.optionalText(at, f.name, f.value)
	}
	for _, tag := range vr.Tags {
		if !validText(tag) {
			v.fail(at, "tag %q is blank, padded, too long or has control characters", tag)
		}
	}
	if vr.IssuerURL != "" && !validURL(vr.IssuerURL) {
		v.fail(at, "issuerUrl %q is not an absolute http(s) URL", vr.IssuerURL)
	}
	if vr.LogoURI != "" && !validURL(vr.LogoURI) {
		v.fail(at, "logoUri %q is not an absolute http(s) URL", vr.LogoURI)
	}
	if d := vr.Decimals; d != nil && (*d < 0 || *d > 255) {
		v.fail(at, "decimals %d is outside 0..255", *d)
	}
}

func (v *validator) optionalText(at Problem, field, value string) {
	if value != "" && !validText(value) {
		v.fail(at, "%s %q is padded, too long or has control characters", field, value)
	}
}

func (v *validator) curatedLists(lists []CuratedList) {
	seen := make(map[string]bool, len(lists))
	for _, l := range lists {
		at := Problem{ListID: l.ID}
		if !isStaticList(l.ID) {
			v.fail(at, "list id must be one of %v (\"all\" is derived)", staticListIDs())
		}
		if seen[l.ID] {
			v.fail(at, "list defined twice")
		}
		seen[l.ID] = true
		v.optionalText(at, "name", l.Name)
		mints := make(map[string]bool, len(l.Members))
		for _, m := range l.Members {
			mat := Problem{ListID: l.ID, Mint: m.Mint}
			if !ValidMint(m.Mint) {
				v.fail(mat, "member mint is not a base58 32-byte address")
			}
			if mints[m.Mint] {
				v.fail(mat, "member listed twice")
			}
			mints[m.Mint] = true
			if m.Rank < 0 {
				v.fail(mat, "rank %d is negative", m.Rank)
			}
			if m.AddedAt < 0 {
				v.fail(mat, "addedAt %d is negative", m.AddedAt)
			}
			if m.AssetID != "" && !ValidAssetID(m.AssetID) {
				if _, ok := SingletonMint(m.AssetID); !ok {
					v.fail(mat, "assetId hint %q is neither a slug nor solana-<mint>", m.AssetID)
				}
			}
		}
	}
}

func (v *validator) lstIndex(entries []Variant) {
	seen := make(map[string]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		at := Problem{AssetID: solanaAssetID, VariantID: e.VariantID, Mint: e.Mint}
		if !ValidMint(e.Mint) {
			v.fail(at, "lstIndex: mint is not a base58 32-byte address")
		}
		if seen[e.Mint] {
			v.fail(at, "lstIndex: mint listed twice")
		}
		seen[e.Mint] = true
		if e.VariantID != "" {
			suffix, ok := strings.CutPrefix(e.VariantID, solanaAssetID+":")
			if !ok || !validVariantSuffix(suffix) {
				v.fail(at, "lstIndex: variantId must start with %q", solanaAssetID+":")
			}
		}
		if e.Kind != asset.KindYield && e.Kind != asset.KindLST {
			v.fail(at, "lstIndex: kind %q must be %q or %q", e.Kind, asset.KindYield, asset.KindLST)
			continue
		}
		v.variantFields(at, e)
	}
}

// normaliseTier maps a stored tier hint to tier1..tier3: empty and the legacy
// "experimental" mean tier3. ok is false for anything else.
func normaliseTier(t string) (tier string, ok bool) {
	switch t {
	case "", asset.TierExperimental:
		return asset.Tier3, true
	case asset.Tier1, asset.Tier2, asset.Tier3:
		return t, true
	}
	return "", false
}
