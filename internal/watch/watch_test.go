package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"
)

type versions map[string]int64

func (v versions) Versions(context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	for k, n := range v {
		out[k] = n
	}
	return out, nil
}

func TestPollReloadsChangedTopicsOnly(t *testing.T) {
	v := versions{"keys": 1, "registry": 1}
	p := NewPoller(v, time.Second, slog.New(slog.DiscardHandler))
	calls := map[string]int{}
	fail := false
	observed := map[string]int{}
	p.Observe(func(topic string, err error) {
		observed[topic+" "+map[bool]string{true: "ok", false: "error"}[err == nil]]++
	})
	p.On("keys", func(context.Context) error { calls["keys"]++; return nil })
	p.On("registry", func(context.Context) error {
		calls["registry"]++
		if fail {
			return errors.New("bad data")
		}
		return nil
	})
	if err := p.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.Poll(context.Background())
	if calls["keys"] != 1 || calls["registry"] != 1 {
		t.Fatalf("after sync+idle poll: %v", calls)
	}
	v["keys"] = 2
	p.Poll(context.Background())
	p.Poll(context.Background())
	if calls["keys"] != 2 || calls["registry"] != 1 {
		t.Fatalf("after keys change: %v", calls)
	}
	// A failed reload is retried on the next poll until it succeeds.
	v["registry"] = 5
	fail = true
	p.Poll(context.Background())
	p.Poll(context.Background())
	fail = false
	p.Poll(context.Background())
	p.Poll(context.Background())
	if calls["registry"] != 4 {
		t.Fatalf("registry reloads %d; want 1 + 2 failed + 1 good", calls["registry"])
	}
	// The observer sees every reload a change triggered (not Sync's).
	if want := map[string]int{"keys ok": 1, "registry error": 2, "registry ok": 1}; fmt.Sprint(observed) != fmt.Sprint(want) {
		t.Fatalf("observed reloads %v; want %v", observed, want)
	}
}

func TestKickPollsBeforeTheInterval(t *testing.T) {
	v := &lockedVersions{v: versions{"keys": 1}}
	p := NewPoller(v, time.Hour, slog.New(slog.DiscardHandler))
	reloaded := make(chan struct{}, 1)
	p.On("keys", func(context.Context) error {
		select {
		case reloaded <- struct{}{}:
		default:
		}
		return nil
	})
	if err := p.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-reloaded // Sync's
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	v.set("keys", 2)
	p.Kick()
	p.Kick() // a second kick while one is pending is absorbed
	select {
	case <-reloaded:
	case <-time.After(30 * time.Second):
		t.Fatal("Kick did not make the poller reload before its (hour-long) interval")
	}
	cancel()
	<-done
}

type lockedVersions struct {
	mu sync.Mutex
	v  versions
}

func (l *lockedVersions) set(k string, n int64) { l.mu.Lock(); l.v[k] = n; l.mu.Unlock() }

func (l *lockedVersions) Versions(ctx context.Context) (map[string]int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v.Versions(ctx)
}
