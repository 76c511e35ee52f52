package registry

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// solanaMainnetChainID is the tokenlists.org chain id of Solana mainnet.
const solanaMainnetChainID = 101

type tokenListFile struct {
	Tokens []tokenListToken `json:"tokens"`
}

type tokenListToken struct {
	ChainID    int      `json:"chainId"`
	Address    string   `json:"address"`
	Symbol     string   `json:"symbol"`
	Name       string   `json:"name"`
	Decimals   *int     `json:"decimals"`
	LogoURI    string   `json:"logoURI"`
	Tags       []string `json:"tags"`
	Extensions struct {
		CoingeckoID string `json:"coingeckoId"`
	} `json:"extensions"`
}

// ParseTokenList converts a tokenlists.org token list into a supplemental
// Document (docs/registry.md, "Importing a token list"):
//
//   - only chainId 101 (Solana mainnet) entries are read;
//   - only tokens with a coin id (extensions.coingeckoId) are imported, and
//     tokens sharing a coin id form one asset whose slug is the coin id
//     (slugified), so bridged and wrapped copies of a coin land in one
//     group. Tokens without a coin id are skipped: they already resolve as
//     singletons, and registering unvetted tokens would mark them verified;
//   - a group's name, symbol and image come from its first token that is
//     not a bridged or wrapped copy (else its first token); its category is
//     equity when a token is tagged tokenized-stock, stablecoin when the
//     chosen token is tagged stablecoin, else crypto;
//   - variant kinds come from tags and names (tokenListKind); variant ids
//     are "<slug>:<mint>";
//   - malformed and repeated addresses are skipped (first wins).
//
// The document is supplemental: Build never lets it replace an asset, take
// an id that already resolves, or take a mint the registry lists.
func ParseTokenList(r io.Reader) (Document, *Report, error) {
	var f tokenListFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Document{}, nil, fmt.Errorf("registry: decode token list: %w", err)
	}
	rep := newReport(FormatTokenList)
	doc := convertTokenList(f.Tokens, rep)
	if err := Validate(doc); err != nil {
		return Document{}, nil, fmt.Errorf("registry: token list: %w", err)
	}
	return doc, rep, nil
}

func convertTokenList(tokens []tokenListToken, rep *Report) Document {
	type group struct {
		slug   string
		coinID string
		tokens []*tokenListToken
	}
	var groups []*group
	bySlug := map[string]*group{}
	seen := map[string]bool{}
	for i := range tokens {
		t := &tokens[i]
		if t.ChainID != solanaMainnetChainID {
			rep.tally(IssueOtherChainSkipped, 1)
			continue
		}
		t.Address = strings.TrimSpace(t.Address)
		if !ValidMint(t.Address) {
			rep.add(Issue{Kind: IssueInvalidMintSkipped, Mint: t.Address, Detail: "token list entry " + t.Symbol})
			continue
		}
		if seen[t.Address] {
			rep.tally(IssueDuplicateMintSkip, 1)
			continue
		}
		seen[t.Address] = true
		coinID := strings.TrimSpace(t.Extensions.CoingeckoID)
		if coinID == "" {
			rep.tally(IssueNoCoinIDSkipped, 1)
			continue
		}
		slug := slugify(coinID)
		if !ValidAssetID(slug) {
			rep.tally(IssueInvalidSlugSkipped, 1)
			continue
		}
		g, ok := bySlug[slug]
		if !ok {
			g = &group{slug: slug, coinID: coinID}
			bySlug[slug] = g
			groups = append(groups, g)
		}
		g.tokens = append(g.tokens, t)
	}
	doc := Document{Supplemental: true, Assets: make([]Asset, 0, len(groups))}
	for _, g := range groups {
		a := Asset{AssetID: g.slug, CoinID: cleanText(g.coinID, rep), Category: "crypto"}
		var lead *tokenListToken
		for _, t := range g.tokens {
			kind, issuer := tokenListKind(t)
			if lead == nil && kind != asset.KindBridged && kind != asset.KindWrapped {
				lead = t
			}
			if slices.Contains(t.Tags, "tokenized-stock") {
				a.Category = "equity"
			}
			v := Variant{
				VariantID: g.slug + ":" + t.Address,
				Mint:      t.Address,
				Kind:      kind,
				Issuer:    issuer,
				Symbol:    cleanText(t.Symbol, rep),
				Name:      cleanText(t.Name, rep),
				LogoURI:   cleanURL(t.LogoURI, rep),
				Tags:      cleanTags(t.Tags, rep),
			}
			if d := t.Decimals; d != nil && *d >= 0 && *d <= 255 {
				v.Decimals = new(int)
				*v.Decimals = *d
			}
			a.Variants = append(a.Variants, v)
		}
		if lead == nil {
			lead = g.tokens[0]
		}
		a.Name, a.Symbol = cleanText(lead.Name, rep), cleanText(lead.Symbol, rep)
		a.ImageURL = cleanURL(lead.LogoURI, rep)
		if a.Category == "crypto" && slices.Contains(lead.Tags, "stablecoin") {
			a.Category = "stablecoin"
		}
		doc.Assets = append(doc.Assets, a)
	}
	return doc
}

// tokenListKind derives a variant kind (and a bridge issuer) from a token's
// tags and name: Wormhole/Portal and Allbridge copies are bridged; Sollet and
// other wrapped tokens are wrapped; tokenized stocks are tokenized_equity;
// stablecoins are stablecoin; everything else is native.
func tokenListKind(t *tokenListToken) (kind, issuer string) {
	has := func(tag string) bool { return slices.Contains(t.Tags, tag) }
	switch {
	case has("wormhole") || has("wormhole-v2") || strings.Contains(t.Name, "(Portal") || strings.Contains(t.Name, "Wormhole"):
		return asset.KindBridged, "Wormhole"
	case strings.Contains(t.Name, "Allbridge"):
		return asset.KindBridged, "Allbridge"
	case has("wrapped-sollet"):
		return asset.KindWrapped, "Sollet"
	case has("wrapped") || slices.ContainsFunc(t.Tags, func(tag string) bool { return strings.HasSuffix(tag, "-wrapped") }):
		return asset.KindWrapped, ""
	case has("tokenized-stock"):
		return asset.KindTokenizedEquity, ""
	case has("stablecoin"):
		return asset.KindStablecoin, ""
	}
	return asset.KindNative, ""
}

// slugify lower-cases s and turns every run of characters outside [a-z0-9]
// into one hyphen, trimming hyphens at both ends.
func slugify(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	out := b.String()
	if len(out) > MaxAssetIDLength {
		out = strings.TrimRight(out[:MaxAssetIDLength], "-")
	}
	return out
}
