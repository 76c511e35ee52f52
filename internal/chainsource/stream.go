package chainsource

import (
	"context"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/swapdecode"
)

// A streaming source (Yellowstone gRPC) pushes its slots instead of Step
// fetching them (Config.Pushed): StoreSlot stores one slot's trades with
// the cursor moved to it, StoreGap records the slots it could not get,
// both in one store transaction each, the same cursor table and write
// path as the JSON-RPC source's. Run then only retries the gaps through
// getBlocks/getBlock (when an RPC client is set), exactly as the RPC
// source does; Resume says where the stream restarts (from_slot).

// Resume reads the stored cursor and returns the first slot the stream
// must deliver: the cursor's Frontier+1 (its gaps are retried by Run), or
// Config.Start for an empty cursor (0 with StartLatest: the live tip).
func (s *Source) Resume(ctx context.Context) (int64, error) {
	cur, found, err := s.cfg.Store.SourceCursor(ctx, s.cfg.Name)
	if err != nil {
		return 0, fmt.Errorf("read cursor %s: %w", s.cfg.Name, err)
	}
	if !found {
		if s.cfg.Start > 0 {
			return s.cfg.Start, nil
		}
		return 0, nil
	}
	s.mu.Lock()
	s.cur, s.loaded = cur, true
	s.next = map[int64]time.Time{}
	s.mu.Unlock()
	s.cfg.Log.Info("trade source resumes at its stored cursor", "source", s.cfg.Name, "through", cur.Through, "frontier", cur.Frontier, "gaps", len(cur.Gaps))
	return cur.Frontier + 1, nil
}

// StoreSlot stores the trades of one streamed slot (txs are its decoded
// DEX transactions, counted in the status) with the cursor's frontier
// moved to slot, in one store transaction. A slot at or below the
// frontier (a straggler) stores its trades and leaves the cursor where it
// is; the store dedupes on (signature, leg). An empty cursor is seeded at
// Config.Start, or just below the first slot.
func (s *Source) StoreSlot(ctx context.Context, slot int64, txs []swapdecode.Tx, trades []analytics.Trade) (err error) {
	if err := s.load(ctx, slot); err != nil {
		return err
	}
	s.mu.Lock()
	s.active = true
	s.stats.HeadSlot = max(s.stats.HeadSlot, slot)
	trades = s.account(txs, nonNil(trades))
	s.mu.Unlock()
	defer func() {
		if err == nil {
			s.mu.Lock()
			s.streamErr = ""
			s.mu.Unlock()
		}
	}()
	return s.store(ctx, trades, nil, nil, slot)
}

// StoreGap records the slots from..to, which the stream missed and could
// not fill, as a gap (cause is its last error) with the frontier moved
// to to; Run retries it through getBlock like the RPC source's gaps.
func (s *Source) StoreGap(ctx context.Context, from, to int64, cause string) error {
	if from > to {
		return nil
	}
	if err := s.load(ctx, from); err != nil {
		return err
	}
	s.mu.Lock()
	s.active = true
	s.stats.HeadSlot = max(s.stats.HeadSlot, to)
	s.mu.Unlock()
	return s.store(ctx, nil, []storage.SourceGap{{FromSlot: from, ToSlot: to, LastError: cause}}, nil, to)
}

// NoteStreamError records why the stream's subscription ended (a
// disconnect, a refused request): Status reports it as lastError until
// the next slot is stored.
func (s *Source) NoteStreamError(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	s.streamErr = err.Error()
	s.mu.Unlock()
}

// stepPushed is Step for a streaming source: the gaps that are due, once
// the cursor is known (Resume or the first pushed slot).
func (s *Source) stepPushed(ctx context.Context) error {
	s.mu.Lock()
	loaded := s.loaded
	s.mu.Unlock()
	if !loaded || s.cfg.RPC == nil {
		return nil
	}
	return s.retryGaps(ctx)
}

func nonNil(t []analytics.Trade) []analytics.Trade {
	if t == nil {
		return []analytics.Trade{}
	}
	return t
}
