package analytics

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validLine is a valid trade event as producers send it.
const validLine = `{"signature":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW","slot":250000000,` +
	`"blockTime":1767225600,"mint":"JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN","side":"buy","tokenAmount":1250.5,` +
	`"usdAmount":1000.4,"priceUsd":0.8,"wallet":"DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263","venue":"Raydium",` +
	`"flowSource":"jupiter","feeUsd":0.25,"isBot":false}`

// agree checks that ParseTrade and the encoding/json path give the same
// trade and the same error (reason and field).
func agree(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := ParseTrade(data)
	want, werr := parseTradeJSON(data)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("ParseTrade(%q) trade differs from encoding/json (-json +scanner):\n%s", data, diff)
	}
	var gv, wv *ValidationError
	if (gerr == nil) != (werr == nil) || (gerr != nil && (!errors.As(gerr, &gv) || !errors.As(werr, &wv) || *gv != *wv)) {
		t.Fatalf("ParseTrade(%q) error = %v, encoding/json path %v", data, gerr, werr)
	}
}

// TestParseTradeAgrees runs valid and invalid lines through the scanner
// and the encoding/json path: the results (trade, reason and field) must
// be equal, whether the line is in the scanner's subset or not.
func TestParseTradeAgrees(t *testing.T) {
	rep := func(old, new string) string { return strings.Replace(validLine, old, new, 1) }
	tests := []struct {
		name   string
		line   string
		reason Reason // "" for a valid trade
		fast   bool   // the scanner handles it (no encoding/json fallback)
	}{
		{"valid", validLine, "", true},
		{"whitespace", " {\t\"signature\" : \"" + strings.Repeat("a", 20) + "\" ,\r\n\"slot\":1 } \n", ReasonInvalidBlockTime, true},
		{"empty object", `{}`, ReasonMissingSignature, true},
		{"is bot", rep(`"isBot":false`, `"isBot":true`), "", true},
		{"sell", rep(`"side":"buy"`, `"side":"sell"`), "", true},
		{"bad side", rep(`"side":"buy"`, `"side":"BUY"`), ReasonInvalidSide, true},
		{"exponent", rep(`"tokenAmount":1250.5`, `"tokenAmount":1.2505e3`), "", true},
		{"negative exponent", rep(`"priceUsd":0.8`, `"priceUsd":8E-1`), "", true},
		{"duplicate key: last wins", rep(`"side":"buy"`, `"side":"x","side":"sell"`), "", true},
		{"unknown scalar fields", rep(`{`, `{"poolName":"x","n":-1.5e3,"ok":true,"z":null,`), "", true},
		{"unknown nested field", rep(`{`, `{"route":{"a":[1,2]},`), "", false},
		{"key in other case", rep(`"side":"buy"`, `"SIDE":"buy"`), "", false},
		{"key in other case, after", rep(`"isBot":false`, `"isBot":false,"Side":"x"`), ReasonInvalidSide, false},
		{"escaped key", rep(`"side"`, `"sid\u0065"`), "", false},
		{"escaped value", rep(`"venue":"Raydium"`, `"venue":"Ray\u0064ium"`), "", false},
		{"escaped quote in value", rep(`"venue":"Raydium"`, `"venue":"Ray\"dium"`), "", false},
		{"non-ASCII value", rep(`"venue":"Raydium"`, `"venue":"Raydiüm"`), ReasonInvalidVenue, false},
		{"invalid UTF-8 value", rep(`"venue":"Raydium"`, "\"venue\":\"Ray\xffdium\""), ReasonInvalidVenue, false},
		{"control byte in value", rep(`"venue":"Raydium"`, "\"venue\":\"Ray\x01dium\""), ReasonMalformedJSON, false},
		{"null field", rep(`"venue":"Raydium"`, `"venue":null`), ReasonMissingVenue, false},
		{"null number", rep(`"slot":250000000`, `"slot":null`), "", false},
		{"string slot", rep(`"slot":250000000`, `"slot":"250000000"`), ReasonMalformedJSON, false},
		{"fractional slot", rep(`"slot":250000000`, `"slot":1.5`), ReasonMalformedJSON, false},
		{"exponent slot", rep(`"slot":250000000`, `"slot":25e7`), ReasonMalformedJSON, false},
		{"negative slot", rep(`"slot":250000000`, `"slot":-1`), ReasonInvalidSlot, true},
		{"minus zero slot", rep(`"slot":250000000`, `"slot":-0`), "", true},
		{"slot out of range", rep(`"slot":250000000`, `"slot":9223372036854775808`), ReasonMalformedJSON, false},
		{"leading zero", rep(`"slot":250000000`, `"slot":0250000000`), ReasonMalformedJSON, false},
		{"float out of range", rep(`"usdAmount":1000.4`, `"usdAmount":1e400`), ReasonMalformedJSON, false},
		{"huge usd amount", rep(`"usdAmount":1000.4`, `"usdAmount":1e308`), ReasonAmountTooLarge, true},
		{"zero usd amount", rep(`"usdAmount":1000.4`, `"usdAmount":0`), ReasonNonPositiveAmount, true},
		{"inconsistent amount", rep(`"usdAmount":1000.4`, `"usdAmount":2000`), ReasonInconsistentAmount, true},
		{"dot without digits", rep(`"priceUsd":0.8`, `"priceUsd":0.`), ReasonMalformedJSON, false},
		{"plus sign", rep(`"priceUsd":0.8`, `"priceUsd":+0.8`), ReasonMalformedJSON, false},
		{"bad literal", rep(`"isBot":false`, `"isBot":fals`), ReasonMalformedJSON, false},
		{"literal with tail", rep(`"isBot":false`, `"isBot":falsey`), ReasonMalformedJSON, false},
		{"string bool", rep(`"isBot":false`, `"isBot":"false"`), ReasonMalformedJSON, false},
		{"trailing comma", rep(`"isBot":false}`, `"isBot":false,}`), ReasonMalformedJSON, false},
		{"missing comma", rep(`,"side"`, ` "side"`), ReasonMalformedJSON, false},
		{"trailing data", validLine + `x`, ReasonMalformedJSON, false},
		{"two objects", validLine + validLine, ReasonMalformedJSON, false},
		{"unterminated", validLine[:len(validLine)-1], ReasonMalformedJSON, false},
		{"array", `[` + validLine + `]`, ReasonMalformedJSON, false},
		{"empty", ``, ReasonMalformedJSON, false},
		{"null", `null`, ReasonMissingSignature, false},
		{"bad mint", rep(`"mint":"JUP`, `"mint":"0UP`), ReasonInvalidMint, true},
		{"future-proof field", rep(`"isBot":false`, `"isBot":false,"v":2`), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.line)
			agree(t, data)
			_, err := ParseTrade(data)
			if ReasonOf(err) != tt.reason || (tt.reason == "" && err != nil) {
				t.Errorf("ParseTrade(%s) = %v, want reason %q", tt.line, err, tt.reason)
			}
			if _, fast := scanTrade(data); fast != tt.fast {
				t.Errorf("scanner handles it: %v, want %v", fast, tt.fast)
			}
		})
	}
}

