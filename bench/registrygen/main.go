// Command registrygen writes a VISIBLY SYNTHETIC registry document (the
// seed format, importable with `assetd registry import`) of n assets, for
// measuring assetd with a large registry. Nothing in it is real: asset ids
// are syn-<n>, symbols SYN<n>, names "Synthetic asset <n>", mints are
// base58 encodings of 32 pseudo-random bytes from a fixed seed, and no
// asset has a coin id, ticker, logo or curated-list membership. Every
// variant carries decimals assigned from its index (synDecimals: 6, 9, 8
// or 2 in turn), as synthetic as the rest, so lists of these mints export
// as token lists (which need decimals); no real mint is ever written.
//
//	go run ./bench/registrygen -n 150000 > /tmp/syn150k.json
//	assetd registry import /tmp/syn150k.json --source synthetic
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/mr-tron/base58"
)

type variant struct {
	VariantID string `json:"variantId"`
	Mint      string `json:"mint"`
	Kind      string `json:"kind"`
	Symbol    string `json:"symbol,omitempty"`
	Name      string `json:"name,omitempty"`
	Decimals  *int   `json:"decimals,omitempty"`
}

type assetDoc struct {
	AssetID  string    `json:"assetId"`
	Name     string    `json:"name"`
	Symbol   string    `json:"symbol"`
	Category string    `json:"category"`
	Variants []variant `json:"variants"`
}

// categories are spread over the generated assets so category filters
// have something to filter.
var categories = []string{"crypto", "crypto", "crypto", "crypto", "stablecoin", "rwa", "equity", "etf"}

// synDecimals are the decimals given to the synthetic variants in turn
// (by asset index, the wrapped variant one step on): deterministic, so
// two runs write the same registry.
var synDecimals = []int{6, 9, 8, 2}

// decimalsOf is the synthetic decimals of asset i's variant k (0 native,
// 1 wrapped).
func decimalsOf(i, k int) *int {
	d := synDecimals[(i+k)%len(synDecimals)]
	return &d
}

func main() {
	n := flag.Int("n", 150_000, "number of synthetic assets")
	seed := flag.Uint64("seed", 1, "pseudo-random seed of the mints")
	flag.Parse()
	if err := write(os.Stdout, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "registrygen:", err)
		os.Exit(1)
	}
}

func write(f *os.File, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5e7))
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.WriteString("{\"assets\":[\n"); err != nil {
		return err
	}
	mint := func() string {
		var b [32]byte
		for i := 0; i < 32; i += 8 {
			v := rng.Uint64()
			for k := range 8 {
				b[i+k] = byte(v >> (8 * k))
			}
		}
		b[0] |= 1 // no leading zero bytes: always 43 or 44 characters
		return base58.Encode(b[:])
	}
	for i := range n {
		id := fmt.Sprintf("syn-%06d", i)
		a := assetDoc{AssetID: id, Name: fmt.Sprintf("Synthetic asset %d", i), Symbol: fmt.Sprintf("SYN%06d", i),
			Category: categories[i%len(categories)]}
		a.Variants = []variant{{VariantID: id + ":native", Mint: mint(), Kind: "native", Decimals: decimalsOf(i, 0)}}
		if i%10 == 0 { // every tenth asset has a wrapped variant with its own symbol
			a.Variants = append(a.Variants, variant{VariantID: id + ":wrapped", Mint: mint(), Kind: "wrapped",
				Symbol: fmt.Sprintf("wSYN%06d", i), Name: fmt.Sprintf("Wrapped synthetic asset %d", i), Decimals: decimalsOf(i, 1)})
		}
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteString(",\n")
		}
		w.Write(b)
	}
	w.WriteString("\n]}\n")
	return w.Flush()
}
