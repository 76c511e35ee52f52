package httpapi

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// versionedMarkets is a market cache that numbers its states and counts
// the Token reads.
type versionedMarkets struct {
	noMarkets
	price   map[string]float64
	version uint64
	reads   atomic.Int64
}

func (f *versionedMarkets) Token(m string) (market.Token, bool) {
	f.reads.Add(1)
	p, ok := f.price[m]
	if !ok {
		return market.Token{Mint: m}, false
	}
	mk := *fxMarket(1e6, 5e5, 100)
	mk.Price = &p
	mk.MetricsSource, mk.AsOf = asset.SourceMarketDataA, ip64(fxNow.Unix())
	mk.Volume1hUSD, mk.Trade1h, mk.UniqueWallet1h, mk.UniqueWallet24h = fp(1e4), fp(10), fp(5), fp(50)
	return market.Token{Mint: m, Market: mk}, true
}

func (f *versionedMarkets) Version() (uint64, uint64, bool) { return f.version, 0, true }

// versionedAdvisories flags mints and numbers its states.
type versionedAdvisories struct {
	flagged map[string]*asset.Advisory
	version uint64
}

func (a *versionedAdvisories) Get(m string) *asset.Advisory { return a.flagged[m] }
func (a *versionedAdvisories) Version() uint64              { return a.version }

// A market snapshot body is reused only for the same mints in the same
// order, within the second it was built, while the market, advisory and
// catalog versions hold; any of them moving rebuilds it.
func TestMarketSnapshotBodyReuse(t *testing.T) {
	h, _, _ := marketHarness(t)
	mk := &versionedMarkets{price: map[string]float64{mkSOL: 140, mkUSDC: 1}, version: 1}
	adv := &versionedAdvisories{flagged: map[string]*asset.Advisory{}, version: 1}
	clk := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h.srv.d.Markets, h.srv.d.Advisories, h.srv.d.Now = mk, adv, func() time.Time { return clk }

	post := func(mints ...string) string {
		t.Helper()
		r := h.postJSON(t, "/v1/assets/market-snapshots", `{"mints":["`+strings.Join(mints, `","`)+`"]}`)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		return r.raw
	}
	step := func(name string, wantReads int64, check func(body string) error, mints ...string) {
		t.Helper()
		before := mk.reads.Load()
		body := post(mints...)
		if got := mk.reads.Load() - before; got != wantReads {
			t.Errorf("%s: %d market reads, want %d", name, got, wantReads)
		}
		if err := check(body); err != nil {
			t.Errorf("%s: %v\n%s", name, err, body)
		}
	}
	has := func(subs ...string) func(string) error {
		return func(body string) error {
			for _, s := range subs {
				if !strings.Contains(body, s) {
					return fmt.Errorf("body lacks %s", s)
				}
			}
			return nil
		}
	}
	step("first", 2, has(`"price":140`, `"price":1`), mkSOL, mkUSDC)
	step("again", 0, has(`"price":140`), mkSOL, mkUSDC)
	step("other order", 2, func(b string) error {
		if strings.Index(b, mkUSDC) > strings.Index(b, mkSOL) {
			return fmt.Errorf("rows not in request order")
		}
		return nil
	}, mkUSDC, mkSOL)

	// A list that only joins like a cached one is validated, not served.
	if r := h.postJSON(t, "/v1/assets/market-snapshots", `{"mints":["`+mkSOL+`,`+mkUSDC+`"]}`); r.status != 400 {
		t.Errorf("one string holding two cached mints: %d %s, want 400", r.status, r.raw)
	}
	step("duplicates", 2, func(b string) error {
		if strings.Count(b, `"address"`) != 2 {
			return fmt.Errorf("want 2 rows")
		}
		return nil
	}, mkSOL, mkSOL, mkUSDC)

	mk.price[mkSOL] = 150
	step("market data moved, version held (within the second)", 0, has(`"price":140`), mkSOL, mkUSDC)
	mk.version++
	step("market version moved", 2, has(`"price":150`), mkSOL, mkUSDC)

	adv.flagged[mkSOL] = &asset.Advisory{Status: "caution", Reason: "synthetic test advisory"}
	adv.version++
	step("advisory version moved", 2, has(`"synthetic test advisory"`), mkSOL, mkUSDC)

	mk.price[mkSOL] = 160
	clk = clk.Add(time.Second)
	step("next second", 2, has(`"price":160`), mkSOL, mkUSDC)
	step("same second again", 0, has(`"price":160`), mkSOL, mkUSDC)

	// The same list in other bytes is found by the list; the exact bytes
	// of an answered body are kept as a key of their own.
	before := mk.reads.Load()
	other := "{ \"addresses\" : [ \"" + mkSOL + "\" , \"" + mkUSDC + "\" ] }"
	if r := h.postJSON(t, "/v1/assets/market-snapshots", other); r.status != 200 || !strings.Contains(r.raw, `"price":160`) {
		t.Errorf("same list, other bytes: %d %s", r.status, r.raw)
	}
	if got := mk.reads.Load() - before; got != 0 {
		t.Errorf("same list, other bytes: %d market reads, want 0", got)
	}
	dep, _ := h.srv.snapshotInputs()
	sec := uint64(clk.Unix())
	if h.srv.snapRaw.get(sec, dep, []byte(other)) == nil {
		t.Error("an answered body's bytes are not a key")
	}
	if h.srv.snapRaw.get(sec, dep, []byte(other+" ")) != nil {
		t.Error("other bytes found under an answered body's key")
	}

	// A refused body is refused every time.
	bad := `{"mints":["` + mkSOL + `","not-a-mint"]}`
	for i := range 2 {
		if r := h.postJSON(t, "/v1/assets/market-snapshots", bad); r.status != 400 {
			t.Errorf("invalid body, try %d: %d %s, want 400", i+1, r.status, r.raw)
		}
	}
}
