package analytics

import (
	"math/rand/v2"
	"testing"
)

func TestWalletMinutesMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var tab walletMinutes
	model := map[uint64]int64{}
	// Few distinct keys with clustered low bits make long probe runs and
	// wrap-around deletions.
	key := func() uint64 { return uint64(rng.IntN(300))<<3 | 1 }
	for step := range 200_000 {
		switch op := rng.IntN(10); {
		case op < 6:
			h, m := key(), int64(rng.IntN(100))
			prev, had := tab.setIfLater(h, m)
			mp, mhad := model[h]
			if had != mhad || had && prev != mp {
				t.Fatalf("step %d: setIfLater(%d) = %d, %v; model %d, %v", step, h, prev, had, mp, mhad)
			}
			if !mhad || m > mp {
				model[h] = m
			}
		case op < 9:
			h := key()
			tab.del(h)
			delete(model, h)
		default:
			if rng.IntN(500) == 0 {
				tab.reset()
				clear(model)
			}
		}
		if tab.len() != len(model) {
			t.Fatalf("step %d: len %d, model %d", step, tab.len(), len(model))
		}
		if step%1000 == 0 {
			for h := uint64(1); h < 300<<3; h += 8 {
				m, ok := tab.get(h)
				mm, mok := model[h]
				if ok != mok || m != mm {
					t.Fatalf("step %d: get(%d) = %d, %v; model %d, %v", step, h, m, ok, mm, mok)
				}
			}
		}
	}
}
