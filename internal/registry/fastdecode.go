package registry

import (
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/jsonscan"
)

// fastDecode decodes a registry document in its common shape without
// encoding/json's reflection: exact (case-sensitive) field names, each at
// most once per object, strings without escapes, integers in range,
// nothing after the value. It reports false at the first thing outside
// that shape, and the caller decodes the document with encoding/json
// instead (decodeStrict), which then gives the result or the error. What
// it accepts it decodes exactly as decodeStrict does: null leaves a field
// at its zero value (nil for slices, maps and pointers), an empty array
// is an empty, non-nil slice.
//
// A large import (150k assets, 35 MB) decodes several times faster this
// way, which is most of a server's start-up.
func fastDecode(data []byte) (Document, bool) {
	d := fastDecoder{Scanner: jsonscan.Scanner{B: data}}
	var doc Document
	if !d.document(&doc) {
		return Document{}, false
	}
	return doc, d.End()
}

type fastDecoder struct {
	jsonscan.Scanner
	// interned holds the values of the enum-like fields (categories,
	// kinds, tiers, tags), which repeat across a large document: one
	// string each rather than one per asset.
	interned map[string]string
	// text holds the other decoded strings back to back in chunks of
	// textChunk bytes (see keep): a string of its own would be rounded up
	// to its allocation size class (a 44-byte mint takes 48 bytes, a
	// 10-byte id 16), about a quarter more for a large registry's ids,
	// names and mints.
	text strings.Builder
}

// textChunk is the size of each chunk of text; longer strings are
// allocated on their own.
const textChunk = 64 << 10

// keep returns b as a string held in the current chunk of text. A Builder
// never changes bytes it has written, so strings cut from String stay
// valid as it grows into the rest of its chunk.
func (d *fastDecoder) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > textChunk/16 {
		return string(b)
	}
	if d.text.Cap()-d.text.Len() < len(b) {
		d.text = strings.Builder{}
		d.text.Grow(textChunk)
	}
	start := d.text.Len()
	d.text.Write(b)
	return d.text.String()[start:]
}

// maxInterned bounds interned, whatever a document holds.
const maxInterned = 4096

// enum decodes a string field whose values repeat (see interned).
func (d *fastDecoder) enum(dst *string) bool {
	if d.Null() {
		return true
	}
	b, _, ok := d.String()
	if !ok {
		return false
	}
	if s, ok := d.interned[string(b)]; ok {
		*dst = s
		return true
	}
	s := string(b)
	if d.interned == nil {
		d.interned = map[string]string{}
	}
	if len(d.interned) < maxInterned {
		d.interned[s] = s
	}
	*dst = s
	return true
}

// str decodes a string field (null leaves it unchanged).
func (d *fastDecoder) str(dst *string) bool {
	if d.Null() {
		return true
	}
	b, _, ok := d.String()
	if ok {
		*dst = d.keep(b)
	}
	return ok
}

// integer decodes an integer field of bits bits (null leaves it
// unchanged).
func (d *fastDecoder) integer(dst *int64, bits int) bool {
	if d.Null() {
		return true
	}
	n, ok := d.Int(bits)
	if ok {
		*dst = n
	}
	return ok
}

func (d *fastDecoder) boolean(dst *bool) bool {
	if d.Null() {
		return true
	}
	v, ok := d.Bool()
	if ok {
		*dst = v
	}
	return ok
}

// object decodes an object whose keys field decodes; field returns false
// for an unknown key or a bad value. A repeated key is refused (bit i of
// seen per field index field reports).
func (d *fastDecoder) object(field func(key []byte) (int, bool)) bool {
	if !d.Consume('{') {
		return false
	}
	if d.Consume('}') {
		return true
	}
	var seen uint64
	for {
		key, _, ok := d.String()
		if !ok || !d.Consume(':') {
			return false
		}
		i, ok := field(key)
		if !ok || i < 0 || i >= 64 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		if d.Consume(',') {
			continue
		}
		return d.Consume('}')
	}
}

// array decodes an array, calling elem for each element; isNull reports
// a null literal in its place (the caller sets the field to nil).
func (d *fastDecoder) array(elem func() bool) (isNull, ok bool) {
	if d.Null() {
		return true, true
	}
	if !d.Consume('[') {
		return false, false
	}
	if d.Consume(']') {
		return false, true
	}
	for {
		if !elem() {
			return false, false
		}
		if d.Consume(',') {
			continue
		}
		return false, d.Consume(']')
	}
}

// strings decodes a []string field; enum interns its values.
func (d *fastDecoder) strings(dst *[]string, enum bool) bool {
	out := []string{}
	isNull, ok := d.array(func() bool {
		var s string
		str := d.str
		if enum {
			str = d.enum
		}
		if !str(&s) {
			return false
		}
		out = append(out, s)
		return true
	})
	if ok && !isNull {
		*dst = out
	} else if ok {
		*dst = nil
	}
	return ok
}

func (d *fastDecoder) document(doc *Document) bool {
	return d.object(func(key []byte) (int, bool) {
		switch string(key) {
		case "assets":
			return 0, d.assets(&doc.Assets)
		case "curatedLists":
			return 1, d.curatedLists(&doc.CuratedLists)
		case "mintHomes":
			return 2, d.mintHomes(&doc.MintHomes)
		case "lstIndex":
			return 3, d.variants(&doc.LSTIndex)
		case "supplemental":
			return 4, d.boolean(&doc.Supplemental)
		}
		return 0, false
	})
}

