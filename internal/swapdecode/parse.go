package swapdecode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/assetd/assetd/internal/jsonscan"
)

// The parser reads only what the decoder needs from a getTransaction or
// getBlock result and skips the rest without building it: the recorded
// transactions average ~18 KB of JSON, most of it log messages and parsed
// instructions the decoder never looks at, so a reflection decoder spends
// its time on bytes that do not matter. Values the decoder keeps (account
// keys, amounts, instruction data) are slices of the input; nothing is
// copied until a leg is built.

var errSyntax = errors.New("swapdecode: malformed JSON")

// ix is one instruction, top-level or inner, in either encoding.
type ix struct {
	progIdx int    // json encoding: index into the account keys; -1 when prog is set
	prog    []byte // jsonParsed: the program id
	accLo   int    // accounts: p.accs[accLo:accHi] (key indices) ...
	accHi   int
	keyLo   int // ... or p.accKeys[keyLo:keyHi] (jsonParsed keys)
	keyHi   int
	data    []byte // base58 instruction data, raw form
	stack   int    // stackHeight; 0 when absent or null
	top     int    // the top-level instruction it belongs to
	// parsed form (jsonParsed): type and the info fields the decoder reads
	ptype                        []byte
	src, dst, auth, mint, amount []byte
	fee                          []byte // transferCheckedWithFee's feeAmount.amount
	decimals                     int
	hasParsed                    bool
	amountNum                    uint64 // lamports / numeric amount
}

// tokenBal is one pre/post token balance entry.
type tokenBal struct {
	idx      int
	mint     []byte
	owner    []byte
	decimals int
}

// txRaw is one transaction as read from the JSON, before decoding.
type txRaw struct {
	slot, blockTime int64
	sig             []byte
	failed          bool
	keys            [][]byte // static keys, then loaded writable, then loaded readonly
	signer          []bool   // parallel to keys when jsonParsed says so
	nSigners        int      // header.numRequiredSignatures (json encoding)
	loadedW         [][]byte
	loadedR         [][]byte
	top             []ix
	inner           []innerGroup
	bals            []tokenBal
	parsedKeys      bool // account keys came as objects (jsonParsed)
}

type innerGroup struct {
	index  int
	lo, hi int // p.ixs[lo:hi]
}

// parser holds the scanner and reusable buffers.
type parser struct {
	s       jsonscan.Scanner
	accs    []int32
	accKeys [][]byte
	ixs     []ix // inner instructions of the transaction being read
}

// ws skips white space, eight spaces at a time through the indentation
// of pretty-printed recordings.
func (p *parser) ws() {
	b, i := p.s.B, p.s.I
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x2020202020202020 {
		i += 8
	}
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
			if i+8 <= len(b) && b[i] == ' ' {
				for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x2020202020202020 {
					i += 8
				}
			}
			continue
		}
		break
	}
	p.s.I = i
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errSyntax, what, p.s.I)
}

// skip skips one JSON value of any kind (no validation beyond structure).
func (p *parser) skip() error {
	s := &p.s
	switch c := s.Peek(); c {
	case '"':
		s.I++
		return p.skipStringRest()
	case '{', '[':
		depth := 0
		for s.I < len(s.B) {
			switch s.B[s.I] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.I++
					return nil
				}
				if depth < 0 {
					return p.fail("unbalanced")
				}
			case '"':
				s.I++
				if err := p.skipStringRest(); err != nil {
					return err
				}
				continue
			}
			s.I++
		}
		return p.fail("unterminated value")
	case 't', 'f':
		if _, ok := s.Bool(); !ok {
			return p.fail("literal")
		}
		return nil
	case 'n':
		if !s.Null() {
			return p.fail("literal")
		}
		return nil
	default:
		if _, _, ok := s.Number(); !ok {
			return p.fail("value")
		}
		return nil
	}
}

