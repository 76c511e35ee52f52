package onchain

import (
	"crypto/sha256"
	"time"

	"github.com/assetd/assetd/internal/registry"
	"github.com/mr-tron/base58"
)

// SourceDemo names the demo world's synthetic facts in the change log.
const SourceDemo = "demo"

// demoKey is a visibly synthetic address: base58 of SHA-256 of a label.
func demoKey(label string) *string {
	sum := sha256.Sum256([]byte("assetd demo " + label))
	s := base58.Encode(sum[:])
	return &s
}

// The demo world's scripted fact change (docs/onchain.md): during minutes
// 20 to 40 of every hour (unix time, so every replica and every restart
// agree) the fee authority of the demo's transfer-fee mint raises its
// pending (newer) fee from DemoFeeBps to DemoRaisedFeeBps, over the
// doNotTrade bound, and lowers it back afterwards. Each step is one
// change-log row (extensions.transferFeeConfig.newerTransferFee.
// transferFeeBasisPoints, source demo) and flips the mint's verdict, so
// the change log and the verdicts can be watched offline. SYNTHETIC: no
// such change happened on chain.
const (
	DemoScriptCycle  = time.Hour
	DemoScriptStart  = 20 * time.Minute
	DemoScriptEnd    = 40 * time.Minute
	DemoFeeBps       = 250
	DemoRaisedFeeBps = 1500
)

// DemoScriptRaised says whether the scripted fee raise is in force at t.
func DemoScriptRaised(t time.Time) bool {
	at := time.Duration(t.UnixNano() % int64(DemoScriptCycle))
	if at < 0 {
		at += DemoScriptCycle
	}
	return at >= DemoScriptStart && at < DemoScriptEnd
}

// DemoFactsAt are DemoFacts as the demo script has them at t.
func DemoFactsAt(assets []registry.Asset, t time.Time) []Facts {
	out := DemoFacts(assets)
	if !DemoScriptRaised(t) {
		return out
	}
	for i := range out {
		if c := out[i].Extensions.TransferFeeConfig; c != nil {
			c.Newer.BasisPoints = DemoRaisedFeeBps
		}
	}
	return out
}

// DemoFacts are the --demo world's synthetic facts for the registry's
// variants (Synthetic is set on each; slot 0): stablecoins have a mint and
// a freeze authority held by their issuer, every third other variant keeps
// a mint authority, every fifth a freeze authority, and the first
// non-stablecoin Token-2022-looking variant (the first crypto variant)
// takes a 250 bps transfer fee, so every verdict path can be seen offline
// (DemoFactsAt adds the scripted fee raise).
func DemoFacts(assets []registry.Asset) []Facts {
	var out []Facts
	fee := false
	i := 0
	for _, a := range assets {
		for _, v := range a.Variants {
			f := Facts{Mint: v.Mint, Program: ProgramSPLToken, Decimals: 6, Supply: "1000000000000000", Synthetic: true}
			if v.Decimals != nil {
				f.Decimals = *v.Decimals
			}
			switch {
			case a.Category == "stablecoin":
				f.MintAuthority, f.FreezeAuthority = demoKey("issuer "+a.AssetID), demoKey("issuer "+a.AssetID)
			case !fee && a.Category == "crypto" && i > 0:
				fee = true
				f.Program = ProgramToken2022
				f.Extensions.TransferFeeConfig = &TransferFeeConfig{ConfigAuthority: demoKey("fee " + v.Mint), WithdrawWithheldAuthority: demoKey("fee " + v.Mint),
					Older: TransferFee{BasisPoints: DemoFeeBps, MaximumFee: 1 << 40}, Newer: TransferFee{BasisPoints: DemoFeeBps, MaximumFee: 1 << 40}}
			default:
				if i%3 == 0 {
					f.MintAuthority = demoKey("mint " + v.Mint)
				}
				if i%5 == 0 {
					f.FreezeAuthority = demoKey("freeze " + v.Mint)
				}
			}
			i++
			out = append(out, f)
		}
	}
	return out
}
