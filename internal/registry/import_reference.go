package registry

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// Input formats, as reported in Report.Format.
const (
	FormatDocument  = "registry-document"
	FormatReference = "reference-registry"
	FormatTokenList = "tokenlist"
	FormatSanctum   = "sanctum-lst-list"
)

// legacyKindSpot is the reference registry's kind for tokens that give
// direct, spot exposure to a commodity (Tether Gold, PAX Gold, ...). It is
// not in the spec's enum.
const legacyKindSpot = "spot"

// refFile is the subset of the reference registry layout we import.
// Derived tables (aliasIndex, registryIssues, counts, enums) and the legacy
// grouping tables (tokenWrapperGroups, tokenVariantGroups) are ignored:
// Build recomputes what they describe.
type refFile struct {
	Assets            []refAsset        `json:"assets"`
	CuratedLists      []refList         `json:"curatedLists"`
	MintHomeOverrides map[string]string `json:"mintHomeOverrides"`
	PreStocks         []refPreStock     `json:"preStocks"`
}

type refAsset struct {
	AssetID     string       `json:"assetId"`
	Name        string       `json:"name"`
	Symbol      string       `json:"symbol"`
	Category    string       `json:"category"`
	CoingeckoID string       `json:"coingeckoId"`
	Aliases     []string     `json:"aliases"`
	Variants    []refVariant `json:"variants"`
}

type refVariant struct {
	VariantID        string   `json:"variantId"`
	Mint             string   `json:"mint"`
	Symbol           string   `json:"symbol"`
	Name             string   `json:"name"`
	Kind             string   `json:"kind"`
	Issuer           string   `json:"issuer"`
	IssuerURL        string   `json:"issuerUrl"`
	TrustTier        string   `json:"trustTier"`
	Tags             []string `json:"tags"`
	Label            string   `json:"label"`
	StockVariantTier string   `json:"stockVariantTier"`
}

type refList struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Members     []refMember `json:"members"`
}

type refMember struct {
	Mint    string `json:"mint"`
	Rank    int    `json:"rank"`
	AssetID string `json:"assetId"`
	AddedAt int64  `json:"addedAt"`
}

type refPreStock struct {
	Mint    string `json:"mint"`
	Symbol  string `json:"symbol"`
	AssetID string `json:"assetId"`
}

// isListingTicker reports whether s looks like an exchange listing ticker
// ("TSLA", "GOOGL", "BRK.B"): an upper-case letter then up to five upper-case
// letters, digits or dots. Token symbols such as "STRCon" or "TSLAx" do not.
func isListingTicker(s string) bool {
	if len(s) == 0 || len(s) > 6 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.') {
			return false
		}
	}
	return true
}

// ParseReferenceRegistry converts the reference implementation's registry
// export (reference-registry.json) into a Document. Repairs are counted in
// the Report instead of rejecting the file (docs/registry.md, "Importing the
// reference registry"):
//
//   - kind "spot" becomes "native": the token is the commodity's own
//     issuer-backed on-chain form, exactly like an issuer-native stablecoin,
//     and stays spot-like for primary-variant selection;
//   - trust tier "experimental" becomes tier3;
//   - aliases that are addresses (mints are indexed exactly, not as
//     lower-cased aliases), repeat the asset id or a variant id, or are
//     issuer labels shared by several assets ("Ondo", "xStock", ...) are
//     dropped, so "ondo" no longer resolves to an arbitrary fund;
//   - an equity or ETF symbol shaped like a listing ticker becomes the
//     stock ticker; preStocks entries become pre-IPO references;
//   - mintHomeOverrides become mintHomes (Build honours them);
//   - invalid optional fields (URLs, padded text) are dropped.
//
// Anything else that breaks a rule of Validate fails the import with an
// error naming the entry.
func ParseReferenceRegistry(r io.Reader) (Document, *Report, error) {
	var f refFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Document{}, nil, fmt.Errorf("registry: decode reference registry: %w", err)
	}
	rep := newReport(FormatReference)
	doc := convertReference(&f, rep)
	if err := Validate(doc); err != nil {
		return Document{}, nil, fmt.Errorf("registry: reference registry: %w", err)
	}
	return doc, rep, nil
}

