package onchain

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/storage"
)

// memStore is an in-memory Store (the engines run the conformance suite).
type memStore struct {
	mu      sync.Mutex
	facts   map[string]storage.MintFacts
	changes []storage.MintChange
}

func (m *memStore) PutMintFacts(_ context.Context, rows []storage.MintFacts, changes []storage.MintChange) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.facts == nil {
		m.facts = map[string]storage.MintFacts{}
	}
	for _, r := range rows {
		m.facts[r.Mint] = r
	}
	for _, c := range changes {
		c.Seq = int64(len(m.changes) + 1)
		m.changes = append(m.changes, c)
	}
	return nil
}

func (m *memStore) ListMintFacts(context.Context) ([]storage.MintFacts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []storage.MintFacts
	for _, r := range m.facts {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Mint < out[j].Mint })
	return out, nil
}

func (m *memStore) MintChanges(_ context.Context, mints []string, since, before int64, limit int) ([]storage.MintChange, error) {
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

// recordedAccount is one recorded account value and the slot it was read at.
type recordedAccount struct {
	slot  uint64
	value json.RawMessage
}

// fakeCaller serves getMultipleAccounts from recorded account values
// (null for any other address) and counts calls per method.
type fakeCaller struct {
	mu       sync.Mutex
	accounts map[string]recordedAccount
	calls    map[string]int
	batches  []int
}

func (f *fakeCaller) Call(_ context.Context, method string, params []any, result any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
	switch method {
	case "getMultipleAccounts":
		keys := params[0].([]string)
		f.batches = append(f.batches, len(keys))
		var slot uint64
		vals := make([]json.RawMessage, len(keys))
		for i, k := range keys {
			a, ok := f.accounts[k]
			if !ok {
				vals[i] = json.RawMessage("null")
				continue
			}
			vals[i], slot = a.value, max(slot, a.slot)
		}
		b, _ := json.Marshal(map[string]any{"context": map[string]any{"slot": slot}, "value": vals})
		return json.Unmarshal(b, result)
	case "getTokenLargestAccounts":
		return fmt.Errorf("no recording")
	}
	return fmt.Errorf("unexpected method %s", method)
}

func (f *fakeCaller) record(mint string, slot uint64, v json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.accounts == nil {
		f.accounts = map[string]recordedAccount{}
	}
	f.accounts[mint] = recordedAccount{slot, v}
}

// syntheticUnknown is a made-up address no account exists at (test only).
const syntheticUnknown = "11111111111111111111111111111112"

const usdt = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"

type testRegistry map[string][2]string // mint → {category, issuer}

func (r testRegistry) VerdictRegistry(mint string) (bool, bool, string) {
	e, ok := r[mint]
	return ok, e[0] == "stablecoin", e[1]
}

func codes(v Verdict) map[string]Warning {
	out := map[string]Warning{}
	for _, w := range v.Warnings {
		out[w.Code] = w
	}
	return out
}

// TestVerdictsOnRecordedAccounts is the acceptance: a verdicts call
// over USDC, PYUSD, FLUX, a blocked mint and an unknown mint answers one
// row each with the expected codes, severities and evidence slots, and
// doNotTrade only where the rules say; a changed recorded fact appends its
// change-log rows and the next verdict shows it.
func TestVerdictsOnRecordedAccounts(t *testing.T) {
	fc := &fakeCaller{}
	// USDC first as the 2022 recording (old authorities), then the newer one.
	slot, v := rpcValue(t, readRecorded(t, "solana-swift/extracted/APIClientTests.swift--NetworkManagerMockJSON-getMultipleMintDatas--UNESCAPED.json"))
	var two []json.RawMessage
	if err := json.Unmarshal(v, &two); err != nil {
		t.Fatal(err)
	}
	fc.record(usdcMint, slot, two[0])
	fc.record(usdt, slot, two[1])
	for mint, file := range map[string]string{pyusd: pyusdFile, flux: fluxFile} {
		s, v := rpcValue(t, readRecorded(t, file))
		fc.record(mint, s, v)
	}
	store := &memStore{}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	svc := New(Config{Caller: fc, Store: store, Now: func() time.Time { return now }})
	ctx := context.Background()
	// One mint per read, so each keeps its recorded slot.
	for _, m := range []string{usdcMint, usdt, pyusd, flux, syntheticUnknown} {
		if err := svc.Read(ctx, []string{m}, nil); err != nil {
			t.Fatal(err)
		}
	}
	j := Judgement{
		Facts:    svc,
		Registry: testRegistry{usdcMint: {"stablecoin", "Circle"}, pyusd: {"stablecoin", "Paxos"}, usdt: {"stablecoin", "Tether"}},
		Advisory: func(m string) *AdvisoryRef {
			if m == usdt { // a test advisory, not a real one
				return &AdvisoryRef{Status: "blocked", Reason: "test advisory", Since: 1}
			}
			return nil
		},
		Now: func() time.Time { return now },
	}
	mints := []string{usdcMint, pyusd, flux, usdt, syntheticUnknown}
	got := j.Verdicts("key", mints)
	if len(got) != 5 {
		t.Fatalf("%d rows", len(got))
	}
	for i, v := range got {
		if v.Mint != mints[i] {
			t.Errorf("row %d is %s, want %s", i, v.Mint, mints[i])
		}
	}
	type want struct {
		code, sev string
		slot      uint64
	}
	for _, tc := range []struct {
		row        int
		status     string
		doNotTrade bool
		severity   string
		want       []want
		absent     []string
	}{
		{0, StatusOK, false, SeverityInfo, []want{{CodeMintAuthority, SeverityInfo, 132426903}, {CodeFreezeAuthority, SeverityInfo, 132426903}}, []string{CodeNotVerified, CodeTransferFee}},
		{1, StatusOK, false, SeverityInfo, []want{{CodeMintAuthority, SeverityInfo, 306340458}, {CodeFreezeAuthority, SeverityInfo, 306340458}, {CodePermanentDelegate, SeverityInfo, 306340458},
			{CodeTransferFee, SeverityInfo, 306340458}, {CodeTransferHook, SeverityInfo, 306340458}, {CodeMutableMetadata, SeverityInfo, 306340458}}, []string{CodeNotVerified}},
		{2, StatusOK, false, SeverityWarning, []want{{CodeTransferFee, SeverityWarning, 243351571}, {CodeNotVerified, SeverityWarning, 0}}, []string{CodeMintAuthority, CodeFreezeAuthority}},
		{3, StatusOK, true, SeverityCritical, []want{{CodeAdvisoryBlocked, SeverityCritical, 0}, {CodeMintAuthority, SeverityInfo, 132426903}}, nil},
		{4, StatusUnknownMint, true, SeverityCritical, []want{{CodeUnknownMint, SeverityCritical, 0}, {CodeNotVerified, SeverityWarning, 0}}, []string{CodeMintAuthority}},
	} {
		v := got[tc.row]
		if v.Status != tc.status || v.DoNotTrade != tc.doNotTrade || v.Severity != tc.severity {
			t.Errorf("%s: status %s doNotTrade %v severity %s; want %s %v %s", v.Mint, v.Status, v.DoNotTrade, v.Severity, tc.status, tc.doNotTrade, tc.severity)
		}
		cs := codes(v)
		for _, w := range tc.want {
			g, ok := cs[w.code]
			switch {
			case !ok:
				t.Errorf("%s: no %s in %+v", v.Mint, w.code, v.Warnings)
			case g.Severity != w.sev:
				t.Errorf("%s: %s severity %s, want %s", v.Mint, w.code, g.Severity, w.sev)
			case w.slot != 0 && (g.Evidence.Slot == nil || *g.Evidence.Slot != w.slot):
				t.Errorf("%s: %s evidence %+v, want slot %d", v.Mint, w.code, g.Evidence, w.slot)
			}
		}
		for _, c := range tc.absent {
			if _, ok := cs[c]; ok {
				t.Errorf("%s: unexpected %s", v.Mint, c)
			}
		}
	}
	if w := codes(got[0])[CodeMintAuthority]; w.Evidence.Issuer != "Circle" || w.Evidence.Value != "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9" {
		t.Errorf("USDC mint authority evidence %+v", w.Evidence)
	}
	if w := codes(got[2])[CodeTransferFee]; w.Evidence.Value.(map[string]any)["newerBps"] != uint16(300) {
		t.Errorf("FLUX fee evidence %+v", w.Evidence)
	}

	// The newer USDC recording rotates both authorities: two change rows
	// (one per changed fact) at the new slot, and the next verdict shows
	// the new authority with its slot.
	s2, v2 := rpcValue(t, readRecorded(t, usdcFile))
	fc.record(usdcMint, s2, v2)
	if err := svc.Read(ctx, []string{usdcMint}, nil); err != nil {
		t.Fatal(err)
	}
	ch, _ := svc.Changes(ctx, []string{usdcMint}, 0, 0, 10)
	if len(ch) != 2 || ch[0].Slot != 306306301 || ch[0].Source != SourceChain {
		t.Fatalf("changes %+v", ch)
	}
	byField := map[string]storage.MintChange{}
	for _, c := range ch {
		byField[c.Field] = c
	}
	if c := byField["mintAuthority"]; c.Old != `"2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9"` || c.New != `"BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG"` {
		t.Errorf("mintAuthority change %+v", c)
	}
	if _, ok := byField["freezeAuthority"]; !ok {
		t.Errorf("no freezeAuthority change: %+v", ch)
	}
	after := codes(j.Verdict(usdcMint))[CodeMintAuthority]
	if after.Evidence.Value != "BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG" || *after.Evidence.Slot != 306306301 {
		t.Errorf("verdict after change %+v", after.Evidence)
	}
	// Reading the same state again appends nothing.
	if err := svc.Read(ctx, []string{usdcMint}, nil); err != nil {
		t.Fatal(err)
	}
	if ch, _ := svc.Changes(ctx, nil, 0, 0, 10); len(ch) != 2 {
		t.Errorf("re-read appended: %+v", ch)
	}

	// A restarted service loads the same facts from the store.
	svc2 := New(Config{Store: store})
	if err := svc2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if st, f := svc2.Lookup(flux); st != StatusOK || f.Extensions.TransferFeeConfig.MaxBasisPoints() != 300 {
		t.Errorf("loaded FLUX %s %+v", st, f)
	}
	if st, _ := svc2.Lookup(syntheticUnknown); st != StatusUnknownMint {
		t.Errorf("loaded unknown %s", st)
	}
}

// TestReadBatchesAndBudget: scheduled reads go in batches of at most 100;
// on-demand reads of unread mints are capped per key and hour.
func TestReadBatchesAndBudget(t *testing.T) {
	fc := &fakeCaller{}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	svc := New(Config{Caller: fc, Store: &memStore{}, KeyBudget: 3, Now: func() time.Time { return now }})
	mints := make([]string, 250)
	for i := range mints {
		mints[i] = fmt.Sprintf("m%03d", i)
	}
	if err := svc.Read(context.Background(), mints, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fc.batches, []int{100, 100, 50}) {
		t.Errorf("batches %v", fc.batches)
	}
	if st, _ := svc.Lookup("m007"); st != StatusUnknownMint {
		t.Errorf("m007 %s", st)
	}
	if n := svc.Request("k", []string{"m001", "a", "b", "c", "d"}); n != 3 {
		t.Errorf("queued %d, want 3 (budget)", n)
	}
	if n := svc.Request("k", []string{"d"}); n != 0 {
		t.Errorf("over budget queued %d", n)
	}
	if n := svc.Request("other", []string{"d"}); n != 1 {
		t.Errorf("another key queued %d", n)
	}
	svc.ReadQueued(context.Background())
	if got := fc.batches[len(fc.batches)-1]; got != 4 {
		t.Errorf("queued batch %d", got)
	}
	now = now.Add(time.Hour)
	if n := svc.Request("k", []string{"e"}); n != 1 {
		t.Errorf("next hour queued %d", n)
	}
}

func TestJudgeRules(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	liq := 500.0
	for _, tc := range []struct {
		name       string
		f          Facts
		c          Context
		code, sev  string
		doNotTrade bool
	}{
		{"fee over bound", Facts{Extensions: Extensions{TransferFeeConfig: &TransferFeeConfig{Newer: TransferFee{BasisPoints: 1500}}}}, Context{Listed: true}, CodeTransferFee, SeverityCritical, true},
		{"pending fee counts", Facts{Extensions: Extensions{TransferFeeConfig: &TransferFeeConfig{Newer: TransferFee{Epoch: 9, BasisPoints: 200}}}}, Context{Listed: true}, CodeTransferFee, SeverityWarning, false},
		{"non-transferable", Facts{Extensions: Extensions{NonTransferable: true}}, Context{Listed: true}, CodeNonTransferable, SeverityCritical, true},
		{"default frozen", Facts{Extensions: Extensions{DefaultAccountState: "frozen"}}, Context{Listed: true}, CodeDefaultFrozen, SeverityCritical, true},
		{"default initialized is nothing", Facts{Extensions: Extensions{DefaultAccountState: "initialized"}}, Context{Listed: true}, "", SeverityNone, false},
		{"paused", Facts{Extensions: Extensions{PausableConfig: &PausableConfig{Paused: true}}}, Context{Listed: true}, CodePausable, SeverityCritical, true},
		{"pausable", Facts{Extensions: Extensions{PausableConfig: &PausableConfig{Authority: ptr("a")}}}, Context{Listed: true}, CodePausable, SeverityWarning, false},
		{"delegate outside the registry", Facts{Extensions: Extensions{PermanentDelegate: &PermanentDelegate{Delegate: ptr("d")}}}, Context{}, CodePermanentDelegate, SeverityCritical, false},
		{"hook program", Facts{Extensions: Extensions{TransferHook: &TransferHook{ProgramID: ptr("p")}}}, Context{Listed: true}, CodeTransferHook, SeverityWarning, false},
		{"concentration", Facts{Holders: &Holders{Top10Share: 0.8, Slot: 5}}, Context{Listed: true}, CodeHolderConcentrated, SeverityWarning, false},
		{"mutable metaplex", Facts{Metadata: &Metadata{IsMutable: true, Slot: 5}}, Context{Listed: true}, CodeMutableMetadata, SeverityInfo, false},
		{"mint authority", Facts{MintAuthority: ptr("a")}, Context{Listed: true}, CodeMintAuthority, SeverityWarning, false},
		{"low liquidity", Facts{}, Context{Listed: true, LiquidityUSD: &liq}, CodeLowLiquidity, SeverityWarning, false},
		{"new token", Facts{}, Context{Listed: true, FirstSeen: now.Add(-time.Hour).UnixMilli()}, CodeNewToken, SeverityWarning, false},
		{"caution", Facts{}, Context{Listed: true, Advisory: &AdvisoryRef{Status: "caution"}}, CodeAdvisoryCaution, SeverityWarning, false},
		{"compromised", Facts{}, Context{Listed: true, Advisory: &AdvisoryRef{Status: "compromised"}}, CodeAdvisoryCompromise, SeverityCritical, true},
		{"impersonation", Facts{}, Context{Listed: true, Impersonation: &Impersonation{Verdict: "impersonation", CollidesWith: "usdc"}}, CodeImpersonation, SeverityCritical, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			v := Judge("m", StatusOK, &f, tc.c, now)
			if v.DoNotTrade != tc.doNotTrade || v.Severity != tc.sev {
				t.Errorf("doNotTrade %v severity %s; want %v %s (%+v)", v.DoNotTrade, v.Severity, tc.doNotTrade, tc.sev, v.Warnings)
			}
			if tc.code == "" {
				if len(v.Warnings) != 0 {
					t.Errorf("warnings %+v", v.Warnings)
				}
				return
			}
			if w, ok := codes(v)[tc.code]; !ok || w.Severity != tc.sev {
				t.Errorf("%s: %+v", tc.code, v.Warnings)
			}
		})
	}
}

