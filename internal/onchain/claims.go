package onchain

import (
	"sort"

	"github.com/assetd/assetd/internal/tokenindex"
)

// Claimed is the symbol and name a mint claims on chain: its Token-2022
// token metadata, else its Metaplex metadata ("" when neither is read).
func (f *Facts) Claimed() (symbol, name string) {
	switch {
	case f == nil:
		return "", ""
	case f.Extensions.TokenMetadata != nil && f.Extensions.TokenMetadata.Symbol != "":
		return f.Extensions.TokenMetadata.Symbol, f.Extensions.TokenMetadata.Name
	case f.Metadata != nil:
		return f.Metadata.Symbol, f.Metadata.Name
	}
	return "", ""
}

// ChainSymbol is the symbol and name mint claims on chain now (the latest
// value of the symbol and name the change log records); "" when the mint
// is not read or claims none. It implements curator.ChainSymbols.
func (s *Service) ChainSymbol(mint string) (symbol, name string) {
	_, f := s.Lookup(mint)
	return f.Claimed()
}

// symbolIndex maps a normalised on-chain symbol to its mints (sorted), as
// of one version of the facts.
type symbolIndex struct {
	version uint64
	byKey   map[string][]string
}

// Claiming returns the mints whose on-chain symbol normalises
// (tokenindex.Normalize) to key, at most limit, by mint. The index is
// rebuilt when the facts change (Version). It implements
// curator.ChainSymbols.
func (s *Service) Claiming(key string, limit int) []string {
	if s == nil || key == "" || limit <= 0 {
		return nil
	}
	v := s.Version()
	ix := s.symbols.Load()
	if ix == nil || ix.version != v {
		ix = &symbolIndex{version: v, byKey: map[string][]string{}}
		s.mu.RLock()
		for m, e := range s.facts {
			if sym, _ := e.facts.Claimed(); sym != "" {
				k := tokenindex.Normalize(sym).Key
				ix.byKey[k] = append(ix.byKey[k], m)
			}
		}
		s.mu.RUnlock()
		for _, ms := range ix.byKey {
			sort.Strings(ms)
		}
		s.symbols.Store(ix)
	}
	ms := ix.byKey[key]
	return ms[:min(limit, len(ms))]
}