// TestParseTradeRoundTrip: every trade encoding/json writes reads back
// through the scanner.
func TestParseTradeRoundTrip(t *testing.T) {
	for i, tr := range getBenchPool().trades[:2000] {
		data, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if _, fast := scanTrade(data); !fast {
			t.Fatalf("trade %d not in the scanner's subset: %s", i, data)
		}
		agree(t, data)
	}
}

// FuzzParseTradeAgrees: the scanner and encoding/json agree on any input.
func FuzzParseTradeAgrees(f *testing.F) {
	f.Add([]byte(validLine))
	f.Add([]byte(`{"signature":"s","slot":-0,"blockTime":1e3,"isBot":true,"x":null}`))
	f.Add([]byte(`{"SIDE":"buy","side":"sell"}`))
	f.Add([]byte(` {"priceUsd":1.5E+2 , "venue":"a\u0062"} `))
	data, _ := json.Marshal(validTrade())
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, data)
	})
}

func BenchmarkParseTrade(b *testing.B) {
	lines := make([][]byte, 1024)
	for i := range lines {
		lines[i], _ = json.Marshal(getBenchPool().trades[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseTrade(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
}

// BenchmarkParseTradeJSON is BenchmarkParseTrade through encoding/json,
// for comparison.
func BenchmarkParseTradeJSON(b *testing.B) {
	lines := make([][]byte, 1024)
	for i := range lines {
		lines[i], _ = json.Marshal(getBenchPool().trades[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := parseTradeJSON(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
}
