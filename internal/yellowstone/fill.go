package yellowstone

import (
	"context"
	"errors"
	"fmt"
)

// errNoFetcher is the cause of a gap reported because no BlockFetcher is
// set (no --solana-rpc-url).
var errNoFetcher = errors.New("yellowstone: missed slots and no RPC URL to fill them through getBlock")

// fill hands over the slots from..to the stream missed: through the
// BlockFetcher one getBlock at a time (skipped slots are not gaps), or as
// gaps when there is no fetcher, the range exceeds MaxFillSlots or a fetch
// fails. It advances lastDone to to unless the sink refuses.
func (s *Source) fill(ctx context.Context, from, to int64) error {
	if from > to {
		return nil
	}
	s.log.Info("yellowstone: missed slots", "from", from, "to", to)
	if s.cfg.Fetcher == nil || to-from+1 > s.cfg.MaxFillSlots {
		cause := errNoFetcher
		if s.cfg.Fetcher != nil {
			cause = fmt.Errorf("yellowstone: %d missed slots exceed --yellowstone-max-fill %d", to-from+1, s.cfg.MaxFillSlots)
		}
		return s.gap(ctx, Gap{FromSlot: from, ToSlot: to, Err: cause})
	}
	for slot := from; slot <= to; slot++ {
		raw, err := s.cfg.Fetcher.GetBlock(ctx, slot)
		if errors.Is(err, ErrSlotSkipped) {
			s.count(func(st *Stats) { st.SlotsSkipped++ })
			s.lastDone = slot
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := s.gap(ctx, Gap{FromSlot: slot, ToSlot: slot, Err: fmt.Errorf("yellowstone: getBlock %d: %w", slot, err)}); err != nil {
				return err
			}
			continue
		}
		batch := Batch{Slot: slot, Source: "getBlock"}
		txs, err := s.cfg.DecodeBlock(raw, slot)
		if err != nil {
			if err := s.gap(ctx, Gap{FromSlot: slot, ToSlot: slot, Err: fmt.Errorf("yellowstone: decode block %d: %w", slot, err)}); err != nil {
				return err
			}
			continue
		}
		for _, tx := range txs {
			batch.BlockTime = tx.BlockTime
			batch.Txs = append(batch.Txs, tx)
			batch.Trades = append(batch.Trades, s.cfg.Trades(tx)...)
		}
		if err := s.sink.Slot(ctx, batch); err != nil {
			return fmt.Errorf("yellowstone: sink, slot %d: %w", slot, err)
		}
		s.lastDone = slot
		s.count(func(st *Stats) {
			st.SlotsFilled++
			st.Trades += uint64(len(batch.Trades))
			st.LastSlot = max(st.LastSlot, slot)
		})
	}
	return nil
}

func (s *Source) gap(ctx context.Context, g Gap) error {
	if err := s.sink.Gap(ctx, g); err != nil {
		return fmt.Errorf("yellowstone: sink, gap %d-%d: %w", g.FromSlot, g.ToSlot, err)
	}
	s.lastDone = g.ToSlot
	s.count(func(st *Stats) { st.GapsReported++ })
	s.log.Warn("yellowstone: gap reported", "from", g.FromSlot, "to", g.ToSlot, "err", g.Err)
	return nil
}
