package tokenindex

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// File formats Parse reads.
const (
	FormatCSV       = "csv"       // mint,symbol,name,decimals,logoURI,coingeckoId[,...] with a header row
	FormatTokenList = "tokenlist" // the token-list JSON schema ({"tokens": [...]}, chainId 101 only)
	FormatJupiter   = "jupiter"   // a Jupiter Tokens v2 style JSON array ([{id, symbol, name, decimals, icon}])
)

// ParseReport counts what Parse read.
type ParseReport struct {
	Format   string
	Read     int // token entries read
	Skipped  int // entries without a usable mint, or of another chain
	Repeated int // entries whose mint came earlier in the file (the later wins)
}

// Parse reads a token file in any supported format, detected from its
// first byte ('[' Jupiter, '{' token list, else CSV), and calls add for
// every token (raw: the Builder and the store clean them). progress, when
// not nil, is called every 50,000 entries.
func Parse(r io.Reader, add func(Token), progress func(n int)) (ParseReport, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := firstByte(br)
	if err != nil {
		return ParseReport{}, err
	}
	seen := map[string]struct{}{}
	rep := ParseReport{}
	emit := func(t Token) {
		rep.Read++
		t.Mint = strings.TrimSpace(t.Mint)
		if t.Mint == "" || len(t.Mint) > 64 {
			rep.Skipped++
			return
		}
		if _, dup := seen[t.Mint]; dup {
			rep.Repeated++
		} else {
			seen[t.Mint] = struct{}{}
		}
		add(t)
		if progress != nil && rep.Read%50000 == 0 {
			progress(rep.Read)
		}
	}
	switch first {
	case '[':
		rep.Format = FormatJupiter
		err = parseJupiter(br, emit)
	case '{':
		rep.Format = FormatTokenList
		err = parseTokenList(br, emit, &rep)
	default:
		rep.Format = FormatCSV
		err = parseCSV(br, emit)
	}
	return rep, err
}

func firstByte(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, errors.New("empty token file")
			}
			return 0, err
		}
		if c == 0xEF { // UTF-8 BOM
			_, _ = br.Discard(2)
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, br.UnreadByte()
		}
	}
}

// parseCSV reads a CSV with a header naming at least mint (or address)
// and symbol; name, decimals, logoURI and coingeckoId are optional
// (header names are case-insensitive).
func parseCSV(r io.Reader, emit func(Token)) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("csv header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	mintCol, ok := col["mint"]
	if !ok {
		if mintCol, ok = col["address"]; !ok {
			return errors.New("csv header: no mint (or address) column")
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[strings.ToLower(name)]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("csv line %d: %w", line, err)
		}
		if mintCol >= len(rec) {
			emit(Token{})
			continue
		}
		t := Token{Mint: rec[mintCol], Symbol: get(rec, "symbol"), Name: get(rec, "name"), LogoURI: get(rec, "logoURI"),
			CoingeckoID: get(rec, "coingeckoId")}
		if d, err := strconv.Atoi(strings.TrimSpace(get(rec, "decimals"))); err == nil {
			t.Decimals = &d
		}
		emit(t)
	}
}

// tokenListEntry is one token of the token-list schema.
type tokenListEntry struct {
	ChainID    int    `json:"chainId"`
	Address    string `json:"address"`
	Symbol     string `json:"symbol"`
	Name       string `json:"name"`
	Decimals   *int   `json:"decimals"`
	LogoURI    string `json:"logoURI"`
	Extensions struct {
		CoingeckoID string `json:"coingeckoId"`
	} `json:"extensions"`
}

// parseTokenList streams the "tokens" array of a token-list document;
// only mainnet (chainId 101) entries are kept.
func parseTokenList(r io.Reader, emit func(Token), rep *ParseReport) error {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil { // {
		return fmt.Errorf("token list: %w", err)
	}
	found := false
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return fmt.Errorf("token list: %w", err)
		}
		if k != "tokens" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("token list: field %v: %w", k, err)
			}
			continue
		}
		found = true
		if err := eachElement(dec, func() error {
			var e tokenListEntry
			if err := dec.Decode(&e); err != nil {
				return err
			}
			if e.ChainID != 101 {
				rep.Read++
				rep.Skipped++
				return nil
			}
			emit(Token{Mint: e.Address, Symbol: e.Symbol, Name: e.Name, Decimals: e.Decimals, LogoURI: e.LogoURI, CoingeckoID: e.Extensions.CoingeckoID})
			return nil
		}); err != nil {
			return fmt.Errorf("token list: tokens: %w", err)
		}
	}
	if !found {
		return errors.New(`token list: no "tokens" array`)
	}
	return nil
}

// jupiterEntry is one token of a Jupiter Tokens v2 style answer.
type jupiterEntry struct {
	ID          string `json:"id"`
	Address     string `json:"address"`
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Decimals    *int   `json:"decimals"`
	Icon        string `json:"icon"`
	LogoURI     string `json:"logoURI"`
	CoingeckoID string `json:"coingeckoId"`
}

func parseJupiter(r io.Reader, emit func(Token)) error {
	dec := json.NewDecoder(r)
	err := eachElement(dec, func() error {
		var e jupiterEntry
		if err := dec.Decode(&e); err != nil {
			return err
		}
		t := Token{Mint: e.ID, Symbol: e.Symbol, Name: e.Name, Decimals: e.Decimals, LogoURI: e.Icon, CoingeckoID: e.CoingeckoID}
		if t.Mint == "" {
			t.Mint = e.Address
		}
		if t.LogoURI == "" {
			t.LogoURI = e.LogoURI
		}
		emit(t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("jupiter token array: %w", err)
	}
	return nil
}

// eachElement reads a JSON array from dec, calling fn before each element
// (fn decodes it).
func eachElement(dec *json.Decoder, fn func() error) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("expected an array, got %v", t)
	}
	for dec.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err = dec.Token() // ]
	return err
}

// LoadFile parses a token file in any supported format into an Index.
func LoadFile(path string) (*Index, ParseReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ParseReport{}, err
	}
	defer f.Close()
	var b Builder
	rep, err := Parse(f, b.Add, nil)
	if err != nil {
		return nil, rep, fmt.Errorf("%s: %w", path, err)
	}
	return b.Build(), rep, nil
}
