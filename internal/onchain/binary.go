package onchain

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/mr-tron/base58"
)

// Token-2022 extension types (spl-token-2022 ExtensionType, u16 TLV tags).
const (
	extUninitialized                 = 0
	extTransferFeeConfig             = 1
	extMintCloseAuthority            = 3
	extConfidentialTransferMint      = 4
	extDefaultAccountState           = 6
	extNonTransferable               = 9
	extInterestBearingConfig         = 10
	extPermanentDelegate             = 12
	extTransferHook                  = 14
	extConfidentialTransferFeeConfig = 16
	extMetadataPointer               = 18
	extTokenMetadata                 = 19
	extGroupPointer                  = 20
	extTokenGroup                    = 21
	extGroupMemberPointer            = 22
	extTokenGroupMember              = 23
	extConfidentialMintBurn          = 24
	extScaledUIAmount                = 25
	extPausable                      = 26
)

// otherNames are the jsonParsed names of mint extensions kept only by name.
var otherNames = map[uint16]string{
	extConfidentialTransferFeeConfig: "confidentialTransferFeeConfig",
	extGroupPointer:                  "groupPointer",
	extTokenGroup:                    "tokenGroup",
	extGroupMemberPointer:            "groupMemberPointer",
	extTokenGroupMember:              "tokenGroupMember",
	extConfidentialMintBurn:          "confidentialMintBurn",
}

// ParseBase64 parses a mint account given as base64 data and its owner.
func ParseBase64(mint, owner, data string, slot uint64) (Facts, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Facts{}, fmt.Errorf("%w: base64: %v", ErrMalformed, err)
	}
	return ParseAccount(mint, owner, raw, slot)
}

// ParseAccount parses the raw data of a mint account owned by owner: the
// classic 82-byte mint, then for Token-2022 the account type at byte 165
// and the TLV extensions after it. It never panics on any input.
func ParseAccount(mint, owner string, raw []byte, slot uint64) (Facts, error) {
	f := Facts{Mint: mint, Slot: slot}
	switch owner {
	case SPLTokenProgram:
		f.Program = ProgramSPLToken
		if len(raw) != classicMintLen {
			return Facts{}, fmt.Errorf("%w: %d bytes for an spl-token mint", ErrNotMint, len(raw))
		}
	case Token2022Program:
		f.Program = ProgramToken2022
		if len(raw) != classicMintLen && len(raw) <= accountTypeOffset {
			return Facts{}, fmt.Errorf("%w: %d bytes for a token-2022 mint", ErrNotMint, len(raw))
		}
	default:
		return Facts{}, fmt.Errorf("%w: owner %s", ErrNotMint, owner)
	}
	r := reader{b: raw[:classicMintLen]}
	f.MintAuthority = r.coptionKey()
	f.Supply = strconv.FormatUint(r.u64(), 10)
	f.Decimals = int(r.u8())
	initialized := r.u8()
	f.FreezeAuthority = r.coptionKey()
	if r.err != nil {
		return Facts{}, r.err
	}
	if initialized != 1 {
		return Facts{}, fmt.Errorf("%w: not initialized", ErrNotMint)
	}
	if len(raw) == classicMintLen {
		return f, nil
	}
	for _, b := range raw[classicMintLen:accountTypeOffset] {
		if b != 0 {
			return Facts{}, fmt.Errorf("%w: a token account, not a mint", ErrNotMint)
		}
	}
	if raw[accountTypeOffset] != 1 {
		return Facts{}, fmt.Errorf("%w: account type %d", ErrNotMint, raw[accountTypeOffset])
	}
	if err := parseTLV(&f.Extensions, raw[accountTypeOffset+1:]); err != nil {
		return Facts{}, err
	}
	return f, nil
}

func parseTLV(x *Extensions, b []byte) error {
	for off := 0; off+4 <= len(b); {
		typ := binary.LittleEndian.Uint16(b[off:])
		n := int(binary.LittleEndian.Uint16(b[off+2:]))
		if typ == extUninitialized {
			return nil
		}
		off += 4
		if off+n > len(b) {
			return fmt.Errorf("%w: extension %d of %d bytes past the end", ErrMalformed, typ, n)
		}
		if err := parseExtension(x, typ, b[off:off+n]); err != nil {
			return err
		}
		off += n
	}
	return nil
}

