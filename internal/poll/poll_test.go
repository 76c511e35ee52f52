package poll

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestUntilHoldsOnceTheConditionDoes(t *testing.T) {
	var n atomic.Int32
	_, err := Until(context.Background(), time.Millisecond, func() bool { return n.Add(1) >= 3 })
	if err != nil || n.Load() != 3 {
		t.Fatalf("err %v after %d checks; want nil after 3", err, n.Load())
	}
}

func TestUntilEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	_, err := Until(ctx, time.Millisecond, func() bool {
		if n.Add(1) == 2 {
			cancel()
		}
		return false
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want context.Canceled", err)
	}
}
