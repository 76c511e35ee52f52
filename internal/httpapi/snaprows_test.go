package httpapi

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// TestMarketEqualCoversEveryField: a market differing from another in any
// one field is unequal, so a new field of asset.Market cannot be
// forgotten by the market snapshot row cache.
func TestMarketEqualCoversEveryField(t *testing.T) {
	base := func() *asset.Market {
		var m asset.Market
		v := reflect.ValueOf(&m).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.String:
				f.SetString("x")
			case reflect.Pointer:
				f.Set(reflect.New(f.Type().Elem()))
			default:
				t.Fatalf("field %s: kind %s not handled by marketEqual", v.Type().Field(i).Name, f.Kind())
			}
		}
		return &m
	}
	if !marketEqual(base(), base()) {
		t.Fatal("equal markets compare unequal")
	}
	typ := reflect.TypeOf(asset.Market{})
	for i := range typ.NumField() {
		a, b := base(), base()
		f := reflect.ValueOf(b).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("y")
		case reflect.Pointer:
			f.Set(reflect.Zero(f.Type()))
		}
		if marketEqual(a, b) {
			t.Errorf("markets differing in %s compare equal", typ.Field(i).Name)
		}
	}
}

// TestSnapshotRowFragmentsMatchEncoder: the concatenated cached rows are
// the bytes encoding/json writes for the slice of rows, and changed
// inputs are encoded again.
func TestSnapshotRowFragmentsMatchEncoder(t *testing.T) {
	p, dec := 1.5, 6
	ins := []snapInput{
		{mint: "m1", assetID: "a", sym: "SOL", hasTok: true, tok: market.Token{Name: "Solana", Market: asset.Market{Price: &p}}},
		{mint: "m2", dec: &dec, advisory: &asset.Advisory{Status: "warn", Reason: "<r&>"}},
	}
	var c snapRowCache
	enc := func() string {
		var buf bytes.Buffer
		buf.WriteByte('[')
		for i := range ins {
			if i > 0 {
				buf.WriteByte(',')
			}
			if !c.appendRow(&buf, &ins[i]) {
				t.Fatal("row not encodable")
			}
		}
		buf.WriteString("]\n")
		return buf.String()
	}
	want := func() string {
		rows := make([]snapshotRow, len(ins))
		for i := range ins {
			rows[i] = ins[i].row()
		}
		b, _, err := encodeJSON(rows)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := enc(); got != want() {
		t.Fatalf("fragments %s\nencoder %s", got, want())
	}
	p2 := 2.5
	ins[0].tok.Market = asset.Market{Price: &p2}
	ins[1].advisory = nil
	if got := enc(); got != want() || !strings.Contains(got, "2.5") {
		t.Fatalf("after a change: fragments %s\nencoder %s", got, want())
	}
}
