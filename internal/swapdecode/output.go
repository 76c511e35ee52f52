package swapdecode

// rawLeg is a leg over byte slices of the input, before its strings.
type rawLeg struct {
	venue   *Venue
	pool    []byte
	in, out side
}

// output sets the transaction's strings and legs from the raw ones in
// two allocations: one string holding the signature, the fee payer and
// every pool and mint that is not a common constant (the fields are
// substrings of it), and the legs' slice, sized exactly. (Before: one
// string per field and a growing slice, 7 allocations per transaction
// of the recorded set.) A caller keeping one field keeps the whole
// string alive: under a kilobyte per transaction.
func (d *Decoder) output(tx *Tx, sig, payer []byte) {
	buf := append(d.arena[:0], sig...)
	buf = append(buf, payer...)
	for i := range d.rawLegs {
		l := &d.rawLegs[i]
		for _, k := range [3][]byte{l.pool, l.in.mint, l.out.mint} {
			if commonKey(k) == "" {
				buf = append(buf, k...)
			}
		}
	}
	d.arena = buf
	all := string(buf)
	off := 0
	take := func(k []byte) string {
		if c := commonKey(k); c != "" {
			return c
		}
		s := all[off : off+len(k)]
		off += len(k)
		return s
	}
	tx.Signature = all[:len(sig)]
	tx.FeePayer = all[len(sig) : len(sig)+len(payer)]
	off = len(sig) + len(payer)
	if len(d.rawLegs) == 0 {
		return
	}
	tx.Legs = make([]Leg, len(d.rawLegs))
	for i := range d.rawLegs {
		l := &d.rawLegs[i]
		tx.Legs[i] = Leg{
			Index:       i,
			Program:     l.venue.Program,
			Venue:       l.venue.Name,
			Pool:        take(l.pool),
			InMint:      take(l.in.mint),
			InAmount:    l.in.amount,
			InDecimals:  l.in.dec,
			OutMint:     take(l.out.mint),
			OutAmount:   l.out.amount,
			OutDecimals: l.out.dec,
		}
	}
}

// commonKey returns the constant of a common mint ("" for any other key).
func commonKey(b []byte) string {
	switch string(b) {
	case usdcMint:
		return usdcMint
	case usdtMint:
		return usdtMint
	case WrappedSOL:
		return WrappedSOL
	}
	return ""
}
