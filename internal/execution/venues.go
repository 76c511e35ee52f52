package execution

import (
	"net/url"
	"slices"
	"strings"
)

// Well-known mints of the venue rules.
const (
	SOLMint  = "So11111111111111111111111111111111111111112"
	USDCMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

// Venue types.
const (
	VenueAggregator = "aggregator"
	VenueDEX        = "dex"
)

// KindSwap is the only link kind.
const KindSwap = "swap"

// PrimaryVenueID is the venue reported as `primary` when it is among the
// returned links.
const PrimaryVenueID = "titan"

// DefaultIconBase makes relative venue icon paths absolute.
const DefaultIconBase = "https://tokens.xyz"

// Pair is what a venue URL is built from.
type Pair struct {
	BuyMint, SellMint     string
	BuySymbol, SellSymbol string // normalised (NormalizeSymbol); "" = unknown
}

// Venue is one row of the venue registry: data plus its URL rule.
type Venue struct {
	ID   string
	Name string
	Type string
	// Icon is a path under the icon base, or an absolute URL; "" gives
	// iconUrl null (the registry ships no venue icons: operators may set
	// them).
	Icon string
	// URL builds the swap URL; ok=false drops the venue for this pair.
	URL func(p Pair) (u string, ok bool)
}

// Venues is the venue registry in presentation order (the first is the
// primary venue).
var Venues = []Venue{
	{ID: "titan", Name: "Titan", Type: VenueAggregator, URL: func(p Pair) (string, bool) {
		// The pair string is not URL-encoded.
		return "https://titan.exchange/swap?" + p.SellMint + "-" + p.BuyMint, true
	}},
	{ID: "jupiter", Name: "Jupiter", Type: VenueAggregator, URL: func(p Pair) (string, bool) {
		return "https://jup.ag/swap?" + query("sell", p.SellMint, "buy", p.BuyMint), true
	}},
	{ID: "dflow", Name: "DFlow", Type: VenueAggregator, URL: func(p Pair) (string, bool) {
		return "https://dflow.net/?" + query("sendToken", p.SellMint, "receiveToken", p.BuyMint), true
	}},
	{ID: "sunrise", Name: "Sunrise", Type: VenueDEX, URL: func(p Pair) (string, bool) {
		sell := p.SellSymbol
		if sell == "" {
			sell = "USDC"
		}
		if p.BuySymbol == "" || p.BuySymbol == sell {
			return "", false
		}
		return "https://sunrise.xyz/?" + query("fromToken", sell, "toToken", p.BuySymbol), true
	}},
	{ID: "omfg", Name: "OMFG", Type: VenueDEX, URL: func(p Pair) (string, bool) {
		if p.BuyMint == "" || p.BuyMint == USDCMint {
			return "", false
		}
		return "https://www.omnipair.fi/trade?" + query("from", USDCMint, "to", p.BuyMint), true
	}},
	{ID: "kamino", Name: "Kamino", Type: VenueDEX, URL: func(p Pair) (string, bool) {
		if p.BuyMint == SOLMint || p.BuyMint == USDCMint {
			return "https://kamino.com/swap/SOL-USDC", true
		}
		return "https://kamino.com/swap/SOL-" + url.PathEscape(p.BuyMint), true
	}},
	{ID: "orca", Name: "Orca", Type: VenueDEX, URL: func(p Pair) (string, bool) {
		return "https://www.orca.so/?" + query("tokenIn", p.SellMint, "tokenOut", p.BuyMint), true
	}},
	{ID: "raydium", Name: "Raydium", Type: VenueDEX, URL: func(p Pair) (string, bool) {
		return "https://raydium.io/swap/?" + query("inputMint", raydiumMint(p.SellMint), "outputMint", raydiumMint(p.BuyMint)), true
	}},
	{ID: "byreal", Name: "Byreal", Type: VenueDEX, URL: func(p Pair) (string, bool) {
		return "https://www.byreal.io/en/swap?" + query("inputMint", p.SellMint, "outputMint", p.BuyMint), true
	}},
}

// VenueIDs lists the venue ids in registry order.
func VenueIDs() []string {
	out := make([]string, len(Venues))
	for i, v := range Venues {
		out[i] = v.ID
	}
	return out
}

// raydiumMint spells the SOL mint as the literal "sol", as Raydium's UI
// expects.
func raydiumMint(m string) string {
	if m == SOLMint {
		return "sol"
	}
	return m
}

// query encodes key/value pairs in the given order (url.Values sorts).
func query(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(kv[i]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(kv[i+1]))
	}
	return b.String()
}

// NormalizeSymbol trims a symbol and removes its whitespace; an empty
// symbol or one made only of '?' is unknown ("").
func NormalizeSymbol(s string) string {
	s = strings.Join(strings.Fields(s), "")
	if strings.Trim(s, "?") == "" {
		return ""
	}
	return s
}

// Link is one swap deep link.
type Link struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Kind      string  `json:"kind"`
	VenueType string  `json:"venueType"`
	URL       string  `json:"url"`
	IconURL   *string `json:"iconUrl"`
}

// BuildLinks returns the swap links of pair for the venues in only (nil:
// all), in registry order, and the primary venue id ("" when the primary
// venue is not among them). iconBase makes relative icons absolute.
func BuildLinks(p Pair, only []string, iconBase string) (links []Link, primary string) {
	if p.BuyMint == "" {
		p.BuyMint = SOLMint
	}
	links = []Link{}
	for _, v := range Venues {
		if only != nil && !slices.Contains(only, v.ID) {
			continue
		}
		u, ok := v.URL(p)
		if !ok {
			continue
		}
		var icon *string
		if v.Icon != "" {
			s := v.Icon
			if strings.HasPrefix(s, "/") {
				s = strings.TrimSuffix(iconBase, "/") + s
			}
			icon = &s
		}
		links = append(links, Link{ID: v.ID, Name: v.Name, Kind: KindSwap, VenueType: v.Type, URL: u, IconURL: icon})
		if v.ID == PrimaryVenueID {
			primary = v.ID
		}
	}
	return links, primary
}

// DefaultSellMint is SOL, or USDC when buying SOL.
func DefaultSellMint(buy string) string {
	if buy == SOLMint {
		return USDCMint
	}
	return SOLMint
}
