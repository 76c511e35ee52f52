// Package realdata is test support for the real public data next to the
// repository (../shared/data from the module root): it finds the
// directory from any package's test, skips the test cleanly when a file
// is absent, and loads the two inputs several acceptance tests share —
// the reference registry imported over the seed (what `assetd registry
// import reference-registry.json` serves) and the 150k-token index.
// Nothing here copies the data into the repository.
package realdata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// File names in the shared data directory.
const (
	ReferenceRegistry = "reference-registry.json"
	TokenIndex150k    = "token-index-sonarwatch-solana-150k.csv"
)

// Path returns the path of name in the shared data directory, skipping tb
// when the file is absent. The directory is shared/data beside the module
// root (found by walking up from the working directory to go.mod).
func Path(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("shared data absent: no go.mod above the working directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		tb.Skip("shared data absent:", err)
	}
	return p
}

// Reference returns the seed with the reference registry imported over it
// (the reference has no decimals), skipping tb without the file.
func Reference(tb testing.TB) *registry.Snapshot {
	tb.Helper()
	snap, _ := ReferenceWithDocument(tb)
	return snap
}

// ReferenceWithDocument is Reference and the parsed reference document.
func ReferenceWithDocument(tb testing.TB) (*registry.Snapshot, registry.Document) {
	tb.Helper()
	f, err := os.Open(Path(tb, ReferenceRegistry))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	ref, _, err := registry.ParseReferenceRegistry(f)
	if err != nil {
		tb.Fatal(err)
	}
	seed, err := registry.Seed()
	if err != nil {
		tb.Fatal(err)
	}
	snap, _, err := registry.Build(seed, ref)
	if err != nil {
		tb.Fatal(err)
	}
	return snap, ref
}

// Tokens returns the 150k-token index, skipping tb without the file.
func Tokens(tb testing.TB) *tokenindex.Index {
	tb.Helper()
	x, _, err := tokenindex.LoadFile(Path(tb, TokenIndex150k))
	if err != nil {
		tb.Fatal(err)
	}
	return x
}