func (p *parser) skipStringRest() error {
	s := &p.s
	for {
		j := bytes.IndexByte(s.B[s.I:], '"')
		if j < 0 {
			return p.fail("unterminated string")
		}
		end := s.I + j
		bs := 0
		for k := end - 1; k >= s.I && s.B[k] == '\\'; k-- {
			bs++
		}
		s.I = end + 1
		if bs%2 == 0 {
			return nil
		}
	}
}

// str reads a string without escapes (member names, base58 keys and
// data, decimal amounts: none of them ever has one); a string with an
// escape is an error, not misread.
func (p *parser) str() ([]byte, error) {
	p.ws()
	s := &p.s
	if !s.Byte('"') {
		return nil, p.fail("string")
	}
	j := bytes.IndexByte(s.B[s.I:], '"')
	if j < 0 {
		return nil, p.fail("unterminated string")
	}
	b := s.B[s.I : s.I+j]
	if bytes.IndexByte(b, '\\') >= 0 {
		return nil, p.fail("escaped string")
	}
	s.I += j + 1
	return b, nil
}

// strOrNull reads a string or null (nil).
func (p *parser) strOrNull() ([]byte, error) {
	if p.s.Null() {
		return nil, nil
	}
	return p.str()
}

func (p *parser) int() (int64, error) {
	if p.s.Null() {
		return 0, nil
	}
	v, ok := p.s.Int(64)
	if !ok {
		return 0, p.fail("integer")
	}
	return v, nil
}

// uintStr reads an unsigned integer given as a JSON string or number.
func (p *parser) uintStr() (uint64, error) {
	if p.s.Peek() == '"' {
		b, err := p.str()
		if err != nil {
			return 0, err
		}
		v, err := strconv.ParseUint(string(b), 10, 64)
		if err != nil {
			return 0, p.fail("amount")
		}
		return v, nil
	}
	tok, frac, ok := p.s.Number()
	if !ok || frac {
		return 0, p.fail("amount")
	}
	v, err := strconv.ParseUint(string(tok), 10, 64)
	if err != nil {
		return 0, p.fail("amount")
	}
	return v, nil
}

// object iterates the members of an object, calling member for each key
// with the scanner positioned at the value; member must consume it.
func (p *parser) object(member func(key []byte) error) error {
	s := &p.s
	if !s.Consume('{') {
		return p.fail("object")
	}
	if s.Consume('}') {
		return nil
	}
	for {
		key, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if !s.Byte(':') {
			return p.fail("colon")
		}
		p.ws()
		if err := member(key); err != nil {
			return err
		}
		p.ws()
		if s.Byte(',') {
			continue
		}
		if s.Consume('}') {
			return nil
		}
		return p.fail("object member")
	}
}

// array iterates the elements of an array (null is an empty array).
func (p *parser) array(elem func() error) error {
	s := &p.s
	if s.Null() {
		return nil
	}
	if !s.Consume('[') {
		return p.fail("array")
	}
	if s.Consume(']') {
		return nil
	}
	for {
		p.ws()
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		if s.Byte(',') {
			continue
		}
		if s.Consume(']') {
			return nil
		}
		return p.fail("array element")
	}
}

func (p *parser) keyList(dst *[][]byte) error {
	return p.array(func() error {
		k, err := p.str()
		if err != nil {
			return err
		}
		*dst = append(*dst, k)
		return nil
	})
}

// transaction reads a getTransaction result or one getBlock transaction
// element into t.
func (p *parser) transaction(t *txRaw) error {
	sawTx := false
	err := p.object(func(key []byte) error {
		switch string(key) {
		case "slot":
			v, err := p.int()
			t.slot = v
			return err
		case "blockTime":
			v, err := p.int()
			t.blockTime = v
			return err
		case "meta":
			if p.s.Null() {
				return nil
			}
			return p.meta(t)
		case "transaction":
			sawTx = true
			if p.s.Peek() == '[' {
				return fmt.Errorf("swapdecode: binary transaction encodings (base58/base64) are not supported; use json or jsonParsed")
			}
			return p.txBody(t)
		default:
			return p.skip()
		}
	})
	if err != nil {
		return err
	}
	if !sawTx {
		return fmt.Errorf("swapdecode: no transaction in result")
	}
	return nil
}

