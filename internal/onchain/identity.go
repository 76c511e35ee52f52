package onchain

import (
	"encoding/json"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
)

// SourceRegistry names registry imports in the change log.
const SourceRegistry = "registry"

// IdentityChanges lists the symbol, name and logo changes of the mints both
// snapshots hold (a mint's symbol and name are its variant's, else its
// asset's), as change-log rows at (unix ms) by source.
func IdentityChanges(old, cur *registry.Snapshot, at int64, source string) []storage.MintChange {
	if old == nil || cur == nil {
		return nil
	}
	var out []storage.MintChange
	for _, m := range cur.Mints() {
		na, nv, ok := cur.VariantByMint(m)
		if !ok {
			continue
		}
		oa, ov, ok := old.VariantByMint(m)
		if !ok {
			continue
		}
		for _, f := range []struct{ field, o, n string }{
			{"symbol", first(ov.Symbol, oa.Symbol), first(nv.Symbol, na.Symbol)},
			{"name", first(ov.Name, oa.Name), first(nv.Name, na.Name)},
			{"logoUri", ov.LogoURI, nv.LogoURI},
		} {
			if f.o != f.n {
				out = append(out, storage.MintChange{Mint: m, Field: f.field, Old: quote(f.o), New: quote(f.n), At: at, Source: source})
			}
		}
	}
	return out
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// quote is the JSON value of s; "" (absent) stays "".
func quote(s string) string {
	if s == "" {
		return ""
	}
	b, _ := json.Marshal(s)
	return string(b)
}
