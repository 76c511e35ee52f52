package registry

import (
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
