package registry

import (
	_ "embed" // for the seed registry
	"fmt"
)

// seedJSON is our curated seed registry. Every mint in it was taken from
// public data (see docs/registry.md, "Seed"); the grouping, aliases, labels
// and curated memberships are ours.
//
//go:embed seed/registry.json
var seedJSON []byte

// Seed returns the embedded seed registry, freshly decoded and validated on
// every call, so callers own the result.
func Seed() (Document, error) {
	doc, err := parseDocument(seedJSON)
	if err != nil {
		return Document{}, fmt.Errorf("registry: seed: %w", err)
	}
	return doc, nil
}

// SeedSnapshot builds a Snapshot of the seed registry alone (tests and
// tools that need the curated assets without a store).
func SeedSnapshot() (*Snapshot, error) {
	doc, err := Seed()
	if err != nil {
		return nil, err
	}
	snap, _, err := Build(doc)
	if err != nil {
		return nil, fmt.Errorf("registry: seed: %w", err)
	}
	return snap, nil
}
