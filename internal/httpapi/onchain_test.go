package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/storage"
)

// chainStore is an in-memory onchain.Store (the engines run the
// conformance suite).
type chainStore struct {
	mu      sync.Mutex
	changes []storage.MintChange
}

func (m *chainStore) PutMintFacts(_ context.Context, _ []storage.MintFacts, changes []storage.MintChange) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range changes {
		c.Seq = int64(len(m.changes) + 1)
		m.changes = append(m.changes, c)
	}
	return nil
}

func (m *chainStore) ListMintFacts(context.Context) ([]storage.MintFacts, error) { return nil, nil }

func (m *chainStore) MintChanges(_ context.Context, mints []string, since, before int64, limit int) ([]storage.MintChange, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []storage.MintChange{}
	for i := len(m.changes) - 1; i >= 0 && len(out) < limit; i-- {
		c := m.changes[i]
		if c.At >= since && (before == 0 || c.Seq < before) && (len(mints) == 0 || slices.Contains(mints, c.Mint)) {
			out = append(out, c)
		}
	}
	return out, nil
}

// recordedFacts parses a recorded getAccountInfo/getMultipleAccounts
// response of ../shared/data/solana-accounts (value index i when it is a list).
func recordedFacts(t *testing.T, rel, mint string, i int) onchain.Facts {
	t.Helper()
	b, err := os.ReadFile("../../../shared/data/solana-accounts/" + rel)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("recorded data absent: %s", rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Context struct {
				Slot uint64 `json:"slot"`
			} `json:"context"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	v := r.Result.Value
	if strings.HasPrefix(string(v), "[") {
		var vs []json.RawMessage
		if err := json.Unmarshal(v, &vs); err != nil {
			t.Fatal(err)
		}
		v = vs[i]
	}
	f, err := onchain.ParseAccountValue(mint, v, r.Result.Context.Slot)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const fluxMint = "FLUXBmPhT3Fd1EDVFdg46YREqHBeNypn1h4EbnTzWERX"

func TestVerdictsAndChanges(t *testing.T) {
	h, _, _ := marketHarness(t)
	svc := onchain.New(onchain.Config{Store: &chainStore{}, Now: func() time.Time { return h.now }})
	h.srv.d.OnChain = svc
	ctx := context.Background()
	oldUSDC := recordedFacts(t, "solana-swift/extracted/APIClientTests.swift--NetworkManagerMockJSON-getMultipleMintDatas--UNESCAPED.json", mkUSDC, 0)
	flux := recordedFacts(t, "p2p-wallet-ios/extracted/HTTPClientTests.swift--mockString--getAccountInfo-jsonParsed-"+fluxMint+".json", fluxMint, 0)
	if err := svc.Put(ctx, "test", oldUSDC, flux); err != nil {
		t.Fatal(err)
	}
	if err := svc.PutUnknown(ctx, "test", mkUnknown); err != nil {
		t.Fatal(err)
	}

	post := func(key, body string) resp {
		return h.do(t, "POST", "/v1/assets/verdicts", map[string]string{"X-Api-Key": h.plain[key], "Content-Type": "application/json"}, strings.NewReader(body))
	}
	r := post("risk", fmt.Sprintf(`{"mints":[%q,%q,%q,%q,%q]}`, mkUSDC, fluxMint, mkUSDC, mkUnknown, mkSOL))
	if r.status != 200 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var body struct {
		Verdicts []onchain.Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal([]byte(r.raw), &body); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range body.Verdicts {
		got = append(got, v.Mint+" "+v.Status+" "+v.Severity+fmt.Sprint(" ", v.DoNotTrade))
	}
	want := []string{mkUSDC + " ok info false", fluxMint + " ok warning false", mkUnknown + " unknown_mint critical true", mkSOL + " not_read_yet none false"}
	if !slices.Equal(got, want) {
		t.Fatalf("rows\n%v\nwant\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	usdc := body.Verdicts[0]
	if w := usdc.Warnings[0]; w.Code != onchain.CodeMintAuthority || w.Evidence.Issuer != "Circle" || *w.Evidence.Slot != 132426903 {
		t.Errorf("USDC warning %+v", w)
	}
	if body.Verdicts[1].Facts == nil || body.Verdicts[1].Facts.Extensions.TransferFeeConfig.MaxBasisPoints() != 300 {
		t.Errorf("FLUX facts %+v", body.Verdicts[1].Facts)
	}

	for _, tc := range []struct {
		key, body string
		status    int
		code      string
	}{
		{"none", `{"mints":[]}`, 403, "insufficient_scope"},
		{"read", `{"mints":["nope"]}`, 400, "invalid_mint"},
		{"read", `{}`, 400, "missing_param"},
		{"read", `{"mints":["` + strings.Join(syntheticMints(101), `","`) + `"]}`, 400, "batch_too_large"},
		{"read", `{"mints":["` + strings.Join(append(syntheticMints(100), syntheticMints(100)...), `","`) + `"]}`, 200, ""},
	} {
		r := post(tc.key, tc.body)
		if r.status != tc.status || errCode(r) != tc.code {
			t.Errorf("%s %.60s: %d %s; want %d %s", tc.key, tc.body, r.status, errCode(r), tc.status, tc.code)
		}
	}

	// A newer read rotates USDC's authorities: one change row per fact,
	// newest first, and the next verdict shows the new authority.
	newUSDC := recordedFacts(t, "gemwallet-core/crates/gem_solana/testdata/usdc_mint.json", mkUSDC, 0)
	if err := svc.Put(ctx, "chain", newUSDC); err != nil {
		t.Fatal(err)
	}
	c := h.get(t, "/v1/assets/usd/changes?limit=1")
	if c.status != 200 {
		t.Fatalf("%d %s", c.status, c.raw)
	}
	var page struct {
		AssetID    string `json:"assetId"`
		Changes    []map[string]any
		NextBefore *int64 `json:"nextBefore"`
	}
	json.Unmarshal([]byte(c.raw), &page)
	if page.AssetID != "usd" || len(page.Changes) != 1 || page.NextBefore == nil || page.Changes[0]["slot"] != float64(306306301) || page.Changes[0]["mint"] != mkUSDC {
		t.Fatalf("page 1 %s", c.raw)
	}
	c2 := h.get(t, fmt.Sprintf("/v1/assets/usd/changes?mint=%s&before=%d", mkUSDC, *page.NextBefore))
	var page2 struct {
		Changes    []map[string]any
		NextBefore *int64 `json:"nextBefore"`
	}
	json.Unmarshal([]byte(c2.raw), &page2)
	fields := []any{page.Changes[0]["field"]}
	if len(page2.Changes) == 1 {
		fields = append(fields, page2.Changes[0]["field"])
	}
	if len(page2.Changes) != 1 || page2.NextBefore != nil || !slices.Contains(fields, "mintAuthority") || !slices.Contains(fields, "freezeAuthority") {
		t.Errorf("page 2 %s (fields %v)", c2.raw, fields)
	}
	if r := h.get(t, "/v1/assets/usd/changes?since=x"); r.status != 400 || errCode(r) != "invalid_param" {
		t.Errorf("since=x: %d %s", r.status, r.raw)
	}
	if r := h.get(t, "/v1/assets/usd/changes?mint="+mkSOL); r.status != 400 || errCode(r) != "mint_not_variant" {
		t.Errorf("foreign mint: %d %s", r.status, r.raw)
	}
	r = post("read", fmt.Sprintf(`{"mints":[%q]}`, mkUSDC))
	json.Unmarshal([]byte(r.raw), &body)
	if ev := body.Verdicts[0].Warnings[0].Evidence; ev.Value != "BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG" || *ev.Slot != 306306301 {
		t.Errorf("verdict after the change %+v", ev)
	}
}

// TestRiskTakesChainCaps: a critical on-chain fact caps the risk score
// with its slot, in risk-details and the asset detail's risk include; the
// facts are visibly synthetic test values (the demo world's generator).
func TestRiskTakesChainCaps(t *testing.T) {
	h, _, snap := marketHarness(t)
	svc := onchain.New(onchain.Config{Store: &chainStore{}, Now: func() time.Time { return h.now }})
	h.srv.d.OnChain = svc
	facts := onchain.DemoFacts(snap.Assets())
	// The demo's transfer-fee mint (SOL itself scores fixed).
	var sol onchain.Facts
	for _, f := range facts {
		if f.Extensions.TransferFeeConfig != nil {
			sol = f
		}
	}
	a, _, ok := snap.VariantByMint(sol.Mint)
	if !ok {
		t.Fatal("no demo fee mint")
	}
	path := "/v1/assets/" + a.AssetID + "/risk-details?mint=" + sol.Mint
	before := h.get(t, path)
	sol.Slot, sol.Extensions.NonTransferable = 77, true
	if err := svc.Put(context.Background(), onchain.SourceDemo, sol); err != nil {
		t.Fatal(err)
	}
	r := h.get(t, path)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	rk := r.body["risk"].(map[string]any)
	caps, _ := rk["caps"].([]any)
	found := false
	for _, c := range caps {
		c := c.(map[string]any)
		if c["rule"] == "chain_non_transferable" && c["slot"] == float64(77) && c["max"] == float64(20) {
			found = true
		}
	}
	if !found {
		t.Errorf("no chain cap: before %s\nafter %s", before.raw, r.raw)
	}
}

// TestSnapshotRowsResolveDecimals: a market row of a mint the registry
// gives no decimals for takes the resolver's (a test resolver).
func TestSnapshotRowsResolveDecimals(t *testing.T) {
	h, _, _ := marketHarness(t)
	h.srv.d.Decimals = func(m string) (int, bool) { return 7, m == mkUnknown }
	r := h.postJSON(t, "/v1/assets/market-snapshots", fmt.Sprintf(`{"mints":[%q,%q]}`, mkUnknown, mkUSDC))
	var rows []snapshotRow
	if err := json.Unmarshal([]byte(r.raw), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%v %s", err, r.raw)
	}
	if rows[0].Decimals == nil || *rows[0].Decimals != 7 || rows[1].Decimals == nil || *rows[1].Decimals != 6 {
		t.Errorf("decimals %v %v", rows[0].Decimals, rows[1].Decimals)
	}
}
