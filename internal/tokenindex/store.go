package tokenindex

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Store is what the token index needs from a storage engine. Writes run
// in one transaction that bumps the storage.TopicTokens change version.
type Store interface {
	// ReplaceTokenSource makes the stored tokens of source exactly tokens
	// (cleaned by the caller, one per mint): rows of source whose mint is
	// not in tokens are removed; a mint stored under another source moves
	// to this one (the latest import wins). It returns the number stored.
	ReplaceTokenSource(ctx context.Context, source string, tokens []Token, importedAt time.Time) (int, error)
	// EachToken calls fn for every stored token, in mint order.
	EachToken(ctx context.Context, fn func(Token) error) error
	// TokenSources counts the stored tokens per source, by source name.
	TokenSources(ctx context.Context) ([]SourceCount, error)
}

// SourceCount is one imported source.
type SourceCount struct {
	Source     string
	Tokens     int
	ImportedAt int64 // unix ms of the latest import
}

// Load builds an Index from every stored token.
func Load(ctx context.Context, st Store) (*Index, error) {
	var b Builder
	if src, err := st.TokenSources(ctx); err == nil {
		n := 0
		for _, s := range src {
			n += s.Tokens
		}
		b.Grow(n)
	}
	if err := st.EachToken(ctx, func(t Token) error { b.Add(t); return nil }); err != nil {
		return nil, fmt.Errorf("load token index: %w", err)
	}
	return b.Build(), nil
}

// Holder serves the current Index and reloads it from the store (the
// change poller calls Reload when the tokens topic moves). It is safe for
// concurrent use; the zero Index (nil) answers every query with nothing.
type Holder struct {
	store Store
	log   *slog.Logger
	cur   atomic.Pointer[Index]
}

// NewHolder returns a holder over st with an empty index.
func NewHolder(st Store, log *slog.Logger) *Holder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Holder{store: st, log: log}
}

// Index returns the current index (nil until the first load).
func (h *Holder) Index() *Index { return h.cur.Load() }

// Set swaps in x (tests and start-up).
func (h *Holder) Set(x *Index) { h.cur.Store(x) }

// Reload rebuilds the index from the store and swaps it in; on error the
// current index stays in service.
func (h *Holder) Reload(ctx context.Context) error {
	start := time.Now()
	x, err := Load(ctx, h.store)
	if err != nil {
		return err
	}
	h.cur.Store(x)
	s := x.Stats()
	h.log.Info("token index loaded", "tokens", s.Tokens, "withCoingecko", s.WithCoingecko, "took", time.Since(start).Round(time.Millisecond))
	return nil
}