// TestRunReadsScheduledAndRequested: Run reads the scheduled mints at
// start and a requested mint when asked; without a Caller it returns.
func TestRunReadsScheduledAndRequested(t *testing.T) {
	if err := New(Config{}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	fc := &fakeCaller{}
	svc := New(Config{Caller: fc, Store: &memStore{}, Scheduled: func() []string { return []string{"s1", "s2"} }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	poll.For(t, time.Minute, "scheduled read", func() bool { st, _ := svc.Lookup("s2"); return st == StatusUnknownMint })
	if n := svc.Request("k", []string{"r1"}); n != 1 {
		t.Fatalf("queued %d", n)
	}
	poll.For(t, time.Minute, "requested read", func() bool { st, _ := svc.Lookup("r1"); return st == StatusUnknownMint })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestVersionMovesWithFacts: read models keyed on Version (list bodies,
// whose members' decimals resolve through the facts) see every change of
// the facts in memory: a Put and a Load each move it; a nil Service is 0.
func TestVersionMovesWithFacts(t *testing.T) {
	var none *Service
	if none.Version() != 0 {
		t.Fatal("nil Service: want version 0")
	}
	st := &memStore{}
	s := New(Config{Store: st})
	v0 := s.Version()
	d := 6
	if err := s.Put(context.Background(), "test", Facts{Mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", Decimals: d}); err != nil {
		t.Fatal(err)
	}
	v1 := s.Version()
	if v1 == v0 {
		t.Fatal("Put did not move the version")
	}
	if got, ok := s.Decimals("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"); !ok || got != d {
		t.Fatalf("decimals %d %v", got, ok)
	}
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Version() == v1 {
		t.Fatal("Load did not move the version")
	}
}
