package analytics

// walletMinutes maps wallet hashes to a minute: an open-addressing table
// with linear probing and backward-shift deletion (no tombstones). Hash 0
// is reserved for empty slots; walletHash never returns it.
type walletMinutes struct {
	slots []walletSlot // len is a power of two, or 0
	n     int
}

type walletSlot struct {
	h uint64
	m int64
}

const walletMinutesMinSize = 16

func (t *walletMinutes) len() int { return t.n }

// get returns the minute stored for h.
func (t *walletMinutes) get(h uint64) (int64, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.h == h {
			return s.m, true
		}
		if s.h == 0 {
			return 0, false
		}
	}
}

// setIfLater stores m for h when h is absent or holds an earlier minute;
// it returns the previous minute and whether there was one.
func (t *walletMinutes) setIfLater(h uint64, m int64) (prev int64, had bool) {
	if len(t.slots) == 0 {
		t.slots = make([]walletSlot, walletMinutesMinSize)
	}
	mask := len(t.slots) - 1
	i := int(h) & mask
	for ; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.h == h {
			if m > s.m {
				prev, s.m = s.m, m
			} else {
				prev = s.m
			}
			return prev, true
		}
		if s.h == 0 {
			break
		}
	}
	t.slots[i] = walletSlot{h: h, m: m}
	t.n++
	if t.n*8 > len(t.slots)*5 {
		t.resize(len(t.slots) * 2)
	}
	return 0, false
}

// del removes h, shifting later entries of its probe run back.
func (t *walletMinutes) del(h uint64) {
	if t.n == 0 {
		return
	}
	mask := len(t.slots) - 1
	i := int(h) & mask
	for ; t.slots[i].h != h; i = (i + 1) & mask {
		if t.slots[i].h == 0 {
			return
		}
	}
	t.n--
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s.h == 0 {
			break
		}
		// s may move into the hole at i unless its home lies cyclically
		// in (i, j].
		home := int(s.h) & mask
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = walletSlot{}
	if len(t.slots) > 4*walletMinutesMinSize && t.n*8 < len(t.slots) {
		t.resize(len(t.slots) / 4)
	}
}

// reset empties the table, releasing large storage.
func (t *walletMinutes) reset() {
	if len(t.slots) > 4*walletMinutesMinSize {
		t.slots = nil
	} else {
		clear(t.slots)
	}
	t.n = 0
}

func (t *walletMinutes) resize(size int) {
	old := t.slots
	t.slots = make([]walletSlot, size)
	mask := size - 1
	for _, s := range old {
		if s.h == 0 {
			continue
		}
		i := int(s.h) & mask
		for t.slots[i].h != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