// list decodes an array of objects into dst with elem (null sets dst to
// nil, an empty array to an empty, non-nil slice).
func list[T any](d *fastDecoder, dst *[]T, elem func(*T) bool) bool {
	out := []T{}
	isNull, ok := d.array(func() bool {
		out = append(out, *new(T))
		return elem(&out[len(out)-1])
	})
	switch {
	case !ok:
		return false
	case isNull:
		*dst = nil
	default:
		*dst = out
	}
	return true
}

func (d *fastDecoder) assets(dst *[]Asset) bool { return list(d, dst, d.asset) }

func (d *fastDecoder) asset(a *Asset) bool {
	return d.object(func(key []byte) (int, bool) {
		switch string(key) {
		case "assetId":
			return 0, d.str(&a.AssetID)
		case "name":
			return 1, d.str(&a.Name)
		case "symbol":
			return 2, d.str(&a.Symbol)
		case "category":
			return 3, d.enum(&a.Category)
		case "aliases":
			return 4, d.strings(&a.Aliases, false)
		case "imageUrl":
			return 5, d.str(&a.ImageURL)
		case "coinId":
			return 6, d.str(&a.CoinID)
		case "stockTicker":
			return 7, d.str(&a.StockTicker)
		case "preIpo":
			return 8, d.preIPO(&a.PreIPO)
		case "variants":
			return 9, d.variants(&a.Variants)
		}
		return 0, false
	})
}

func (d *fastDecoder) preIPO(dst **PreIPO) bool {
	if d.Null() {
		*dst = nil
		return true
	}
	p := &PreIPO{}
	ok := d.object(func(key []byte) (int, bool) {
		switch string(key) {
		case "symbol":
			return 0, d.str(&p.Symbol)
		case "mint":
			return 1, d.str(&p.Mint)
		}
		return 0, false
	})
	if ok {
		*dst = p
	}
	return ok
}

func (d *fastDecoder) variants(dst *[]Variant) bool { return list(d, dst, d.variant) }

func (d *fastDecoder) variant(v *Variant) bool {
	return d.object(func(key []byte) (int, bool) {
		switch string(key) {
		case "variantId":
			return 0, d.str(&v.VariantID)
		case "mint":
			return 1, d.str(&v.Mint)
		case "kind":
			return 2, d.enum(&v.Kind)
		case "liquidityTier":
			return 3, d.enum(&v.LiquidityTier)
		case "trustTier":
			return 4, d.enum(&v.TrustTier)
		case "tags":
			return 5, d.strings(&v.Tags, true)
		case "issuer":
			return 6, d.str(&v.Issuer)
		case "issuerUrl":
			return 7, d.str(&v.IssuerURL)
		case "label":
			return 8, d.str(&v.Label)
		case "stockVariantTier":
			return 9, d.enum(&v.StockVariantTier)
		case "symbol":
			return 10, d.str(&v.Symbol)
		case "name":
			return 11, d.str(&v.Name)
		case "decimals":
			if d.Null() {
				v.Decimals = nil
				return 12, true
			}
			var n int64
			if !d.integer(&n, strconv.IntSize) {
				return 12, false
			}
			i := int(n)
			v.Decimals = &i
			return 12, true
		case "logoUri":
			return 13, d.str(&v.LogoURI)
		}
		return 0, false
	})
}

func (d *fastDecoder) curatedLists(dst *[]CuratedList) bool {
	return list(d, dst, func(l *CuratedList) bool {
		return d.object(func(key []byte) (int, bool) {
			switch string(key) {
			case "id":
				return 0, d.str(&l.ID)
			case "name":
				return 1, d.str(&l.Name)
			case "description":
				return 2, d.str(&l.Description)
			case "members":
				return 3, d.members(&l.Members)
			}
			return 0, false
		})
	})
}

func (d *fastDecoder) members(dst *[]CuratedMember) bool {
	return list(d, dst, func(m *CuratedMember) bool {
		return d.object(func(key []byte) (int, bool) {
			switch string(key) {
			case "mint":
				return 0, d.str(&m.Mint)
			case "rank":
				n := int64(m.Rank)
				ok := d.integer(&n, strconv.IntSize)
				m.Rank = int(n)
				return 1, ok
			case "assetId":
				return 2, d.str(&m.AssetID)
			case "addedAt":
				return 3, d.integer(&m.AddedAt, 64)
			}
			return 0, false
		})
	})
}

// mintHomes decodes the mint -> asset id map; a null value inside it is
// left to encoding/json.
func (d *fastDecoder) mintHomes(dst *map[string]string) bool {
	if d.Null() {
		*dst = nil
		return true
	}
	if !d.Consume('{') {
		return false
	}
	out := map[string]string{}
	if !d.Consume('}') {
		for {
			k, _, ok := d.String()
			if !ok || !d.Consume(':') {
				return false
			}
			if _, dup := out[string(k)]; dup || d.Peek() != '"' {
				return false
			}
			var v string
			if !d.str(&v) {
				return false
			}
			out[string(k)] = v
			if d.Consume(',') {
				continue
			}
			if !d.Consume('}') {
				return false
			}
			break
		}
	}
	*dst = out
	return true
}
