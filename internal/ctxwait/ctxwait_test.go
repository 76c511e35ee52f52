package ctxwait

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Nanosecond); err != nil {
		t.Fatalf("elapsed wait: %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Fatalf("zero wait: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// An hour's wait on an ended context returns at once with its error
	// (the test would time out otherwise).
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context: %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context, zero wait: %v", err)
	}
}
