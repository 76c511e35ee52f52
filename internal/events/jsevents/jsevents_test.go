package jsevents_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/events/jsevents"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/natsbus/natstest"
)

func replica(t *testing.T, ctx context.Context, url, prefix string) *jsevents.Log {
	t.Helper()
	b, err := natsbus.Connect(ctx, natsbus.Config{URL: url, Prefix: prefix, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	l, err := jsevents.Open(ctx, b.JetStream(), jsevents.Config{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	return l
}

func ev(topic, key string) events.Event {
	return events.Event{Type: events.TypeTrending, Topic: topic, Key: key, Data: json.RawMessage(`{"synthetic":true}`)}
}

// waitFor blocks until l mirrors id (events arrive through NATS).
func waitFor(t *testing.T, ctx context.Context, l *jsevents.Log, id uint64) {
	t.Helper()
	if id == 0 {
		return
	}
	if err := l.Wait(ctx, id-1); err != nil {
		t.Fatalf("waiting for event %d: %v", id, err)
	}
}

// Two replicas on one stream: appends from either get one sequence, both
// mirrors read it identically, a duplicate key is dropped, and a client
// that was on replica A resumes on replica B with no gap or duplicate.
func TestTwoReplicasShareOneSequence(t *testing.T) {
	srv := natstest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	a := replica(t, ctx, srv.ClientURL(), "evtwo")
	b := replica(t, ctx, srv.ClientURL(), "evtwo")

	var last uint64
	for i := 0; i < 10; i++ {
		l := a
		if i%3 == 0 {
			l = b
		}
		topic := "trending"
		if i%2 == 1 {
			topic = "depeg"
		}
		e, err := l.Append(ctx, ev(topic, ""))
		if err != nil {
			t.Fatal(err)
		}
		if e.ID != last+1 {
			t.Fatalf("append %d: id %d after %d", i, e.ID, last)
		}
		last = e.ID
	}
	if e, err := a.Append(ctx, ev("trending", "same-change")); err != nil || e.ID != 11 {
		t.Fatalf("keyed append: %+v %v", e, err)
	}
	if e, err := b.Append(ctx, ev("trending", "same-change")); err != nil || e.ID != 0 {
		t.Fatalf("the other replica's duplicate: %+v %v", e, err)
	}
	waitFor(t, ctx, a, 11)
	waitFor(t, ctx, b, 11)
	ea, _ := a.Since(ctx, 0, 100)
	eb, _ := b.Since(ctx, 0, 100)
	if len(ea) != 11 || len(eb) != 11 {
		t.Fatalf("mirrors: %d and %d events", len(ea), len(eb))
	}
	for i := range ea {
		if ea[i].ID != uint64(i+1) || ea[i].ID != eb[i].ID || ea[i].Topic != eb[i].Topic || !ea[i].Time.Equal(eb[i].Time) {
			t.Fatalf("event %d differs: %+v vs %+v", i, ea[i], eb[i])
		}
	}

	// A stream client on replica A saw up to 4 on "trending", then
	// reconnects to replica B with Last-Event-ID 4 while more arrive.
	hubB := events.NewHub(b, events.HubOptions{})
	go hubB.Run(ctx)
	sub, err := hubB.Subscribe("key", []string{"trending"})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	out := &collect{flushed: make(chan string, 100)}
	go func() { _ = (&events.Session{Sub: sub, Resume: true, After: 4}).Run(ctx, out) }()
	if _, err := a.Append(ctx, ev("trending", "")); err != nil { // 12, live
		t.Fatal(err)
	}
	var want []string
	for _, e := range append(ea, events.Event{ID: 12, Topic: "trending"}) {
		if e.ID > 4 && e.Topic == "trending" {
			want = append(want, "id: "+itoa(e.ID))
		}
	}
	var got string
	for !strings.Contains(got, "id: 12\n") {
		select {
		case got = <-out.flushed:
		case <-ctx.Done():
			t.Fatalf("stream on B: %s", got)
		}
	}
	var ids []string
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "id: ") {
			ids = append(ids, line)
		}
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("resumed on B\n got %v\nwant %v", ids, want)
	}

	// A third replica started later mirrors the whole retained sequence.
	c := replica(t, ctx, srv.ClientURL(), "evtwo")
	waitFor(t, ctx, c, 12)
	if ec, _ := c.Since(ctx, 0, 100); len(ec) != 12 || ec[11].ID != 12 {
		t.Fatalf("late replica: %d events", len(ec))
	}
}

type collect struct {
	buf     strings.Builder
	flushed chan string
}

func (c *collect) Write(p []byte) error { c.buf.Write(p); return nil }
func (c *collect) Flush() error         { c.flushed <- c.buf.String(); return nil }

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
