package onchain

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/mr-tron/base58"
)

// MetadataAddress is the Metaplex metadata account of mint: the program
// address of seeds ("metadata", program, mint) under the Metaplex program.
func MetadataAddress(mint string) (string, error) {
	m, err := base58.Decode(mint)
	if err != nil || len(m) != 32 {
		return "", fmt.Errorf("onchain: mint %q is not a 32-byte base58 key", mint)
	}
	prog, _ := base58.Decode(MetaplexProgram)
	addr, ok := findProgramAddress([][]byte{[]byte("metadata"), prog, m}, prog)
	if !ok {
		return "", fmt.Errorf("onchain: no program address for %s", mint)
	}
	return base58.Encode(addr), nil
}

func findProgramAddress(seeds [][]byte, program []byte) ([]byte, bool) {
	for bump := 255; bump >= 0; bump-- {
		h := sha256.New()
		for _, s := range seeds {
			h.Write(s)
		}
		h.Write([]byte{byte(bump)})
		h.Write(program)
		h.Write([]byte("ProgramDerivedAddress"))
		sum := h.Sum(nil)
		if !onCurve(sum) {
			return sum, true
		}
	}
	return nil, false
}

var (
	curveP = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	curveD = func() *big.Int { // -121665/121666 mod p
		inv := new(big.Int).ModInverse(big.NewInt(121666), curveP)
		d := new(big.Int).Mul(big.NewInt(-121665), inv)
		return d.Mod(d, curveP)
	}()
	legendreExp = new(big.Int).Rsh(new(big.Int).Sub(curveP, big.NewInt(1)), 1)
)

// onCurve reports whether the 32 bytes decompress to an ed25519 point:
// x² = (y²-1)/(d·y²+1) must have a square root mod p.
func onCurve(b []byte) bool {
	le := make([]byte, 32)
	for i := range 32 {
		le[31-i] = b[i]
	}
	le[0] &= 0x7f
	y := new(big.Int).SetBytes(le)
	y.Mod(y, curveP)
	y2 := new(big.Int).Mul(y, y)
	y2.Mod(y2, curveP)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	u.Mod(u, curveP)
	v := new(big.Int).Mul(curveD, y2)
	v.Add(v, big.NewInt(1)).Mod(v, curveP)
	if v.Sign() == 0 {
		return false
	}
	x2 := new(big.Int).Mul(u, new(big.Int).ModInverse(v, curveP))
	x2.Mod(x2, curveP)
	if x2.Sign() == 0 {
		return true
	}
	return new(big.Int).Exp(x2, legendreExp, curveP).Cmp(big.NewInt(1)) == 0
}

// ParseMetadata parses a Metaplex metadata account (MetadataV1): key,
// update authority, mint, name, symbol, uri, seller fee, creators, primary
// sale, isMutable.
func ParseMetadata(address string, raw []byte, slot uint64) (Metadata, error) {
	r := reader{b: raw}
	if k := r.u8(); k != 4 && r.err == nil {
		return Metadata{}, fmt.Errorf("%w: metadata key %d", ErrMalformed, k)
	}
	md := Metadata{Address: address, Slot: slot, UpdateAuthority: r.key()}
	_ = r.key() // mint
	md.Name = strings.TrimRight(r.str(), "\x00")
	md.Symbol = strings.TrimRight(r.str(), "\x00")
	_ = r.str() // uri
	_ = r.u16() // seller fee
	if r.boolean() {
		n := r.u32()
		if r.err == nil && int64(n)*34 > int64(len(raw)) {
			return Metadata{}, fmt.Errorf("%w: %d creators", ErrMalformed, n)
		}
		_ = r.bytes(int(n) * 34)
	}
	_ = r.boolean() // primary sale happened
	md.IsMutable = r.boolean()
	if r.err != nil {
		return Metadata{}, r.err
	}
	return md, nil
}

// ParseMetadataValue parses a base64 account value of the metadata account;
// null is ErrUnknownMint's sibling: no metadata (ok false).
func ParseMetadataValue(address string, value json.RawMessage, slot uint64) (Metadata, bool, error) {
	if len(value) == 0 || string(value) == "null" {
		return Metadata{}, false, nil
	}
	var acc struct {
		Data  []string `json:"data"`
		Owner string   `json:"owner"`
	}
	if err := json.Unmarshal(value, &acc); err != nil || len(acc.Data) != 2 || acc.Data[1] != "base64" {
		return Metadata{}, false, fmt.Errorf("%w: metadata account is not base64", ErrMalformed)
	}
	if acc.Owner != MetaplexProgram {
		return Metadata{}, false, fmt.Errorf("%w: metadata owner %s", ErrMalformed, acc.Owner)
	}
	raw, err := base64.StdEncoding.DecodeString(acc.Data[0])
	if err != nil {
		return Metadata{}, false, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	md, err := ParseMetadata(address, raw, slot)
	return md, err == nil, err
}

// LargestAccounts is the result of getTokenLargestAccounts.
type LargestAccounts struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value []struct {
		Address string `json:"address"`
		Amount  string `json:"amount"`
	} `json:"value"`
}

// TopShare is the share of supply (raw units) the n largest accounts hold,
// in 0..1; false when supply is zero or an amount is not a number.
func TopShare(la LargestAccounts, supply string, n int) (Holders, bool) {
	s, ok := new(big.Int).SetString(supply, 10)
	if !ok || s.Sign() <= 0 {
		return Holders{}, false
	}
	sum := new(big.Int)
	for i, v := range la.Value {
		if i == n {
			break
		}
		a, err := strconv.ParseUint(v.Amount, 10, 64)
		if err != nil {
			return Holders{}, false
		}
		sum.Add(sum, new(big.Int).SetUint64(a))
	}
	share, _ := new(big.Rat).SetFrac(sum, s).Float64()
	return Holders{Top10Share: min(max(share, 0), 1), Slot: la.Context.Slot}, true
}
