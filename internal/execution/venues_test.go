package execution

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const cbBTC = "cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij"

// TestBuildLinksGolden pins every venue URL.
func TestBuildLinksGolden(t *testing.T) {
	cases := []struct {
		name    string
		pair    Pair
		want    map[string]string // id -> url; absent = dropped
		primary string
	}{
		{
			name: "buy cbBTC with SOL",
			pair: Pair{BuyMint: cbBTC, SellMint: SOLMint, BuySymbol: "cbBTC", SellSymbol: "SOL"},
			want: map[string]string{
				"titan":   "https://titan.exchange/swap?So11111111111111111111111111111111111111112-cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"jupiter": "https://jup.ag/swap?sell=So11111111111111111111111111111111111111112&buy=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"dflow":   "https://dflow.net/?sendToken=So11111111111111111111111111111111111111112&receiveToken=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"sunrise": "https://sunrise.xyz/?fromToken=SOL&toToken=cbBTC",
				"omfg":    "https://www.omnipair.fi/trade?from=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&to=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"kamino":  "https://kamino.com/swap/SOL-cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"orca":    "https://www.orca.so/?tokenIn=So11111111111111111111111111111111111111112&tokenOut=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"raydium": "https://raydium.io/swap/?inputMint=sol&outputMint=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
				"byreal":  "https://www.byreal.io/en/swap?inputMint=So11111111111111111111111111111111111111112&outputMint=cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij",
			},
			primary: "titan",
		},
		{
			name: "buy SOL with USDC",
			pair: Pair{BuyMint: SOLMint, SellMint: USDCMint, BuySymbol: "SOL", SellSymbol: "USDC"},
			want: map[string]string{
				"titan":   "https://titan.exchange/swap?EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v-So11111111111111111111111111111111111111112",
				"jupiter": "https://jup.ag/swap?sell=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&buy=So11111111111111111111111111111111111111112",
				"dflow":   "https://dflow.net/?sendToken=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&receiveToken=So11111111111111111111111111111111111111112",
				"sunrise": "https://sunrise.xyz/?fromToken=USDC&toToken=SOL",
				"omfg":    "https://www.omnipair.fi/trade?from=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&to=So11111111111111111111111111111111111111112",
				"kamino":  "https://kamino.com/swap/SOL-USDC",
				"orca":    "https://www.orca.so/?tokenIn=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&tokenOut=So11111111111111111111111111111111111111112",
				"raydium": "https://raydium.io/swap/?inputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&outputMint=sol",
				"byreal":  "https://www.byreal.io/en/swap?inputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&outputMint=So11111111111111111111111111111111111111112",
			},
			primary: "titan",
		},
		{
			name: "buy USDC: omfg drops (same mint), kamino SOL-USDC, sunrise drops (same symbol)",
			pair: Pair{BuyMint: USDCMint, SellMint: SOLMint, BuySymbol: "USDC", SellSymbol: ""},
			want: map[string]string{
				"titan":   "https://titan.exchange/swap?So11111111111111111111111111111111111111112-EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
				"jupiter": "https://jup.ag/swap?sell=So11111111111111111111111111111111111111112&buy=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
				"dflow":   "https://dflow.net/?sendToken=So11111111111111111111111111111111111111112&receiveToken=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
				"kamino":  "https://kamino.com/swap/SOL-USDC",
				"orca":    "https://www.orca.so/?tokenIn=So11111111111111111111111111111111111111112&tokenOut=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
				"raydium": "https://raydium.io/swap/?inputMint=sol&outputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
				"byreal":  "https://www.byreal.io/en/swap?inputMint=So11111111111111111111111111111111111111112&outputMint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
			},
			primary: "titan",
		},
		{
			name: "no buy symbol: sunrise drops",
			pair: Pair{BuyMint: cbBTC, SellMint: SOLMint},
			want: nil, // checked below: sunrise absent
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			links, primary := BuildLinks(c.pair, nil, DefaultIconBase)
			got := map[string]string{}
			var order []string
			for _, l := range links {
				got[l.ID] = l.URL
				order = append(order, l.ID)
				if l.Kind != KindSwap || l.IconURL != nil {
					t.Errorf("%s: kind %q icon %v", l.ID, l.Kind, l.IconURL)
				}
			}
			if c.want == nil {
				if _, ok := got["sunrise"]; ok {
					t.Errorf("sunrise should drop without a buy symbol")
				}
				return
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("urls (-want +got):\n%s", diff)
			}
			var want []string
			for _, id := range VenueIDs() {
				if _, ok := c.want[id]; ok {
					want = append(want, id)
				}
			}
			if diff := cmp.Diff(want, order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if primary != c.primary {
				t.Errorf("primary = %q, want %q", primary, c.primary)
			}
		})
	}
}

func TestBuildLinksSubset(t *testing.T) {
	links, primary := BuildLinks(Pair{BuyMint: cbBTC, SellMint: SOLMint}, []string{"orca", "jupiter"}, DefaultIconBase)
	if len(links) != 2 || links[0].ID != "jupiter" || links[1].ID != "orca" || primary != "" {
		t.Fatalf("links = %+v, primary %q", links, primary)
	}
	if links[0].VenueType != VenueAggregator || links[1].VenueType != VenueDEX {
		t.Errorf("venue types %q %q", links[0].VenueType, links[1].VenueType)
	}
}

func TestVenueOrder(t *testing.T) {
	want := []string{"titan", "jupiter", "dflow", "sunrise", "omfg", "kamino", "orca", "raydium", "byreal"}
	if diff := cmp.Diff(want, VenueIDs()); diff != "" {
		t.Error(diff)
	}
}

func TestNormalizeSymbol(t *testing.T) {
	for in, want := range map[string]string{" cb BTC ": "cbBTC", "???": "", "": "", "  ": "", "wSOL": "wSOL"} {
		if got := NormalizeSymbol(in); got != want {
			t.Errorf("NormalizeSymbol(%q) = %q, want %q", in, got, want)
		}
	}
	if DefaultSellMint(SOLMint) != USDCMint || DefaultSellMint(cbBTC) != SOLMint {
		t.Error("default sell mint")
	}
}
