package chainsource

import (
	"context"
	"errors"
)

// TipNotifier tells the follower of new slots as the node processes them
// (solanaws.Client: a websocket's slotSubscribe). It is a hint only: it
// shortens the pause between steps, and every step still reads the head
// with getSlot at the source's commitment, so the cursor and the gaps do
// not depend on it.
type TipNotifier interface {
	// WaitSlot returns a slot newer than after once one is known, ctx's
	// error when ctx ends first, or another error as soon as the
	// notifier is not connected (the follower then polls).
	WaitSlot(ctx context.Context, after int64) (int64, error)
	// Connected reports whether notifications arrive now.
	Connected() bool
}

// Websocket states in Status (omitted without a TipNotifier).
const (
	WebsocketConnected    = "connected"
	WebsocketDisconnected = "disconnected"
)

// pause waits before the next step. Without a connected Tip (or after a
// failed step) it sleeps Poll. With one, it waits for a slot newer than
// both the head and the last slot it woke for, at most TipPoll; should
// the notifier disconnect meanwhile, it sleeps Poll instead (getSlot
// polling is the fallback whenever the socket is down).
func (s *Source) pause(ctx context.Context, failed bool) error {
	tip := s.cfg.Tip
	if tip == nil || failed || !tip.Connected() {
		return s.cfg.Sleep(ctx, s.cfg.Poll)
	}
	s.mu.Lock()
	// The notifications are of processed slots, a slot or two ahead of
	// the confirmed head: waiting past the last one woken for gives one
	// step per new slot, not a step per pause.
	after := max(s.tipSeen, s.stats.HeadSlot)
	s.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, s.cfg.TipPoll)
	defer cancel()
	slot, err := tip.WaitSlot(wctx, after)
	switch {
	case err == nil:
		s.mu.Lock()
		s.tipSeen = max(s.tipSeen, slot)
		s.mu.Unlock()
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return nil // no new slot within TipPoll: step anyway
	default:
		return s.cfg.Sleep(ctx, s.cfg.Poll) // disconnected: poll
	}
}

// websocketState is Status's view of the Tip ("" without one).
func (s *Source) websocketState() string {
	switch {
	case s.cfg.Tip == nil:
		return ""
	case s.cfg.Tip.Connected():
		return WebsocketConnected
	default:
		return WebsocketDisconnected
	}
}
