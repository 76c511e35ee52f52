package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/webhooks"
)

// Run delivers an appended event without further help (woken by the log),
// and returns nil when its context ends.
func TestRunDeliversAndStops(t *testing.T) {
	w := newWorld(t)
	w.create(w.rc.srv.URL+"/hook", webhooks.EventAdvisory)
	d := w.dispatcher(w.store, w.log, "r1", true)
	pass(t, d) // the cursor starts at the present
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	w.appendEvents(1)
	poll.For(t, time.Minute, "the event delivered by Run", func() bool { return len(w.rc.requests()) == 1 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}
