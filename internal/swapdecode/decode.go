package swapdecode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
)

// Decoder decodes transactions, reusing its scratch buffers between
// calls; it is not safe for concurrent use (one per goroutine). The zero
// value is ready.
type Decoder struct {
	p      parser
	t      txRaw
	flat   []flatIx
	stack  []int
	xfers  []xfer
	events []pumpEvent
	trader [][]byte
	tacct  [][]byte // token accounts known to be the trader's
	byInv  []int    // transfer indices grouped by invocation: byInv[invLo[i]:invLo[i+1]]
	invLo  []int
	buf    []byte
	// rawLegs and arena are reused per transaction: the legs are found
	// over byte slices of the input, then their strings (and the
	// signature's and fee payer's) are made in one allocation, the legs
	// in another (output.go).
	rawLegs []rawLeg
	arena   []byte
}

type flatIx struct {
	x      *ix
	prog   []byte
	height int
	venue  int // index into venues, -1 when not a DEX
	dexInv int // innermost enclosing DEX invocation (flat index, self included), -1 none
	parent int // flat index of the invoking instruction, -1 for top-level
}

type xfer struct {
	src, dst, auth, mint []byte
	srcOwner, dstOwner   []byte // from the token balances (nil unknown)
	amount               uint64
	fee                  uint64 // Token-2022 transfer fee withheld at dst (transferCheckedWithFee), <= amount
	decimals             int    // -1 unknown
	inv                  int    // DEX invocation it belongs to, -1 none
	parent               int    // flat index of the instruction that invoked the token program
}

type pumpEvent struct {
	inv         int
	sol, tokens uint64
	buy         bool
}

// DecodeTransaction decodes one getTransaction result (the bare result
// object: slot, blockTime, transaction, meta), encodings json and
// jsonParsed, legacy and v0.
func DecodeTransaction(raw []byte) (Tx, error) {
	var d Decoder
	return d.DecodeTransaction(raw)
}

// DecodeBlock decodes one getBlock result (transactionDetails full) at
// slot; failed transactions come back with Failed set and no legs.
func DecodeBlock(raw []byte, slot int64) ([]Tx, error) {
	var d Decoder
	return d.DecodeBlock(raw, slot)
}

// DecodeTransaction is the package function with d's buffers.
func (d *Decoder) DecodeTransaction(raw []byte) (Tx, error) {
	d.p.s.B, d.p.s.I = raw, 0
	d.p.resetTx()
	t := &d.t
	t.reset()
	if err := d.p.transaction(t); err != nil {
		return Tx{}, err
	}
	if !d.p.s.End() {
		return Tx{}, d.p.fail("trailing data")
	}
	return d.decode(t)
}

