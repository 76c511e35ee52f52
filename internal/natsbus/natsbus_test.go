package natsbus_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/natsbus/natstest"
)

func TestChangeEventsReachOtherConnectionsOfTheSamePrefixOnly(t *testing.T) {
	srv := natstest.Start(t)
	ctx := context.Background()
	connect := func(prefix string) *natsbus.Bus {
		b, err := natsbus.Connect(ctx, natsbus.Config{URL: srv.ClientURL(), Prefix: prefix, Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	replica, other := connect("run1"), connect("run2")
	defer replica.Close(ctx)
	defer other.Close(ctx)
	got := make(chan string, 8)
	unsub, err := replica.SubscribeChanges(func(topic string) { got <- topic })
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()
	otherGot := make(chan string, 8)
	if _, err := other.SubscribeChanges(func(topic string) { otherGot <- topic }); err != nil {
		t.Fatal(err)
	}
	if err := replica.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	// A CLI process: publishes after its commit, flushes at Close.
	cli := connect("run1")
	cli.PublishChanges([]string{"keys", "lists"})
	if err := cli.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"keys", "lists"} {
		select {
		case topic := <-got:
			if topic != want {
				t.Fatalf("topic %q; want %q", topic, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s change event", want)
		}
	}
	// Another prefix (deployment, test run) hears nothing; a round trip on
	// its own connection orders the check after any stray delivery.
	other.PublishChanges([]string{"marker"})
	select {
	case topic := <-otherGot:
		if topic != "marker" {
			t.Fatalf("prefix run2 received %q from run1", topic)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no marker event")
	}
}

func TestPrefixValidation(t *testing.T) {
	for _, p := range []string{"", "a.b", "a*", "with space", "x>"} {
		if natsbus.ValidPrefix(p) == nil {
			t.Errorf("prefix %q accepted", p)
		}
	}
	for _, p := range []string{"assetd", "test_run-42"} {
		if err := natsbus.ValidPrefix(p); err != nil {
			t.Errorf("prefix %q: %v", p, err)
		}
	}
}
