package swapdecode

import "bytes"

// Orca Whirlpool's two-hop swaps (sha256("global:two_hop_swap")[:8] and
// sha256("global:two_hop_swap_v2")[:8]) swap through two whirlpools in
// one invocation: two legs, never one. v1 has whirlpool_one and
// whirlpool_two at accounts 2 and 3 and moves the intermediate token
// through the trader's account (pool one → trader → pool two); v2 has
// them at 0 and 1 and moves it from pool one's vault to pool two's.
const (
	whirlpoolTwoHop   = "\xc3\x60\xed\x6c\x44\xa2\xdb\xe6"
	whirlpoolTwoHopV2 = "\xba\x8f\xd1\x1d\xfe\x02\xc2\x75"
)

// twoHop appends the two legs of a Whirlpool two-hop invocation (flat
// index inv) and reports whether it was one. By position among the
// invocation's transfers: the input mint's transfers before the first
// intermediate one are leg one's input (net of a Token-2022 fee, as
// credited), the first intermediate transfer is leg one's output (as
// debited from pool one), the last intermediate transfer leg two's input
// (as credited to pool two) and the output mint's transfers after it leg
// two's output; so A → B → A routes work too.
func (d *Decoder) twoHop(t *txRaw, inv int, f *flatIx, v *Venue) bool {
	if v.Program != OrcaWhirlpool || f.x.data == nil || len(f.x.data) > maxDataLen {
		return false
	}
	b, ok := b58decode(d.buf, f.x.data)
	d.buf = b
	if !ok || len(b) < 8 {
		return false
	}
	var one, two int
	switch string(b[:8]) {
	case whirlpoolTwoHop:
		one, two = 2, 3
	case whirlpoolTwoHopV2:
		one, two = 0, 1
	default:
		return false
	}
	var moved []*xfer
	for _, k := range d.byInv[d.invLo[inv]:d.invLo[inv+1]] {
		if tr := &d.xfers[k]; tr.amount > 0 && tr.mint != nil {
			moved = append(moved, tr)
		}
	}
	if len(moved) < 3 {
		return true // a two-hop that moved nothing (or too little to read): no leg
	}
	input := moved[0].mint
	firstMid, lastMid := -1, -1
	for k, tr := range moved {
		if !bytes.Equal(tr.mint, input) {
			if firstMid < 0 {
				firstMid = k
			} else if !bytes.Equal(tr.mint, moved[firstMid].mint) {
				break
			}
			lastMid = k
		}
	}
	if firstMid < 0 || lastMid == len(moved)-1 {
		return true
	}
	mid, output := moved[firstMid], moved[len(moved)-1]
	var in1, out2 side
	in1 = side{mint: input, dec: moved[0].decimals}
	for _, tr := range moved[:firstMid] {
		in1.amount += tr.amount - tr.fee
	}
	out2 = side{mint: output.mint, dec: output.decimals}
	for _, tr := range moved[lastMid+1:] {
		if bytes.Equal(tr.mint, output.mint) {
			out2.amount += tr.amount
		}
	}
	last := moved[lastMid]
	out1 := side{mint: mid.mint, amount: mid.amount, dec: mid.decimals}
	in2 := side{mint: mid.mint, amount: last.amount - last.fee, dec: mid.decimals}
	poolOne, err1 := d.account(t, f.x, one)
	poolTwo, err2 := d.account(t, f.x, two)
	if err1 != nil || err2 != nil || poolOne == nil || poolTwo == nil || bytes.Equal(out2.mint, mid.mint) {
		return true
	}
	d.addTraderAcct(moved[0].src)
	d.addTraderAcct(output.dst)
	d.rawLegs = append(d.rawLegs,
		rawLeg{venue: v, pool: poolOne, in: in1, out: out1},
		rawLeg{venue: v, pool: poolTwo, in: in2, out: out2})
	return true
}
