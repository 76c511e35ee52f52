package ingest

import (
	"errors"
	"testing"
)

// CI met "rebuild: %!w(<nil>)" on a busy machine: the candle load of an
// empty store had reported the mark and finished before Rebuild looked,
// and select picked the finished case. With both channels closed, select
// picks at random, so 200 rounds take that path with certainty.
func TestAwaitMark(t *testing.T) {
	closed := func() chan struct{} { c := make(chan struct{}); close(c); return c }
	boom := errors.New("boom")
	for i := range 200 {
		var none error
		if err := awaitMark(closed(), closed(), &none); err != nil {
			t.Fatalf("round %d: mark reported and load done: %v", i, err)
		}
	}
	if err := awaitMark(make(chan struct{}), closed(), &boom); !errors.Is(err, boom) {
		t.Errorf("load failed before the mark: %v, want boom", err)
	}
	var none error
	if err := awaitMark(make(chan struct{}), closed(), &none); err == nil {
		t.Error("load finished without a mark: want an error")
	}
}