func (p *parser) txBody(t *txRaw) error {
	return p.object(func(key []byte) error {
		switch string(key) {
		case "signatures":
			first := true
			return p.array(func() error {
				b, err := p.str()
				if first {
					t.sig, first = b, false
				}
				return err
			})
		case "message":
			return p.message(t)
		default:
			return p.skip()
		}
	})
}

func (p *parser) message(t *txRaw) error {
	return p.object(func(key []byte) error {
		switch string(key) {
		case "accountKeys":
			return p.array(func() error {
				if p.s.Peek() == '"' {
					k, err := p.str()
					t.keys = append(t.keys, k)
					t.signer = append(t.signer, false)
					return err
				}
				t.parsedKeys = true
				var k []byte
				signer := false
				err := p.object(func(key []byte) error {
					switch string(key) {
					case "pubkey":
						var err error
						k, err = p.str()
						return err
					case "signer":
						v, ok := p.s.Bool()
						if !ok {
							return p.fail("signer")
						}
						signer = v
						return nil
					default:
						return p.skip()
					}
				})
				t.keys = append(t.keys, k)
				t.signer = append(t.signer, signer)
				return err
			})
		case "header":
			return p.object(func(key []byte) error {
				if string(key) == "numRequiredSignatures" {
					v, err := p.int()
					t.nSigners = int(v)
					return err
				}
				return p.skip()
			})
		case "instructions":
			return p.array(func() error {
				t.top = append(t.top, ix{})
				x := &t.top[len(t.top)-1]
				if err := p.instruction(x); err != nil {
					return err
				}
				x.top, x.stack = len(t.top)-1, 1
				return nil
			})
		default:
			return p.skip()
		}
	})
}

func (p *parser) instruction(x *ix) error {
	x.progIdx = -1
	x.keyLo, x.keyHi = len(p.accKeys), len(p.accKeys)
	x.accLo, x.accHi = len(p.accs), len(p.accs)
	return p.object(func(key []byte) error {
		switch string(key) {
		case "programIdIndex":
			v, err := p.int()
			x.progIdx = int(v)
			return err
		case "programId":
			b, err := p.str()
			x.prog = b
			return err
		case "accounts":
			return p.array(func() error {
				if p.s.Peek() == '"' {
					k, err := p.str()
					p.accKeys = append(p.accKeys, k)
					x.keyHi = len(p.accKeys)
					return err
				}
				v, ok := p.s.Int(32)
				if !ok || v < 0 {
					return p.fail("account index")
				}
				p.accs = append(p.accs, int32(v))
				x.accHi = len(p.accs)
				return nil
			})
		case "data":
			b, err := p.str()
			x.data = b
			return err
		case "stackHeight":
			v, err := p.int()
			x.stack = int(v)
			return err
		case "parsed":
			if p.s.Peek() != '{' {
				return p.skip() // e.g. a memo's parsed string
			}
			x.hasParsed = true
			return p.parsed(x)
		default:
			return p.skip()
		}
	})
}

