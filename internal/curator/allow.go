package curator

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/assetd/assetd/internal/registry"
)

// ParseAllowList reads the operator's allow-list of legitimate duplicate
// symbols: a JSON array of mints or of objects with a "Mint" (or "mint")
// field, or an object whose array fields hold such entries (the shape of
// jup-ag/token-list's duplicate-symbols export). Entries that are not
// mint addresses are skipped and counted.
func ParseAllowList(r io.Reader) (allow map[string]bool, skipped int, err error) {
	var raw json.RawMessage
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, 0, fmt.Errorf("allow-list: %w", err)
	}
	out := map[string]bool{}
	var arrays []json.RawMessage
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err == nil {
		for _, v := range obj {
			if len(v) > 0 && v[0] == '[' {
				arrays = append(arrays, v)
			}
		}
	} else {
		arrays = append(arrays, raw)
	}
	for _, a := range arrays {
		var items []json.RawMessage
		if err := json.Unmarshal(a, &items); err != nil {
			return nil, 0, fmt.Errorf("allow-list: %w", err)
		}
		for _, it := range items {
			var mint string
			if err := json.Unmarshal(it, &mint); err != nil {
				var e struct {
					Mint  string `json:"Mint"`
					Lower string `json:"mint"`
				}
				if err := json.Unmarshal(it, &e); err != nil {
					return nil, 0, fmt.Errorf("allow-list entry %s: %w", it, err)
				}
				mint = e.Mint
				if mint == "" {
					mint = e.Lower
				}
			}
			if !registry.ValidMint(mint) {
				skipped++
				continue
			}
			out[mint] = true
		}
	}
	return out, skipped, nil
}
