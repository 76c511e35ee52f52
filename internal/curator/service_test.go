package curator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// fakeProvider answers one token for any query; fail makes it error.
type fakeProvider struct {
	calls atomic.Int64
	fail  atomic.Bool
}

const provMint = "Prov111111111111111111111111111111111111111"

func (f *fakeProvider) Search(ctx context.Context, q string, limit int) ([]market.TokenMeta, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return nil, errors.New("upstream down")
	}
	return []market.TokenMeta{{Mint: provMint, Symbol: "PROV\x00", Name: "Provider token"}, {Mint: "not a mint", Symbol: "X"}}, nil
}

// markets is a fixed market reader that records warming requests.
type markets struct {
	m      map[string]*asset.Market
	warmed atomic.Int64
}

func (m *markets) Market(mint string) *asset.Market                { return m.m[mint] }
func (m *markets) ExecutionQuality(string) *asset.ExecutionQuality { return nil }
func (m *markets) EnsureSnapshots(mints ...string)                 { m.warmed.Add(int64(len(mints))) }

func TestServiceProviderIsNeverAwaited(t *testing.T) {
	p := &fakeProvider{}
	mk := &markets{m: map[string]*asset.Market{}}
	var snap *registry.Snapshot
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Provider: p, Markets: mk, Now: func() time.Time { return now }})
	has := func(r Response) bool {
		for _, x := range r.Results {
			if x.Mint == provMint {
				return true
			}
		}
		return false
	}
	r := svc.Search(context.Background(), Request{Query: "PROV", Policy: PolicyDegen})
	if r.Sources.Provider != "degraded" || has(r) || r.Sources.DB != "degraded" {
		t.Fatalf("first search: %+v", r.Sources)
	}
	poll.For(t, 10*time.Second, "provider answer cached", func() bool {
		return svc.Search(context.Background(), Request{Query: "PROV", Policy: PolicyDegen}).Sources.Provider == "ok"
	})
	r = svc.Search(context.Background(), Request{Query: "prov", Policy: PolicyDegen}) // same normalised query
	if !has(r) || *r.Results[0].Claims.Symbol != "PROV" {
		t.Fatalf("cached provider answer not used or not cleaned: %+v", r.Results)
	}
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("provider called %d times for one query, want 1", n)
	}
	if mk.warmed.Load() == 0 {
		t.Error("candidates without market data were not scheduled for warming")
	}
}

func TestServiceSources(t *testing.T) {
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: provMint, Symbol: "IDX", Name: "Index token"})
	x := b.Build()
	svc := New(Config{Registry: func() *registry.Snapshot { return nil }, Index: func() *tokenindex.Index { return x }})
	r := svc.Search(context.Background(), Request{Query: "IDX", Policy: "nonsense"})
	if r.Sources != (Sources{Provider: "disabled", DB: "ok", Registry: "ok"}) || r.Policy != PolicyStrict ||
		r.PolicyVersion != PolicyVersion || r.ScoringVersion != ScoringVersion {
		t.Fatalf("response head: %+v", r)
	}
	if len(r.Suppressed) != 1 || r.Suppressed[0].Mint != provMint { // strict: no market data
		t.Fatalf("suppressed: %+v", r.Suppressed)
	}
}
