package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// sanctumReservePool is the pool program of the LST index's SOL reserve
// entry: wrapped SOL itself, not a liquid staking token.
const sanctumReservePool = "ReservePool"

type sanctumFile struct {
	List []sanctumLST `json:"sanctum_lst_list"`
}

type sanctumLST struct {
	Mint     string `json:"mint"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	LogoURI  string `json:"logo_uri"`
	Decimals *int   `json:"decimals"`
	Pool     struct {
		Program string `json:"program"`
	} `json:"pool"`
}

// ParseSanctumLSTList converts an LST index (the Sanctum LST list: an
// object with a "sanctum_lst_list" array, or the bare array) into a Document
// with only LSTIndex entries (docs/registry.md, "Importing an LST index").
// Each entry becomes a yield variant "solana:<mint>" with its symbol, name,
// decimals and logo. Build attaches the entries no asset lists to "solana";
// they resolve with resolvedBy "lst_index". The reserve-pool entry (wrapped
// SOL) and malformed or repeated mints are skipped and reported.
func ParseSanctumLSTList(r io.Reader) (Document, *Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Document{}, nil, fmt.Errorf("registry: read LST index: %w", err)
	}
	return parseSanctum(data)
}

func parseSanctum(data []byte) (Document, *Report, error) {
	var entries []sanctumLST
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &entries); err != nil {
			return Document{}, nil, fmt.Errorf("registry: decode LST index: %w", err)
		}
	} else {
		var f sanctumFile
		if err := json.Unmarshal(data, &f); err != nil {
			return Document{}, nil, fmt.Errorf("registry: decode LST index: %w", err)
		}
		entries = f.List
	}
	rep := newReport(FormatSanctum)
	doc := Document{LSTIndex: make([]Variant, 0, len(entries))}
	seen := map[string]bool{}
	for _, e := range entries {
		mint := strings.TrimSpace(e.Mint)
		switch {
		case !ValidMint(mint):
			rep.add(Issue{Kind: IssueInvalidMintSkipped, Mint: mint, Detail: "LST index entry " + e.Symbol})
			continue
		case e.Pool.Program == sanctumReservePool:
			rep.add(Issue{Kind: IssueReservePoolSkipped, Mint: mint, Detail: "the SOL reserve entry is wrapped SOL, not an LST"})
			continue
		case seen[mint]:
			rep.tally(IssueDuplicateMintSkip, 1)
			continue
		}
		seen[mint] = true
		v := Variant{
			VariantID: solanaAssetID + ":" + mint,
			Mint:      mint,
			Kind:      asset.KindYield,
			Symbol:    cleanText(e.Symbol, rep),
			Name:      cleanText(e.Name, rep),
			LogoURI:   cleanURL(e.LogoURI, rep),
		}
		if d := e.Decimals; d != nil && *d >= 0 && *d <= 255 {
			v.Decimals = new(int)
			*v.Decimals = *d
		}
		doc.LSTIndex = append(doc.LSTIndex, v)
	}
	if err := Validate(doc); err != nil {
		return Document{}, nil, fmt.Errorf("registry: LST index: %w", err)
	}
	return doc, rep, nil
}
