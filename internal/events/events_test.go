package events

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestMemorySinceAndExpiry(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(3, func() time.Time { return time.Unix(100, 0) })
	if got, err := m.Since(ctx, 0, 10); err != nil || len(got) != 0 {
		t.Fatalf("empty log: %v %v", got, err)
	}
	for i := 0; i < 5; i++ {
		e, err := m.Append(ctx, Event{Type: TypePrice, Topic: "price:x"})
		if err != nil || e.ID != uint64(i+1) {
			t.Fatalf("append %d: id %d err %v", i, e.ID, err)
		}
	}
	got, err := m.Since(ctx, 2, 10)
	if err != nil || len(got) != 3 || got[0].ID != 3 || got[2].ID != 5 {
		t.Fatalf("since 2: %+v %v", got, err)
	}
	if got, _ := m.Since(ctx, 3, 1); len(got) != 1 || got[0].ID != 4 {
		t.Fatalf("limit: %+v", got)
	}
	if _, err := m.Since(ctx, 1, 10); !errors.Is(err, ErrExpired) {
		t.Fatalf("since 1 after dropping 1,2: err %v", err)
	}
	if got, err := m.Since(ctx, 5, 10); err != nil || len(got) != 0 {
		t.Fatalf("caught up: %v %v", got, err)
	}
	if _, err := m.Append(ctx, Event{}); err == nil {
		t.Fatal("append without type accepted")
	}
}

func TestMemoryWait(t *testing.T) {
	m := NewMemory(4, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Wait(ctx, 0) }()
	if _, err := m.Append(ctx, Event{Type: TypeTrending, Topic: "trending"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("wait: %v", err)
	}
	go func() { done <- m.Wait(ctx, 1) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("wait after cancel: %v", err)
	}
}
