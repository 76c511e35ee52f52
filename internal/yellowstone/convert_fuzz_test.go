package yellowstone

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// FuzzTransactionJSON: any protobuf the stream may carry converts without
// panicking, into valid JSON or an error.
func FuzzTransactionJSON(f *testing.F) {
	for _, rec := range recordedJSONTxs(f) {
		b, err := proto.Marshal(protoFromRPC(f, rec.raw))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		info := &geyserpb.SubscribeUpdateTransactionInfo{}
		if proto.Unmarshal(b, info) != nil {
			return
		}
		out, err := TransactionJSON(info, 1, nil)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q", out)
		}
	})
}