func convertReference(f *refFile, rep *Report) Document {
	labels := sharedIssuerLabels(f.Assets)
	dropped := map[string][]string{} // issuer label -> assets that used it as alias
	preIPO := map[string]bool{}
	for _, p := range f.PreStocks {
		preIPO[p.AssetID] = true
	}
	doc := Document{Assets: make([]Asset, 0, len(f.Assets)), MintHomes: map[string]string{}}
	for i := range f.Assets {
		ra := &f.Assets[i]
		a := Asset{
			AssetID:  strings.TrimSpace(ra.AssetID),
			Category: strings.TrimSpace(ra.Category),
			Name:     cleanText(ra.Name, rep),
			Symbol:   cleanText(ra.Symbol, rep),
			CoinID:   cleanText(ra.CoingeckoID, rep),
		}
		for j := range ra.Variants {
			a.Variants = append(a.Variants, convertRefVariant(&a, &ra.Variants[j], rep))
		}
		a.Aliases = referenceAliases(&a, ra.Aliases, labels, dropped, rep)
		if (a.Category == "equity" || a.Category == "etf") && !preIPO[a.AssetID] && isListingTicker(a.Symbol) {
			a.StockTicker = a.Symbol
			rep.tally(IssueStockTickerDerived, 1)
		}
		doc.Assets = append(doc.Assets, a)
	}
	for _, label := range slices.Sorted(func(yield func(string) bool) {
		for k := range dropped {
			if !yield(k) {
				return
			}
		}
	}) {
		ids := slices.Compact(slices.Sorted(slices.Values(dropped[label])))
		rep.add(Issue{
			Kind: IssueIssuerLabelDropped, Key: label, Candidates: ids,
			Detail: fmt.Sprintf("issuer label used as an alias by %d assets; it names an issuer, not an asset", len(ids)),
		})
	}
	linkPreStocks(&doc, f.PreStocks, rep)
	for mint, home := range f.MintHomeOverrides {
		doc.MintHomes[strings.TrimSpace(mint)] = strings.TrimSpace(home)
	}
	for _, l := range f.CuratedLists {
		doc.CuratedLists = append(doc.CuratedLists, convertRefList(&l, rep))
	}
	return doc
}

func convertRefVariant(a *Asset, rv *refVariant, rep *Report) Variant {
	v := Variant{
		VariantID:        strings.TrimSpace(rv.VariantID),
		Mint:             strings.TrimSpace(rv.Mint),
		Kind:             strings.TrimSpace(rv.Kind),
		Issuer:           cleanText(rv.Issuer, rep),
		IssuerURL:        cleanURL(rv.IssuerURL, rep),
		Label:            cleanText(rv.Label, rep),
		StockVariantTier: strings.TrimSpace(rv.StockVariantTier),
		Symbol:           cleanText(rv.Symbol, rep),
		Name:             cleanText(rv.Name, rep),
		Tags:             cleanTags(rv.Tags, rep),
	}
	if v.Kind == legacyKindSpot {
		v.Kind = asset.KindNative
		rep.add(Issue{
			Kind: IssueKindMapped, AssetID: a.AssetID, VariantID: v.VariantID, Mint: v.Mint,
			Detail: `kind "spot" mapped to "native" (issuer-backed spot token)`,
		})
	}
	switch tier := strings.TrimSpace(rv.TrustTier); tier {
	case asset.TierExperimental:
		v.LiquidityTier = asset.Tier3
		rep.tally(IssueTierNormalised, 1)
	default:
		v.LiquidityTier = tier
	}
	return v
}

// sharedIssuerLabels returns the lower-cased variant labels and issuers that
// appear in two or more assets: they name issuers ("ondo", "xstock",
// "backpack securities"), not assets.
func sharedIssuerLabels(assets []refAsset) map[string]bool {
	users := map[string]map[string]bool{}
	for i := range assets {
		for _, v := range assets[i].Variants {
			for _, s := range [...]string{v.Label, v.Issuer} {
				k := aliasKey(strings.TrimSpace(s))
				if k == "" {
					continue
				}
				if users[k] == nil {
					users[k] = map[string]bool{}
				}
				users[k][assets[i].AssetID] = true
			}
		}
	}
	out := map[string]bool{}
	for k, ids := range users {
		if len(ids) > 1 {
			out[k] = true
		}
	}
	return out
}