func parseExtension(x *Extensions, typ uint16, v []byte) error {
	r := reader{b: v}
	want := -1 // the fixed size, -1 when variable
	switch typ {
	case extTransferFeeConfig:
		want = 108
		t := &TransferFeeConfig{ConfigAuthority: r.optKey(), WithdrawWithheldAuthority: r.optKey(), WithheldAmount: r.u64()}
		t.Older = TransferFee{Epoch: r.u64(), MaximumFee: r.u64(), BasisPoints: r.u16()}
		t.Newer = TransferFee{Epoch: r.u64(), MaximumFee: r.u64(), BasisPoints: r.u16()}
		x.TransferFeeConfig = t
	case extMintCloseAuthority:
		want = 32
		x.MintCloseAuthority = &MintCloseAuthority{CloseAuthority: r.optKey()}
	case extConfidentialTransferMint:
		want = 65
		c := &ConfidentialTransferMint{Authority: r.optKey(), AutoApproveNewAccounts: r.boolean()}
		if k := r.bytes(32); k != nil && !allZero(k) {
			s := base64.StdEncoding.EncodeToString(k)
			c.AuditorElGamalPubkey = &s
		}
		x.ConfidentialTransferMint = c
	case extDefaultAccountState:
		want = 1
		switch s := r.u8(); s {
		case 0:
			x.DefaultAccountState = "uninitialized"
		case 1:
			x.DefaultAccountState = "initialized"
		case 2:
			x.DefaultAccountState = "frozen"
		default:
			return fmt.Errorf("%w: default account state %d", ErrMalformed, s)
		}
	case extNonTransferable:
		want = 0
		x.NonTransferable = true
	case extInterestBearingConfig:
		want = 52
		x.InterestBearingConfig = &InterestBearingConfig{RateAuthority: r.optKey(), InitializationTimestamp: r.i64(), PreUpdateAverageRate: r.i16(), LastUpdateTimestamp: r.i64(), CurrentRate: r.i16()}
	case extPermanentDelegate:
		want = 32
		x.PermanentDelegate = &PermanentDelegate{Delegate: r.optKey()}
	case extTransferHook:
		want = 64
		x.TransferHook = &TransferHook{Authority: r.optKey(), ProgramID: r.optKey()}
	case extMetadataPointer:
		want = 64
		x.MetadataPointer = &MetadataPointer{Authority: r.optKey(), MetadataAddress: r.optKey()}
	case extTokenMetadata:
		m := &TokenMetadata{UpdateAuthority: r.optKey(), Mint: r.key(), Name: r.str(), Symbol: r.str(), URI: r.str()}
		n := r.u32()
		if int64(n)*8 > int64(len(v)) { // each pair takes at least 8 bytes
			return fmt.Errorf("%w: %d additional metadata pairs", ErrMalformed, n)
		}
		m.AdditionalMetadata = make([][2]string, 0, n)
		for range n {
			m.AdditionalMetadata = append(m.AdditionalMetadata, [2]string{r.str(), r.str()})
		}
		if r.off != len(v) && r.err == nil {
			return fmt.Errorf("%w: token metadata has %d trailing bytes", ErrMalformed, len(v)-r.off)
		}
		x.TokenMetadata = m
	case extScaledUIAmount:
		want = 56
		x.ScaledUIAmountConfig = &ScaledUIAmountConfig{Authority: r.optKey(), Multiplier: r.f64(), NewMultiplierEffectiveTimestamp: r.i64(), NewMultiplier: r.f64()}
	case extPausable:
		want = 33
		x.PausableConfig = &PausableConfig{Authority: r.optKey(), Paused: r.boolean()}
	default:
		name, ok := otherNames[typ]
		if !ok {
			name = "extension" + strconv.Itoa(int(typ))
		}
		x.Other = append(x.Other, name)
		return nil
	}
	if r.err != nil {
		return fmt.Errorf("extension %d: %w", typ, r.err)
	}
	if want >= 0 && len(v) != want {
		return fmt.Errorf("%w: extension %d has %d bytes, want %d", ErrMalformed, typ, len(v), want)
	}
	return nil
}

// reader reads little-endian fields; the first short read sets err and
// every later read returns zero values.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.err = fmt.Errorf("%w: short read of %d bytes at %d", ErrMalformed, n, r.off)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8() uint8 {
	if p := r.bytes(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) boolean() bool {
	v := r.u8()
	if v > 1 && r.err == nil {
		r.err = fmt.Errorf("%w: boolean %d", ErrMalformed, v)
	}
	return v == 1
}

func (r *reader) u16() uint16 {
	if p := r.bytes(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (r *reader) i16() int16 { return int16(r.u16()) }

func (r *reader) u32() uint32 {
	if p := r.bytes(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.bytes(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) i64() int64 { return int64(r.u64()) }

func (r *reader) f64() float64 {
	v := math.Float64frombits(r.u64())
	if (math.IsNaN(v) || math.IsInf(v, 0)) && r.err == nil {
		r.err = fmt.Errorf("%w: non-finite float", ErrMalformed)
	}
	return v
}

func (r *reader) key() string {
	if p := r.bytes(32); p != nil {
		return base58.Encode(p)
	}
	return ""
}

// optKey reads an OptionalNonZeroPubkey: all zeroes is none.
func (r *reader) optKey() *string {
	p := r.bytes(32)
	if p == nil || allZero(p) {
		return nil
	}
	s := base58.Encode(p)
	return &s
}

// coptionKey reads a COption<Pubkey>: u32 tag 0 or 1, then 32 bytes.
func (r *reader) coptionKey() *string {
	tag := r.u32()
	p := r.bytes(32)
	switch {
	case r.err != nil:
		return nil
	case tag == 0:
		return nil
	case tag == 1:
		s := base58.Encode(p)
		return &s
	}
	r.err = fmt.Errorf("%w: option tag %d", ErrMalformed, tag)
	return nil
}

// str reads a borsh string (u32 length, bytes).
func (r *reader) str() string {
	n := r.u32()
	if r.err == nil && int64(n) > int64(len(r.b)-r.off) {
		r.err = fmt.Errorf("%w: string of %d bytes", ErrMalformed, n)
		return ""
	}
	return string(r.bytes(int(n)))
}

func allZero(p []byte) bool {
	for _, b := range p {
		if b != 0 {
			return false
		}
	}
	return true
}
