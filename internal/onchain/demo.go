package onchain

import (
	"crypto/sha256"

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

// DemoFacts are the --demo world's synthetic facts for the registry's
// variants (Synthetic is set on each; slot 0): stablecoins have a mint and
// a freeze authority held by their issuer, every third other variant keeps
// a mint authority, every fifth a freeze authority, and the first
// non-stablecoin Token-2022-looking variant (the first crypto variant)
// takes a 250 bps transfer fee, so every verdict path can be seen offline.
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
					Older: TransferFee{BasisPoints: 250, MaximumFee: 1 << 40}, Newer: TransferFee{BasisPoints: 250, MaximumFee: 1 << 40}}
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
