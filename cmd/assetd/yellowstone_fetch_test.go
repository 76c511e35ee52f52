package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/yellowstone"
)

// TestRPCBlocksFill checks the Yellowstone missed-slot fetcher over the
// shared JSON-RPC client: the getBlock request it sends, a block passed
// through, -32007 (skipped) as yellowstone.ErrSlotSkipped, and a null
// result as an error (a gap), not an empty block.
func TestRPCBlocksFill(t *testing.T) {
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body: %v", err)
		}
		got = append(got, req)
		params, _ := req["params"].([]any)
		slot, _ := params[0].(float64)
		w.Header().Set("Content-Type", "application/json")
		switch slot {
		case 10:
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"blockTime":1,"transactions":[]}}`)
		case 11:
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32007,"message":"Slot 11 was skipped, or missing due to ledger jump to recent snapshot"}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":null}`)
		}
	}))
	defer srv.Close()
	b := rpcBlocks{rpc: solanarpc.New(srv.URL, solanarpc.Options{RPS: 1000}), commitment: "confirmed", encoding: "json"}
	ctx := context.Background()
	raw, err := b.GetBlock(ctx, 10)
	if err != nil || string(raw) != `{"blockTime":1,"transactions":[]}` {
		t.Fatalf("slot 10: %s, %v", raw, err)
	}
	if _, err := b.GetBlock(ctx, 11); !errors.Is(err, yellowstone.ErrSlotSkipped) {
		t.Fatalf("slot 11: %v; want ErrSlotSkipped", err)
	}
	if _, err := b.GetBlock(ctx, 12); err == nil || errors.Is(err, yellowstone.ErrSlotSkipped) {
		t.Fatalf("slot 12 (null): %v; want a non-skip error", err)
	}
	if len(got) < 3 || got[0]["method"] != "getBlock" {
		t.Fatalf("requests %v", got)
	}
	opts, _ := got[0]["params"].([]any)[1].(map[string]any)
	if opts["commitment"] != "confirmed" || opts["encoding"] != "json" || opts["transactionDetails"] != "full" || opts["rewards"] != false || opts["maxSupportedTransactionVersion"] != float64(0) {
		t.Fatalf("getBlock options %v", opts)
	}
}
