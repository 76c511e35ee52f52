package registry

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"testing"
)

func BenchmarkResolve(b *testing.B) {
	s := seedSnapshot(b)
	for _, bc := range []struct{ name, ref string }{
		{"slug", "bitcoin"},
		{"alias", "usdc"},
		{"aliasMixedCase", "Wrapped SOL"},
		{"mint", mintUSDC},
		{"solanaMint", "solana-" + mintUSDC},
		{"singleton", mintUnknown},
		{"solanaSingleton", "solana-" + mintUnknown},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Resolve(bc.ref); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkResolveNotFound(b *testing.B) {
	s := seedSnapshot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Resolve("dogecoin"); err == nil {
			b.Fatal("want an error")
		}
	}
}

func BenchmarkSeedBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		seed, err := Seed()
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Build(seed); err != nil {
			b.Fatal(err)
		}
	}
}

// syntheticRegistryJSON is a visibly synthetic registry document of n
// assets (the layout of bench/registrygen: syn-NNNNNN ids, one variant
// each, a wrapped second variant on every tenth asset).
func syntheticRegistryJSON(b *testing.B, n int) []byte {
	b.Helper()
	var doc Document
	for i := range n {
		id := fmt.Sprintf("syn-%06d", i)
		a := Asset{AssetID: id, Name: fmt.Sprintf("Synthetic asset %d", i), Symbol: fmt.Sprintf("SYN%06d", i), Category: "crypto",
			Variants: []Variant{{VariantID: id + ":native", Mint: syntheticMint(2 * i), Kind: "native"}}}
		if i%10 == 0 {
			a.Variants = append(a.Variants, Variant{VariantID: id + ":wrapped", Mint: syntheticMint(2*i + 1), Kind: "wrapped",
				Symbol: fmt.Sprintf("wSYN%06d", i), Name: fmt.Sprintf("Wrapped synthetic asset %d", i)})
		}
		doc.Assets = append(doc.Assets, a)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// syntheticMint is a valid 44-character base58 mint derived from i.
func syntheticMint(i int) string {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	var b [32]byte
	b[0] = 0x80
	binary.BigEndian.PutUint64(b[24:], uint64(i)*0x9e3779b97f4a7c15)
	binary.BigEndian.PutUint64(b[16:], uint64(i))
	n := new(big.Int).SetBytes(b[:])
	base, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, alphabet[mod.Int64()])
	}
	slices.Reverse(out)
	return string(out)
}

// BenchmarkLoad150k parses and builds a 150,000-asset registry document
// over the seed, as a server's start-up does with a stored import (issue
// 17).
func BenchmarkLoad150k(b *testing.B) {
	data := syntheticRegistryJSON(b, 150_000)
	b.ReportAllocs()
	for b.Loop() {
		seed, err := Seed()
		if err != nil {
			b.Fatal(err)
		}
		doc, err := ParseDocumentBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := BuildParsed(seed, doc); err != nil {
			b.Fatal(err)
		}
	}
}
