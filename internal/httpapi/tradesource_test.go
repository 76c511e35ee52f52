package httpapi

import (
	"testing"

	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/storage"
)

func TestTradeSourceStatus(t *testing.T) {
	h, _, _ := analyticsHarness(t)
	get := func(key string) resp {
		return h.do(t, "GET", "/v1/internal/trades/source", map[string]string{"X-Api-Key": h.plain[key]}, nil)
	}
	if r := get("read"); r.status != 403 {
		t.Fatalf("assets:read key: %d %s", r.status, r.raw)
	}
	r := get("trades")
	if r.status != 200 || r.body["source"] != "none" || r.body["state"] != "off" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("no source: %d %s", r.status, r.raw)
	}
	st := chainsource.Off()
	st.Source, st.State, st.HeadSlot, st.ContiguousThroughSlot, st.LagSlots = "solana-rpc", chainsource.StateCatchingUp, 500, 103, 397
	st.Gaps = []storage.SourceGap{{FromSlot: 104, ToSlot: 104, Attempts: 2, LastError: "solana rpc getBlock: error -32004: Block not available for slot 104"}}
	h.srv.d.TradeSource = func() chainsource.Status { return st }
	r = get("trades")
	gaps, _ := r.body["gaps"].([]any)
	if r.status != 200 || r.body["state"] != "catching_up" || r.body["contiguousThroughSlot"] != float64(103) || len(gaps) != 1 {
		t.Fatalf("with a gap: %d %s", r.status, r.raw)
	}
	if g := gaps[0].(map[string]any); g["fromSlot"] != float64(104) || g["attempts"] != float64(2) {
		t.Fatalf("gap: %v", g)
	}
}