func (p *parser) parsed(x *ix) error {
	return p.object(func(key []byte) error {
		switch string(key) {
		case "type":
			b, err := p.str()
			x.ptype = b
			return err
		case "info":
			if p.s.Peek() != '{' {
				return p.skip()
			}
			return p.object(func(key []byte) error {
				var err error
				switch string(key) {
				case "source":
					x.src, err = p.strOrNull()
				case "destination":
					x.dst, err = p.strOrNull()
				case "authority", "multisigAuthority":
					if x.auth == nil || string(key) == "multisigAuthority" {
						x.auth, err = p.strOrNull()
					} else {
						err = p.skip()
					}
				case "mint":
					x.mint, err = p.strOrNull()
				case "amount":
					if p.s.Peek() == '"' {
						x.amount, err = p.str()
					} else {
						x.amountNum, err = p.uintStr()
					}
				case "lamports":
					x.amountNum, err = p.uintStr()
				case "feeAmount":
					err = p.object(func(key []byte) error {
						if string(key) == "amount" {
							b, err := p.str()
							x.fee = b
							return err
						}
						return p.skip()
					})
				case "tokenAmount":
					err = p.object(func(key []byte) error {
						switch string(key) {
						case "amount":
							b, err := p.str()
							x.amount = b
							return err
						case "decimals":
							v, err := p.int()
							x.decimals = int(v)
							return err
						default:
							return p.skip()
						}
					})
				default:
					err = p.skip()
				}
				return err
			})
		default:
			return p.skip()
		}
	})
}

func (p *parser) meta(t *txRaw) error {
	return p.object(func(key []byte) error {
		switch string(key) {
		case "err":
			if p.s.Null() {
				return nil
			}
			t.failed = true
			return p.skip()
		case "innerInstructions":
			return p.array(func() error {
				g := innerGroup{index: -1, lo: len(p.ixs), hi: len(p.ixs)}
				err := p.object(func(key []byte) error {
					switch string(key) {
					case "index":
						v, err := p.int()
						g.index = int(v)
						return err
					case "instructions":
						g.lo = len(p.ixs)
						err := p.array(func() error {
							p.ixs = append(p.ixs, ix{})
							return p.instruction(&p.ixs[len(p.ixs)-1])
						})
						g.hi = len(p.ixs)
						return err
					default:
						return p.skip()
					}
				})
				t.inner = append(t.inner, g)
				return err
			})
		case "loadedAddresses":
			if p.s.Null() {
				return nil
			}
			return p.object(func(key []byte) error {
				switch string(key) {
				case "writable":
					return p.keyList(&t.loadedW)
				case "readonly":
					return p.keyList(&t.loadedR)
				default:
					return p.skip()
				}
			})
		case "preTokenBalances", "postTokenBalances":
			return p.array(func() error {
				b := tokenBal{idx: -1}
				err := p.object(func(key []byte) error {
					var err error
					switch string(key) {
					case "accountIndex":
						var v int64
						v, err = p.int()
						b.idx = int(v)
					case "mint":
						b.mint, err = p.str()
					case "owner":
						b.owner, err = p.strOrNull()
					case "uiTokenAmount":
						err = p.object(func(key []byte) error {
							if string(key) == "decimals" {
								v, err := p.int()
								b.decimals = int(v)
								return err
							}
							return p.skip()
						})
					default:
						err = p.skip()
					}
					return err
				})
				t.bals = append(t.bals, b)
				return err
			})
		default:
			return p.skip()
		}
	})
}

// block reads a getBlock result, handing each transaction to each as it
// is read (t is reused), and returns the block time.
func (p *parser) block(t *txRaw, each func(*txRaw) error) (blockTime int64, err error) {
	err = p.object(func(key []byte) error {
		switch string(key) {
		case "blockTime":
			v, err := p.int()
			blockTime = v
			return err
		case "transactions":
			return p.array(func() error {
				t.reset()
				p.resetTx()
				if err := p.transaction(t); err != nil {
					return err
				}
				return each(t)
			})
		default:
			return p.skip()
		}
	})
	return blockTime, err
}

// reset empties t, keeping its buffers.
func (t *txRaw) reset() {
	*t = txRaw{
		keys: t.keys[:0], signer: t.signer[:0], loadedW: t.loadedW[:0], loadedR: t.loadedR[:0],
		top: t.top[:0], inner: t.inner[:0], bals: t.bals[:0],
	}
}

// resetTx empties the per-transaction buffers.
func (p *parser) resetTx() {
	p.accs, p.accKeys, p.ixs = p.accs[:0], p.accKeys[:0], p.ixs[:0]
}