// DecodeBlock is the package function with d's buffers.
func (d *Decoder) DecodeBlock(raw []byte, slot int64) ([]Tx, error) {
	d.p.s.B, d.p.s.I = raw, 0
	var out []Tx
	blockTime, err := d.p.block(&d.t, func(t *txRaw) error {
		tx, err := d.decode(t)
		if err != nil {
			return fmt.Errorf("transaction %d: %w", len(out), err)
		}
		out = append(out, tx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !d.p.s.End() {
		return nil, d.p.fail("trailing data")
	}
	for i := range out {
		out[i].Slot, out[i].BlockTime = slot, blockTime
	}
	return out, nil
}

var errRange = fmt.Errorf("%w: index out of range", errSyntax)

// decode turns one parsed transaction into its legs.
func (d *Decoder) decode(t *txRaw) (Tx, error) {
	tx := Tx{Slot: t.slot, BlockTime: t.blockTime, Failed: t.failed}
	if !t.parsedKeys {
		t.keys = append(append(t.keys, t.loadedW...), t.loadedR...)
		for i := range t.signer {
			t.signer[i] = i < t.nSigners
		}
	}
	var payer []byte
	if len(t.keys) > 0 {
		payer = t.keys[0]
	}
	d.rawLegs = d.rawLegs[:0]
	if t.failed {
		d.output(&tx, t.sig, payer)
		return tx, nil
	}
	if err := d.flatten(t); err != nil {
		d.output(&tx, t.sig, payer)
		return tx, err
	}
	if err := d.collect(t); err != nil {
		d.output(&tx, t.sig, payer)
		return tx, err
	}
	d.traders(t)
	tx.Unparsed = d.unparsed()
	d.legs(t)
	d.output(&tx, t.sig, payer)
	return tx, nil
}

// flatten lists every instruction in execution order with its height,
// program, invoking instruction and innermost enclosing DEX invocation.
func (d *Decoder) flatten(t *txRaw) error {
	d.flat = d.flat[:0]
	gi := 0
	for i := range t.top {
		if err := d.push(t, &t.top[i], 1); err != nil {
			return err
		}
		for g := range t.inner {
			if t.inner[g].index != i {
				continue
			}
			gi++
			for j := t.inner[g].lo; j < t.inner[g].hi; j++ {
				x := &d.p.ixs[j]
				h := x.stack
				if h < 2 { // recorded before stackHeight existed: children of the top-level instruction
					h = 2
				}
				if err := d.push(t, x, h); err != nil {
					return err
				}
			}
		}
	}
	if gi != len(t.inner) {
		return fmt.Errorf("%w: inner instructions of a missing top-level instruction", errSyntax)
	}
	// Parent links and DEX attribution from the heights.
	d.stack = d.stack[:0]
	for i := range d.flat {
		f := &d.flat[i]
		for len(d.stack) > 0 && d.flat[d.stack[len(d.stack)-1]].height >= f.height {
			d.stack = d.stack[:len(d.stack)-1]
		}
		f.parent, f.dexInv = -1, -1
		if n := len(d.stack); n > 0 {
			f.parent = d.stack[n-1]
			f.dexInv = d.flat[f.parent].dexInv
		}
		if f.venue >= 0 {
			f.dexInv = i
		}
		d.stack = append(d.stack, i)
	}
	return nil
}

func (d *Decoder) push(t *txRaw, x *ix, h int) error {
	prog := x.prog
	if prog == nil {
		if x.progIdx < 0 || x.progIdx >= len(t.keys) {
			return errRange
		}
		prog = t.keys[x.progIdx]
	}
	v := -1
	if i, ok := venueIndex[string(prog)]; ok {
		v = i
	}
	d.flat = append(d.flat, flatIx{x: x, prog: prog, height: h, venue: v})
	return nil
}

// account returns instruction x's k-th account (nil when absent).
func (d *Decoder) account(t *txRaw, x *ix, k int) ([]byte, error) {
	if x.keyHi > x.keyLo {
		if k >= x.keyHi-x.keyLo {
			return nil, nil
		}
		return d.p.accKeys[x.keyLo+k], nil
	}
	if k >= x.accHi-x.accLo {
		return nil, nil
	}
	i := int(d.p.accs[x.accLo+k])
	if i >= len(t.keys) {
		return nil, errRange
	}
	return t.keys[i], nil
}

func (d *Decoder) nAccounts(x *ix) int {
	if x.keyHi > x.keyLo {
		return x.keyHi - x.keyLo
	}
	return x.accHi - x.accLo
}

// Pump.fun's trade event arrives as an Anchor event self-CPI: the event
// instruction tag (sha256("anchor:event")[:8], little-endian) then
// sha256("event:TradeEvent")[:8], mint, solAmount, tokenAmount, isBuy.
const (
	anchorEventTag = "\xe4\x45\xa5\x2e\x51\xcb\x9a\x1d"
	pumpTradeEvent = "\xbd\xdb\x7f\xd3\x4e\xe6\x61\xee"
)

// collect finds the token transfers and Pump.fun trade events.
func (d *Decoder) collect(t *txRaw) error {
	d.xfers, d.events = d.xfers[:0], d.events[:0]
	for i := range d.flat {
		f := &d.flat[i]
		x := f.x
		switch string(f.prog) {
		case TokenProgram, Token2022Program:
			tr, ok, err := d.transfer(t, x)
			if err != nil {
				return err
			}
			if ok {
				tr.inv, tr.parent = f.dexInv, f.parent
				d.xfers = append(d.xfers, tr)
			}
		case PumpFun:
			if f.parent < 0 || string(d.flat[f.parent].prog) != PumpFun || x.data == nil {
				continue
			}
			b, ok := b58decode(d.buf, x.data)
			d.buf = b
			if !ok || len(b) < 65 || string(b[:8]) != anchorEventTag || string(b[8:16]) != pumpTradeEvent {
				continue
			}
			d.events = append(d.events, pumpEvent{
				inv:    f.parent,
				sol:    binary.LittleEndian.Uint64(b[48:56]),
				tokens: binary.LittleEndian.Uint64(b[56:64]),
				buy:    b[64] != 0,
			})
		}
	}
	// Resolve mints and owners once, and group the transfers by DEX
	// invocation (a counting sort), so the leg pass is linear in the
	// transfers whatever the instruction count.
	d.invLo = append(d.invLo[:0], make([]int, len(d.flat)+1)...)
	for i := range d.xfers {
		tr := &d.xfers[i]
		tr.mint, tr.decimals = mintOf(t, tr)
		tr.srcOwner, tr.dstOwner = ownerOf(t, tr.src), ownerOf(t, tr.dst)
		if tr.inv >= 0 {
			d.invLo[tr.inv+1]++
		}
	}
	for i := 1; i < len(d.invLo); i++ {
		d.invLo[i] += d.invLo[i-1]
	}
	d.byInv = append(d.byInv[:0], make([]int, d.invLo[len(d.flat)])...)
	fill := append(d.stack[:0], d.invLo[:len(d.flat)]...)
	for i := range d.xfers {
		if inv := d.xfers[i].inv; inv >= 0 {
			d.byInv[fill[inv]] = i
			fill[inv]++
		}
	}
	d.stack = fill[:0]
	return nil
}

// transfer reads a Token / Token-2022 transfer, transferChecked or
// (Token-2022's transfer-fee extension) transferCheckedWithFee, whose fee
// the destination's account withholds: it receives amount - fee.
func (d *Decoder) transfer(t *txRaw, x *ix) (xfer, bool, error) {
	tr := xfer{decimals: -1}
	if x.hasParsed {
		switch string(x.ptype) {
		case "transfer", "transferChecked", "transferCheckedWithFee":
		default:
			return tr, false, nil
		}
		tr.src, tr.dst, tr.auth, tr.mint = x.src, x.dst, x.auth, x.mint
		if x.amount != nil {
			v, err := strconv.ParseUint(string(x.amount), 10, 64)
			if err != nil {
				return tr, false, fmt.Errorf("%w: transfer amount %q", errSyntax, x.amount)
			}
			tr.amount = v
		} else {
			tr.amount = x.amountNum
		}
		if string(x.ptype) != "transfer" {
			tr.decimals = x.decimals
		}
		if x.fee != nil {
			v, err := strconv.ParseUint(string(x.fee), 10, 64)
			if err != nil || v > tr.amount {
				return tr, false, fmt.Errorf("%w: transfer fee %q of %d", errSyntax, x.fee, tr.amount)
			}
			tr.fee = v
		}
		return tr, tr.src != nil && tr.dst != nil, nil
	}
	// transfer data is 9 bytes, transferChecked 10, transferCheckedWithFee
	// 19 (at most 26 base58 characters)
	if len(x.data) == 0 || len(x.data) > 26 {
		return tr, false, nil
	}
	b, ok := b58decode(d.buf, x.data)
	d.buf = b
	if !ok || len(b) < 9 {
		return tr, false, nil
	}
	switch {
	case b[0] == 3 && len(b) == 9: // Transfer: source, destination, authority
		if ok, err := d.accounts(t, x, &tr.src, &tr.dst, &tr.auth); !ok || err != nil {
			return tr, false, err
		}
		tr.amount = binary.LittleEndian.Uint64(b[1:9])
	case b[0] == 12 && len(b) == 10: // TransferChecked: source, mint, destination, authority
		if ok, err := d.accounts(t, x, &tr.src, &tr.mint, &tr.dst, &tr.auth); !ok || err != nil {
			return tr, false, err
		}
		tr.amount = binary.LittleEndian.Uint64(b[1:9])
		tr.decimals = int(b[9])
	case b[0] == 26 && len(b) == 19 && b[1] == 1:
		// TransferFeeExtension (26), TransferCheckedWithFee (1): amount,
		// decimals, fee; accounts as transferChecked's. Tag 26 exists in
		// Token-2022 only.
		if ok, err := d.accounts(t, x, &tr.src, &tr.mint, &tr.dst, &tr.auth); !ok || err != nil {
			return tr, false, err
		}
		tr.amount = binary.LittleEndian.Uint64(b[2:10])
		tr.decimals = int(b[10])
		tr.fee = binary.LittleEndian.Uint64(b[11:19])
		if tr.fee > tr.amount {
			return tr, false, nil // not a transfer the token program would run
		}
	default:
		return tr, false, nil
	}
	return tr, true, nil
}

// accounts reads x's first len(dst) accounts into dst in order; false when
// x has fewer.
func (d *Decoder) accounts(t *txRaw, x *ix, dst ...*[]byte) (bool, error) {
	if d.nAccounts(x) < len(dst) {
		return false, nil
	}
	for k, p := range dst {
		a, err := d.account(t, x, k)
		if err != nil {
			return false, err
		}
		*p = a
	}
	return true, nil
}

// balance finds the token balance entry of account key.
func balance(t *txRaw, key []byte) *tokenBal {
	if key == nil {
		return nil
	}
	for i := range t.bals {
		b := &t.bals[i]
		if b.idx >= 0 && b.idx < len(t.keys) && bytes.Equal(t.keys[b.idx], key) {
			return b
		}
	}
	return nil
}

// mintOf returns the mint and decimals a transfer moves.
func mintOf(t *txRaw, tr *xfer) ([]byte, int) {
	mint, dec := tr.mint, tr.decimals
	if mint == nil || dec < 0 {
		b := balance(t, tr.src)
		if b == nil {
			b = balance(t, tr.dst)
		}
		if b != nil {
			if mint == nil {
				mint = b.mint
			}
			if dec < 0 && bytes.Equal(mint, b.mint) {
				dec = b.decimals
			}
		}
	}
	if mint != nil && dec < 0 {
		for i := range t.bals {
			if bytes.Equal(t.bals[i].mint, mint) {
				dec = t.bals[i].decimals
				break
			}
		}
	}
	return mint, dec
}

func ownerOf(t *txRaw, key []byte) []byte {
	if b := balance(t, key); b != nil {
		return b.owner
	}
	return nil
}

func (d *Decoder) isTrader(k []byte) bool {
	for _, t := range d.trader {
		if bytes.Equal(t, k) {
			return true
		}
	}
	return false
}

func (d *Decoder) addTrader(k []byte) {
	if k != nil && !d.isTrader(k) {
		d.trader = append(d.trader, k)
	}
}

// traders is the set of authorities acting for the trader: the
// transaction's signers, the authorities of the transfers outside any DEX
// invocation (an aggregator's program authority moving the trader's
// tokens between hops), and the owners of accounts a signer paid into
// outside a DEX invocation (the aggregator's authority receiving the
// trader's input). Owners of accounts an aggregator pays fees into are
// not traders.
func (d *Decoder) traders(t *txRaw) {
	d.trader, d.tacct = d.trader[:0], d.tacct[:0]
	nSigners := 0
	for i, k := range t.keys {
		if i < len(t.signer) && t.signer[i] {
			d.addTrader(k)
			nSigners++
		}
	}
	for i := range d.xfers {
		tr := &d.xfers[i]
		if tr.inv >= 0 {
			continue
		}
		if indexOf(d.trader[:nSigners], tr.auth) {
			d.addTrader(tr.dstOwner)
		}
		d.addTrader(tr.auth)
	}
}

func indexOf(set [][]byte, k []byte) bool {
	for _, s := range set {
		if bytes.Equal(s, k) {
			return true
		}
	}
	return false
}

// unparsed lists the programs that invoked token transfers outside any
// DEX invocation and are neither routers nor token plumbing.
func (d *Decoder) unparsed() []string {
	var out []string
	for i := range d.xfers {
		tr := &d.xfers[i]
		if tr.inv >= 0 || tr.parent < 0 || tr.amount == 0 {
			continue
		}
		prog := d.flat[tr.parent].prog
		if routers[string(prog)] {
			continue
		}
		dup := false
		for _, u := range out {
			if u == string(prog) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, string(prog))
		}
	}
	return out
}

// side is one direction of a (possibly partial) leg.
type side struct {
	mint   []byte
	amount uint64
	dec    int
}

// legs builds one leg per DEX invocation that swaps. Consecutive
// invocations of one program on one pool under the same parent that each
// move tokens one way (OpenBook v1: new order, then settle funds) merge.
func (d *Decoder) legs(t *txRaw) {
	var pending struct {
		ok      bool
		venue   int
		pool    []byte
		parent  int
		in, out side
	}
	for i := range d.flat {
		f := &d.flat[i]
		if f.venue < 0 || f.dexInv != i {
			continue
		}
		// a DEX invoked inside another DEX invocation of the same program
		// (self-CPI events) is not a new invocation
		if f.parent >= 0 && d.flat[f.parent].venue == f.venue {
			continue
		}
		v := &venues[f.venue]
		if d.twoHop(t, i, f, v) {
			pending.ok = false
			continue
		}
		pool := d.pool(t, f, v)
		var in, out side
		if v.event {
			in, out = d.eventSides(t, i, f)
		} else {
			in, out = d.transferSides(i)
		}
		if in.amount == 0 && out.amount == 0 {
			continue
		}
		if in.amount == 0 || out.amount == 0 {
			if pending.ok && pending.venue == f.venue && pending.parent == f.parent && bytes.Equal(pending.pool, pool) {
				if in.amount == 0 && pending.out.amount == 0 {
					in = pending.in
				} else if out.amount == 0 && pending.in.amount == 0 {
					out = pending.out
				}
			}
			if in.amount == 0 || out.amount == 0 {
				pending.ok, pending.venue, pending.pool, pending.parent = true, f.venue, pool, f.parent
				pending.in, pending.out = in, out
				continue
			}
		}
		pending.ok = false
		if bytes.Equal(in.mint, out.mint) {
			continue
		}
		d.rawLegs = append(d.rawLegs, rawLeg{venue: v, pool: pool, in: in, out: out})
	}
}

func (d *Decoder) pool(t *txRaw, f *flatIx, v *Venue) []byte {
	idx := v.poolIdx
	if v.poolFor != nil {
		var disc []byte
		if f.x.data != nil && len(f.x.data) <= maxDataLen {
			b, ok := b58decode(d.buf, f.x.data)
			d.buf = b
			if ok {
				disc = b
			}
		}
		idx = v.poolFor(disc)
	}
	if idx < 0 {
		return nil
	}
	k, err := d.account(t, f.x, idx)
	if err != nil {
		return nil
	}
	return k
}

// eventSides reads a Pump.fun invocation's trade event: SOL and the token
// (the mint is the instruction's third account, as in buy and sell).
func (d *Decoder) eventSides(t *txRaw, inv int, f *flatIx) (in, out side) {
	for i := range d.events {
		e := &d.events[i]
		if e.inv != inv {
			continue
		}
		mint, _ := d.account(t, f.x, 2)
		if mint == nil {
			return
		}
		dec := -1
		for j := range t.bals {
			if bytes.Equal(t.bals[j].mint, mint) {
				dec = t.bals[j].decimals
				break
			}
		}
		sol := side{mint: []byte(WrappedSOL), amount: e.sol, dec: 9}
		tok := side{mint: mint, amount: e.tokens, dec: dec}
		if e.buy {
			return sol, tok
		}
		return tok, sol
	}
	return
}

// transferSides splits an invocation's transfers into what the trader
// paid in and what the pool paid out to the trader. A transfer is the
// trader's when its authority acts for the trader (traders) or its source
// is a trader account (owned by a trader, or used by an earlier leg);
// the pool's when it pays into a trader account. Without either evidence
// the first transfer's authority is taken as the trader's when several
// authorities moved tokens, and an invocation whose transfers all have
// one authority of unknown role yields nothing. Pool transfers to
// accounts that are not the trader's (referrer and protocol fees) are
// not output when some output reaches the trader.
func (d *Decoder) transferSides(inv int) (in, out side) {
	var traderAuth, poolAuth, firstAuth []byte
	oneAuth := true
	mine := d.byInv[d.invLo[inv]:d.invLo[inv+1]]
	for _, k := range mine {
		tr := &d.xfers[k]
		if tr.amount == 0 {
			continue
		}
		if firstAuth == nil {
			firstAuth = tr.auth
		} else if !bytes.Equal(firstAuth, tr.auth) {
			oneAuth = false
		}
		if traderAuth == nil && (d.isTrader(tr.auth) || d.isTraderAcct(tr.src, tr.srcOwner)) {
			traderAuth = tr.auth
		}
		if poolAuth == nil && d.isTraderAcct(tr.dst, tr.dstOwner) && !d.isTrader(tr.auth) && !d.isTraderAcct(tr.src, tr.srcOwner) {
			poolAuth = tr.auth
		}
	}
	if firstAuth == nil {
		return
	}
	if traderAuth == nil && poolAuth == nil {
		if oneAuth {
			return
		}
		traderAuth = firstAuth
	}
	isIn := func(tr *xfer) bool {
		if traderAuth != nil {
			return bytes.Equal(tr.auth, traderAuth)
		}
		return !bytes.Equal(tr.auth, poolAuth)
	}
	toTrader := false
	for _, k := range mine {
		tr := &d.xfers[k]
		if tr.amount > 0 && !isIn(tr) && d.isTraderAcct(tr.dst, tr.dstOwner) {
			toTrader = true
			break
		}
	}
	for _, k := range mine {
		tr := &d.xfers[k]
		if tr.amount == 0 {
			continue
		}
		mint, dec := tr.mint, tr.decimals
		if mint == nil {
			continue
		}
		if isIn(tr) {
			if in.mint == nil {
				in = side{mint: mint, dec: dec}
			}
			if bytes.Equal(in.mint, mint) {
				// what the pool's vault is credited: a Token-2022
				// transfer fee stays withheld in it, not the pool's
				in.amount += tr.amount - tr.fee
				d.addTraderAcct(tr.src)
			}
			continue
		}
		if toTrader && !d.isTraderAcct(tr.dst, tr.dstOwner) {
			continue
		}
		if out.mint == nil && !bytes.Equal(mint, in.mint) {
			out = side{mint: mint, dec: dec}
		}
		if bytes.Equal(out.mint, mint) {
			out.amount += tr.amount
			d.addTraderAcct(tr.dst)
		}
	}
	// An output in the input's mint (seen before the input) is not one.
	if out.mint != nil && bytes.Equal(out.mint, in.mint) {
		out = side{}
	}
	return
}

// isTraderAcct reports whether token account k (owned by owner, nil
// unknown) is the trader's: owned by a trader authority, or a trader side
// of an earlier leg.
func (d *Decoder) isTraderAcct(k, owner []byte) bool {
	if k == nil {
		return false
	}
	return indexOf(d.tacct, k) || owner != nil && d.isTrader(owner)
}

func (d *Decoder) addTraderAcct(k []byte) {
	if k != nil && !indexOf(d.tacct, k) {
		d.tacct = append(d.tacct, k)
	}
}
