package registry

import (
	"errors"
	"fmt"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// Resolution errors. The HTTP layer maps ErrInvalidRef (and ErrInvalidMint,
// which wraps it) to 400 BadRequestError and ErrNotFound to 404
// NotFoundError. Returned errors wrap these with the offending reference;
// test them with errors.Is.
var (
	ErrInvalidRef  = errors.New("invalid asset reference")
	ErrInvalidMint = fmt.Errorf("%w: invalid mint", ErrInvalidRef)
	ErrNotFound    = errors.New("asset not found")
)

// Resolution is the outcome of resolving an asset reference.
type Resolution struct {
	// Ref is the reference as resolved (surrounding spaces removed).
	Ref string
	// AssetID is the canonical slug, or "solana-<mint>" for a singleton.
	AssetID string
	// ResolvedBy is one of the spec's resolvedBy values (asset.ResolvedBy*).
	ResolvedBy string
	// Mint is the address the reference named, for mint references
	// (raw, solana-<mint>, LST index); empty otherwise.
	Mint string
	// Asset is the resolved asset; for a singleton it is built on the fly.
	Asset *Asset
	// Variant is the variant of Mint, for mint references; nil otherwise.
	Variant *Variant
}

// Singleton reports whether the reference named a mint no asset lists.
func (r Resolution) Singleton() bool { return r.ResolvedBy == asset.ResolvedBySingleton }

// Resolve turns an asset reference into a canonical asset, following the
// spec's "Identifiers" rules, in this order:
//
//  1. "solana-<mint>" with a valid mint: the mint's asset (resolvedBy
//     "singletonMint"), an LST index mint (asset "solana", "lst_index"), or
//     the singleton asset "solana-<mint>" ("singleton").
//  2. A raw valid mint (exact, case-sensitive): the mint's asset ("mint"),
//     an LST index mint ("lst_index"), or the singleton ("singleton").
//  3. An exact canonical asset id ("assetId").
//  4. An alias, case-insensitively: asset ids in other cases, names,
//     symbols, coin ids, stock tickers, aliases, variant ids, symbols and
//     names ("alias"), or LST index symbols and names ("lst_index"). When
//     assets share a key the resolution is fixed at build time (see
//     buildAliasIndex) and reported as an alias collision.
//
// A reference that is empty, longer than MaxRefLength, not UTF-8 or has
// control characters is ErrInvalidRef; one shaped like an address (32 to 44
// base58 characters, raw or after "solana-") that does not decode to 32 bytes
// and matches no alias is ErrInvalidMint; anything else unknown is
// ErrNotFound.
//
// Resolve does not allocate for known slugs, aliases and mints (ASCII
// aliases up to 128 bytes); a singleton costs two small allocations.
func (s *Snapshot) Resolve(ref string) (Resolution, error) {
	ref = strings.TrimSpace(ref)
	if !validText(ref) {
		return Resolution{}, fmt.Errorf("%w: %q: empty, longer than %d bytes or not clean UTF-8 text", ErrInvalidRef, ref, MaxRefLength)
	}
	rest, prefixed := strings.CutPrefix(ref, SingletonPrefix)
	// Registry mints are valid by construction: look them up before paying
	// for the base58 check.
	if prefixed {
		if e, ok := s.mint(rest); ok {
			return s.mintResolution(ref, rest, e, asset.ResolvedBySingletonMint), nil
		}
	} else if e, ok := s.mint(ref); ok {
		return s.mintResolution(ref, ref, e, asset.ResolvedByMint), nil
	}
	if prefixed && ValidMint(rest) {
		return s.resolveMint(ref, rest, asset.ResolvedBySingletonMint), nil
	}
	if ValidMint(ref) {
		return s.resolveMint(ref, ref, asset.ResolvedByMint), nil
	}
	if i, ok := s.assetIndex(ref); ok {
		a := &s.assets[i]
		return Resolution{Ref: ref, AssetID: a.AssetID, ResolvedBy: asset.ResolvedByAssetID, Asset: a}, nil
	}
	if e, ok := s.lookupAlias(ref); ok {
		by := asset.ResolvedByAlias
		if e.lstIndex() {
			by = asset.ResolvedByLSTIndex
		}
		a := &s.assets[e.asset()]
		return Resolution{Ref: ref, AssetID: a.AssetID, ResolvedBy: by, Asset: a}, nil
	}
	if looksLikeMint(ref) || prefixed && looksLikeMint(rest) {
		return Resolution{}, fmt.Errorf("%w: %q is not a base58 32-byte address", ErrInvalidMint, ref)
	}
	return Resolution{}, fmt.Errorf("%w: %q", ErrNotFound, ref)
}

// ResolveMint resolves a raw mint: its asset (resolvedBy "mint"), an LST
// index mint (asset "solana", "lst_index"), or the singleton asset
// "solana-<mint>" ("singleton"). A malformed mint is ErrInvalidMint.
func (s *Snapshot) ResolveMint(mint string) (Resolution, error) {
	if !ValidMint(mint) {
		return Resolution{}, fmt.Errorf("%w: %q is not a base58 32-byte address", ErrInvalidMint, mint)
	}
	return s.resolveMint(mint, mint, asset.ResolvedByMint), nil
}

// resolveMint resolves a valid mint; knownBy is the resolvedBy value for a
// registry mint. When ref is "solana-<mint>" it doubles as the singleton id.
func (s *Snapshot) resolveMint(ref, mint, knownBy string) Resolution {
	if e, ok := s.mint(mint); ok {
		return s.mintResolution(ref, mint, e, knownBy)
	}
	id := "" // newSingleton builds "solana-<mint>"
	if ref != mint {
		id = ref // ref already is "solana-<mint>"
	}
	a := newSingleton(id, mint)
	return Resolution{Ref: ref, AssetID: a.AssetID, ResolvedBy: asset.ResolvedBySingleton, Mint: mint, Asset: a, Variant: &a.Variants[0]}
}

// mintResolution describes a registry mint; LST index mints always resolve
// with resolvedBy "lst_index".
func (s *Snapshot) mintResolution(ref, mint string, e mintEntry, knownBy string) Resolution {
	by := knownBy
	if e.lstIndex() {
		by = asset.ResolvedByLSTIndex
	}
	a, v := s.at(e)
	return Resolution{Ref: ref, AssetID: a.AssetID, ResolvedBy: by, Mint: mint, Asset: a, Variant: v}
}
