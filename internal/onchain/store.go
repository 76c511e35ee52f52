package onchain

import (
	"context"

	"github.com/assetd/assetd/internal/storage"
)

// Store is what the on-chain facts need from a storage engine.
type Store interface {
	// PutMintFacts replaces the current reads of rows' mints and appends
	// changes, in one transaction bumping storage.TopicMintFacts.
	PutMintFacts(ctx context.Context, rows []storage.MintFacts, changes []storage.MintChange) error
	// ListMintFacts returns every stored read.
	ListMintFacts(ctx context.Context) ([]storage.MintFacts, error)
	// MintChanges returns the change-log rows of mints (all when empty) at
	// or after since (unix ms) with Seq below before (0: no bound), newest
	// first, at most limit.
	MintChanges(ctx context.Context, mints []string, since, before int64, limit int) ([]storage.MintChange, error)
}
