// Package liststest holds helpers for tests and benchmarks of community
// lists: deterministic mint addresses and a fast bulk fill of a store.
package liststest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/mr-tron/base58"
)

// Mint returns a deterministic, well-formed mint address (base58 of 32
// bytes) for i.
func Mint(i int) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(i))
	sum := sha256.Sum256(append([]byte("assetd-liststest-mint:"), b[:]...))
	return base58.Encode(sum[:])
}

// FillSpec says what Fill creates.
type FillSpec struct {
	Owner   string    // project id owning the lists
	Lists   int       // number of lists, slugs "fill-list-00", "fill-list-01", ...
	Members int       // members per list
	Overlap int       // mints list j shares with list j+1 (0 <= Overlap < Members)
	Status  string    // "" for published
	Now     time.Time // creation time; zero for time.Now
}

// FillMint is the mint at rank k (1-based) of list j under spec: list j
// holds mints j*(Members-Overlap)+0 .. +Members-1, so neighbours share
// Overlap mints.
func (f FillSpec) FillMint(j, k int) string { return Mint(j*(f.Members-f.Overlap) + k - 1) }

// Fill creates spec.Lists lists with spec.Members members each through
// the store directly (one bulk add per list, which the engines insert in
// batches), bypassing the per-call and per-list caps. It returns the lists
// as stored after the fill.
func Fill(ctx context.Context, s lists.Store, spec FillSpec) ([]lists.List, error) {
	if spec.Overlap < 0 || (spec.Members > 0 && spec.Overlap >= spec.Members) {
		return nil, fmt.Errorf("liststest: overlap %d outside 0..%d", spec.Overlap, spec.Members-1)
	}
	if spec.Status == "" {
		spec.Status = lists.StatusPublished
	}
	if spec.Now.IsZero() {
		spec.Now = time.Now()
	}
	out := make([]lists.List, 0, spec.Lists)
	dec := 6
	for j := range spec.Lists {
		slug := fmt.Sprintf("fill-list-%02d", j)
		if _, err := s.CreateList(ctx, lists.CreateParams{
			ID: fmt.Sprintf("lst_fill%04d", j), Slug: slug, Name: fmt.Sprintf("Fill list %d", j),
			Status: spec.Status, Owner: spec.Owner, Now: spec.Now,
		}); err != nil {
			return nil, err
		}
		ms := make([]lists.NewMember, spec.Members)
		for k := range ms {
			mint := spec.FillMint(j, k+1)
			sym, name := "T"+mint[:5], "Token "+mint[:8]
			ms[k] = lists.NewMember{Mint: mint, Snapshot: lists.Snapshot{Symbol: &sym, Name: &name, Decimals: &dec, Verified: k%3 == 0}}
		}
		res, err := s.AddMembers(ctx, lists.AddMembersParams{Project: spec.Owner, Slug: slug, Members: ms, Now: spec.Now})
		if err != nil {
			return nil, err
		}
		if len(res.Added) != spec.Members {
			return nil, fmt.Errorf("liststest: %s: added %d of %d members", slug, len(res.Added), spec.Members)
		}
		l, err := s.GetList(ctx, slug)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}