// referenceAliases keeps the aliases of a reference asset that add a real
// reference (see ParseReferenceRegistry).
func referenceAliases(a *Asset, aliases []string, labels map[string]bool, dropped map[string][]string, rep *Report) []string {
	redundant := map[string]bool{aliasKey(a.AssetID): true}
	for _, v := range a.Variants {
		redundant[aliasKey(v.VariantID)] = true
	}
	var out []string
	for _, raw := range aliases {
		s := strings.TrimSpace(raw)
		k := aliasKey(s)
		switch {
		case ValidMint(s):
			rep.tally(IssueAliasMintDropped, 1)
		case redundant[k]:
			rep.tally(IssueAliasRedundant, 1)
		case labels[k]:
			dropped[k] = append(dropped[k], a.AssetID)
		case !validText(s):
			rep.tally(IssueFieldDropped, 1)
		default:
			redundant[k] = true
			out = append(out, s)
		}
	}
	return out
}

// linkPreStocks attaches the pre-IPO reference feed entries to their assets.
func linkPreStocks(doc *Document, entries []refPreStock, rep *Report) {
	byID := make(map[string]*Asset, len(doc.Assets))
	for i := range doc.Assets {
		byID[doc.Assets[i].AssetID] = &doc.Assets[i]
	}
	for _, p := range entries {
		a, ok := byID[strings.TrimSpace(p.AssetID)]
		symbol := strings.TrimSpace(p.Symbol)
		if !ok || symbol == "" {
			rep.add(Issue{Kind: IssuePreIPOUnmatched, AssetID: p.AssetID, Mint: p.Mint, Detail: "pre-IPO listing names no imported asset"})
			continue
		}
		ref := &PreIPO{Symbol: symbol}
		if slices.ContainsFunc(a.Variants, func(v Variant) bool { return v.Mint == p.Mint }) {
			ref.Mint = p.Mint
		}
		a.PreIPO = ref
		rep.tally(IssuePreIPOLinked, 1)
	}
}

func convertRefList(l *refList, rep *Report) CuratedList {
	out := CuratedList{
		ID:          strings.TrimSpace(l.ID),
		Name:        cleanText(l.Name, rep),
		Description: cleanText(l.Description, rep),
		Members:     make([]CuratedMember, 0, len(l.Members)),
	}
	seen := map[string]bool{}
	for _, m := range l.Members {
		mint := strings.TrimSpace(m.Mint)
		if !ValidMint(mint) {
			rep.add(Issue{Kind: IssueCuratedMemberDrop, ListID: out.ID, Mint: mint, Detail: "malformed mint"})
			continue
		}
		if seen[mint] {
			rep.tally(IssueDuplicateMintSkip, 1)
			continue
		}
		seen[mint] = true
		out.Members = append(out.Members, CuratedMember{Mint: mint, Rank: max(m.Rank, 0), AssetID: strings.TrimSpace(m.AssetID), AddedAt: max(m.AddedAt, 0)})
	}
	return out
}

// cleanText trims s and returns it when it is usable text; otherwise it
// counts a dropped field and returns "".
func cleanText(s string, rep *Report) string {
	s = strings.TrimSpace(s)
	if s == "" || validText(s) {
		return s
	}
	rep.tally(IssueFieldDropped, 1)
	return ""
}

// cleanURL trims s and returns it when it is an absolute http(s) URL;
// otherwise it counts a dropped field and returns "".
func cleanURL(s string, rep *Report) string {
	s = strings.TrimSpace(s)
	if s == "" || validURL(s) {
		return s
	}
	rep.tally(IssueFieldDropped, 1)
	return ""
}

// cleanTags keeps the usable, distinct tags.
func cleanTags(tags []string, rep *Report) []string {
	var out []string
	for _, t := range tags {
		if t = cleanText(t, rep); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
