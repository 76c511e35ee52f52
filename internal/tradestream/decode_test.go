package tradestream

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"github.com/mr-tron/base58"
)

func TestDecodeReadsBothFormats(t *testing.T) {
	// Synthetic trade events (made-up addresses).
	mint, wallet := synthAddr("mint"), synthAddr("wallet")
	ev1 := fmt.Sprintf(`{"signature":"sig-a","slot":1,"blockTime":1700000000,"mint":%q,"side":"buy","tokenAmount":1,"usdAmount":2,"priceUsd":2,"wallet":%q,"venue":"synthetic"}`, mint, wallet)
	ev2 := fmt.Sprintf(`{"signature":"sig-b","leg":1,"slot":1,"blockTime":1700000000,"mint":%q,"side":"sell","tokenAmount":1,"usdAmount":2,"priceUsd":2,"wallet":%q,"venue":"synthetic"}`, mint, wallet)
	tests := []struct {
		name, format, body string
		want               []string // identities
		invalid            int
		err                error // errors.Is target; errAny: any error
	}{
		{"one-trade message (no format header)", "", ev1, []string{"sig-a"}, 0, nil},
		{"one-trade message, not a trade", "", `{"signature":"x"}`, nil, 0, errAny},
		{"batch", FormatBatch, ev1 + "\n" + ev2 + "\n", []string{"sig-a", "sig-b:1"}, 0, nil},
		{"batch without the last newline, blank lines", FormatBatch, "\n" + ev1 + "\n\n  \n" + ev2, []string{"sig-a", "sig-b:1"}, 0, nil},
		{"batch with an invalid event", FormatBatch, ev1 + "\n{nope\n" + ev2 + "\n", []string{"sig-a", "sig-b:1"}, 1, nil},
		{"empty batch", FormatBatch, "", nil, 0, nil},
		{"a newer format", "trades-future-v9", ev1, nil, 0, errUnknownFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, invalid, err := decode(tt.format, []byte(tt.body), nil)
			switch {
			case tt.err == errAny && err == nil, tt.err == nil && err != nil, tt.err != nil && tt.err != errAny && !errors.Is(err, tt.err):
				t.Fatalf("err %v; want %v", err, tt.err)
			}
			if invalid != tt.invalid {
				t.Errorf("invalid %d; want %d", invalid, tt.invalid)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d trades; want %d", len(got), len(tt.want))
			}
			for i := range got {
				if id := got[i].ID().String(); id != tt.want[i] {
					t.Errorf("trade %d: %s; want %s", i, id, tt.want[i])
				}
			}
		})
	}
}

var errAny = errors.New("any error")

func synthAddr(kind string) string {
	sum := sha256.Sum256([]byte("synthetic " + kind))
	return base58.Encode(sum[:])
}
