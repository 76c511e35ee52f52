package tradestream

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
)

// everyField is a trade with every field set (synthetic values), so a
// field added to analytics.Trade and unknown to appendTrade fails the
// comparison below.
func everyField(t *testing.T) analytics.Trade {
	t.Helper()
	var tr analytics.Trade
	v := reflect.ValueOf(&tr).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("synthetic-" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64, reflect.Int32:
			f.SetInt(int64(7 + i))
		case reflect.Float64:
			f.SetFloat(1.25 + float64(i))
		case reflect.Bool:
			f.SetBool(true)
		default:
			if v.Type().Field(i).Tag.Get("json") != "-" {
				t.Fatalf("field %s of kind %s: teach appendTrade and this test", v.Type().Field(i).Name, f.Kind())
			}
		}
	}
	return tr
}

func TestAppendTradeIsJSONMarshal(t *testing.T) {
	base := everyField(t)
	with := func(f func(*analytics.Trade)) analytics.Trade { tr := base; f(&tr); return tr }
	tests := []struct {
		name string
		tr   analytics.Trade
	}{
		{"every field", base},
		{"omitted fields", with(func(t *analytics.Trade) { t.FlowSource, t.Pool, t.Program = "", "", "" })},
		{"zero values", analytics.Trade{}},
		{"escapes", with(func(t *analytics.Trade) { t.Venue, t.Signature = `a"b\c<d>&e`, "tab\there" })},
		{"non-ASCII", with(func(t *analytics.Trade) { t.FlowSource = "Jupiter – ünïcode \u2028" })},
		{"invalid UTF-8", with(func(t *analytics.Trade) { t.Venue = "bad\xff" })},
		{"tiny and huge numbers", with(func(t *analytics.Trade) {
			t.TokenAmount, t.USDAmount, t.PriceUSD, t.FeeUSD = 1e-9, 1e21, 123456789.123456789, 0.000001
		})},
		{"exponents", with(func(t *analytics.Trade) { t.TokenAmount, t.USDAmount, t.PriceUSD = 5e-324, math.MaxFloat64, 1.5e-7 })},
		{"negative", with(func(t *analytics.Trade) { t.Slot, t.Leg, t.FeeUSD = -1, -2, -3.5e-8 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, werr := json.Marshal(&tt.tr)
			got, err := appendTrade([]byte("prefix"), &tt.tr)
			if (err != nil) != (werr != nil) {
				t.Fatalf("err %v; json.Marshal's %v", err, werr)
			}
			if !bytes.Equal(got, append([]byte("prefix"), want...)) {
				t.Fatalf("got  %s\nwant prefix%s", got, want)
			}
		})
	}
	nan := with(func(t *analytics.Trade) { t.PriceUSD = math.NaN() })
	if _, err := appendTrade(nil, &nan); err == nil {
		t.Fatal("NaN encoded")
	}
}
