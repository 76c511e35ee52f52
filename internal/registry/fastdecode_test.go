package registry

import (
	"reflect"
	"testing"
)

// checkFastDecode fails unless fastDecode, when it accepts data, decodes
// it exactly as decodeStrict does (which must then accept it too).
func checkFastDecode(t *testing.T, data []byte) (accepted bool) {
	t.Helper()
	fast, ok := fastDecode(data)
	var slow Document
	err := decodeStrict(data, &slow)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("fast path accepted what encoding/json refuses (%v): %s", err, data)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast path differs from encoding/json for %s:\n%#v\n%#v", data, fast, slow)
	}
	return true
}

func TestFastDecodeSeed(t *testing.T) {
	if !checkFastDecode(t, seedJSON) {
		t.Fatal("the seed should take the fast path")
	}
}

func TestFastDecodeShapes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		fast bool // the fast path takes it
	}{
		{"empty object", `{}`, true},
		{"empty arrays", `{"assets":[],"curatedLists":[],"lstIndex":[]}`, true},
		{"nulls", `{"assets":null,"curatedLists":null,"mintHomes":null,"lstIndex":null,"supplemental":null}`, true},
		{"white space", " \n{ \"assets\" : [ { \"assetId\" : \"a\" , \"variants\" : [ ] } ] }\r\n\t", true},
		{"every field", `{"assets":[{"assetId":"a","name":"A","symbol":"A","category":"crypto","aliases":["x","y"],"imageUrl":"https://e/x.png",
			"coinId":"c","stockTicker":"T","preIpo":{"symbol":"S","mint":"m"},"variants":[{"variantId":"a:n","mint":"m","kind":"native",
			"liquidityTier":"tier1","trustTier":"tier2","tags":["t","u"],"issuer":"I","issuerUrl":"https://i","label":"L","stockVariantTier":"x",
			"symbol":"s","name":"n","decimals":9,"logoUri":"https://l"}]}],"curatedLists":[{"id":"majors","name":"Majors","description":"d",
			"members":[{"mint":"m","rank":-2,"assetId":"a","addedAt":1700000000000}]}],"mintHomes":{"m":"a","n":"b"},
			"lstIndex":[{"variantId":"solana:x","mint":"x","kind":"yield"}],"supplemental":true}`, true},
		{"field nulls", `{"assets":[{"assetId":null,"aliases":null,"preIpo":null,"variants":[{"tags":null,"decimals":null}]}]}`, true},
		{"empty inner arrays", `{"assets":[{"aliases":[],"variants":[{"tags":[]}]}]}`, true},
		{"zero and negative", `{"assets":[{"variants":[{"decimals":0},{"decimals":-0},{"decimals":-7}]}]}`, true},
		{"utf-8", `{"assets":[{"name":"Café 東京 🚀"}]}`, true},
		{"false", `{"supplemental":false}`, true},
		{"empty map", `{"mintHomes":{}}`, true},
		// Left to encoding/json:
		{"escape", `{"assets":[{"name":"Caf\u00e9"}]}`, false},
		{"escaped quote", `{"assets":[{"name":"a\"b"}]}`, false},
		{"unknown field", `{"assets":[{"assetId":"a","nope":1}]}`, false},
		{"other case", `{"Assets":[{"AssetID":"a"}]}`, false},
		{"repeated field", `{"assets":[{"assetId":"a","assetId":"b"}]}`, false},
		{"repeated map key", `{"mintHomes":{"m":"a","m":"b"}}`, false},
		{"map null value", `{"mintHomes":{"m":null}}`, false},
		{"fraction", `{"assets":[{"variants":[{"decimals":1.5}]}]}`, false},
		{"exponent", `{"assets":[{"variants":[{"decimals":1e2}]}]}`, false},
		{"leading zero", `{"assets":[{"variants":[{"decimals":01}]}]}`, false},
		{"out of range", `{"curatedLists":[{"members":[{"rank":99999999999999999999}]}]}`, false},
		{"string number", `{"assets":[{"variants":[{"decimals":"9"}]}]}`, false},
		{"number string", `{"assets":[{"name":5}]}`, false},
		{"invalid utf-8", "{\"assets\":[{\"name\":\"\xff\"}]}", false},
		{"control character", "{\"assets\":[{\"name\":\"a\tb\"}]}", false},
		{"trailing data", `{"assets":[]} {}`, false},
		{"trailing comma", `{"assets":[],}`, false},
		{"top-level null", `null`, false},
		{"not an object", `[]`, false},
		{"truncated", `{"assets":[{"assetId":"a"`, false},
		{"bad literal", `{"supplemental":tru}`, false},
		{"literal run-on", `{"supplemental":truex}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkFastDecode(t, []byte(tt.doc)); got != tt.fast {
				t.Errorf("fast path took it: %v, want %v", got, tt.fast)
			}
		})
	}
}

// FuzzFastDecode: whatever the fast path accepts, encoding/json decodes
// to the same document.
func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"assets":[{"assetId":"a","variants":[{"decimals":9,"tags":[]}]}],"mintHomes":{"m":"a"},"supplemental":true}`))
	f.Add([]byte(`{"curatedLists":[{"id":"x","members":[{"mint":"m","rank":1,"addedAt":-5}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkFastDecode(t, data) })
}
