// Package registry holds the canonical asset registry: the grouping of
// real-world assets (identified by slugs) with the Solana token variants
// (mints) that belong to them, the curated lists, and the rules that turn an
// asset reference into a canonical asset.
//
// The package is pure Go: no HTTP, no database. Data enters as Documents
// (the embedded seed returned by Seed, our own JSON files read with
// ParseDocument, or third-party files converted by ParseReferenceRegistry,
// ParseTokenList, ParseSanctumLSTList and DetectAndParse). Build validates
// and merges documents into an immutable, indexed Snapshot, and reports the
// repairs it made (alias collisions, mints listed by two assets, ...) in a
// Report. A Snapshot is safe for concurrent use; the pointers its accessors
// return point into the snapshot and must be treated as read-only.
//
// Resolution follows the spec's "Identifiers" rules: a canonical slug, an
// alias, a raw mint or `solana-<mint>` resolve to a canonical asset; a
// well-formed mint that no asset lists resolves to a deterministic singleton
// asset `solana-<mint>` with one Solana variant. docs/registry.md describes
// the seed format, validation rules and every normalisation.
package registry
