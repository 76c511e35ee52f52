package ranking

import (
	"fmt"
	"slices"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

// sortedMints sorts a copy of rows in every input order and returns the
// mint order, failing when two input orders disagree.
func sortedMints(t *testing.T, rows []Row, sortBy string) []string {
	t.Helper()
	var first []string
	for p := range permutations(len(rows)) {
		in := make([]Row, len(rows))
		for i, j := range p {
			in[i] = rows[j]
		}
		SortVariants(in, sortBy)
		got := make([]string, len(in))
		for i, r := range in {
			got[i] = r.Mint
		}
		if first == nil {
			first = got
		} else if diff := cmp.Diff(first, got); diff != "" {
			t.Fatalf("order %v sorts differently (-first +this):\n%s", p, diff)
		}
	}
	return first
}

func TestSortVariants(t *testing.T) {
	withQ := func(score, vol float64, eligible bool) *asset.ExecutionQuality {
		return &asset.ExecutionQuality{ExecutionScore: score, Volume24hUSD: vol, IsEligibleForPrimary: eligible}
	}
	tests := []struct {
		name   string
		sortBy string
		rows   []Row
		want   []string
	}{
		{
			name:   "liquidity: desc, unknown last",
			sortBy: byLiq,
			rows: []Row{
				{Mint: "nil-market"},
				{Mint: "small", Market: active(1e3)},
				{Mint: "big", Market: active(5e6)},
				{Mint: "zero", Market: mkt(0, 1, 1)},
				{Mint: "nil-liq", Market: &asset.Market{Volume24hUSD: f(1e9)}},
			},
			want: []string{"big", "small", "zero", "nil-liq", "nil-market"},
		},
		{
			name:   "liquidity: tier, then volume, then mint",
			sortBy: byLiq,
			rows: []Row{
				{Mint: "d", Market: mkt(1e6, 10, 1)},
				{Mint: "c", Market: mkt(1e6, 10, 1)},
				{Mint: "low-vol", Market: mkt(1e6, 5, 1)},
				{Mint: "no-vol", Market: &asset.Market{Liquidity: f(1e6)}},
				{Mint: "tier1", Tier: asset.Tier1, Market: mkt(1e6, 1, 1)},
			},
			want: []string{"tier1", "c", "d", "low-vol", "no-vol"},
		},
		{
			name:   "unknown sortBy sorts by liquidity",
			sortBy: "bogus",
			rows: []Row{
				{Mint: "a", Market: active(1), StockVariantTier: share, Quality: withQ(99, 1, true)},
				{Mint: "b", Market: active(2)},
			},
			want: []string{"b", "a"},
		},
		{
			name:   "execution_quality",
			sortBy: byExec,
			rows: []Row{
				{Mint: "none-rich", Market: active(9e9)},
				{Mint: "none-poor", Market: active(1)},
				{Mint: "inelig-90", Market: active(5e6), Quality: withQ(90, 1e6, false)},
				{Mint: "elig-50", Market: active(5e6), Quality: withQ(50, 1e5, true)},
				{Mint: "elig-50-vol", Market: active(1), Quality: withQ(50, 2e5, true)},
				{Mint: "elig-80", Market: active(1), Quality: withQ(80, 1e4, true)},
				{Mint: "elig-50-liq", Market: active(6e6), Quality: withQ(50, 1e5, true)},
			},
			want: []string{"elig-80", "elig-50-vol", "elig-50-liq", "elig-50", "inelig-90", "none-rich", "none-poor"},
		},
		{
			name:   "stock_redeemability",
			sortBy: byStock,
			rows: []Row{
				{Mint: "missing-big", Market: active(9e9)},
				{Mint: "not-small", StockVariantTier: not, Market: active(1)},
				{Mint: "cash", StockVariantTier: cash, Market: active(5e6)},
				{Mint: "share-small", StockVariantTier: share, Market: active(1)},
				{Mint: "share-big", StockVariantTier: share, Market: active(2)},
			},
			want: []string{"share-big", "share-small", "cash", "missing-big", "not-small"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortedMints(t, tt.rows, tt.sortBy)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortVariantsIndex checks the back-reference: duplicate mints keep
// their Index order, and a caller can reorder its own rows with Index.
func TestSortVariantsIndex(t *testing.T) {
	type myRow struct{ name string }
	mine := []myRow{{"x"}, {"y"}, {"z"}, {"w"}}
	rows := []Row{
		{Index: 0, Mint: "dup", Market: active(1)},
		{Index: 1, Mint: "top", Market: active(3)},
		{Index: 2, Mint: "dup", Market: active(1)},
		{Index: 3, Mint: "mid", Market: active(2)},
	}
	slices.Reverse(rows)
	SortVariants(rows, byLiq)
	var got []string
	for _, r := range rows {
		got = append(got, mine[r.Index].name)
	}
	if diff := cmp.Diff([]string{"y", "w", "x", "z"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestCapLSTVariants(t *testing.T) {
	rows := func(liqs ...float64) []Row {
		out := make([]Row, len(liqs))
		for i, l := range liqs {
			out[i] = Row{Index: i, Mint: fmt.Sprintf("m%d", i), Market: active(l)}
		}
		return out
	}
	mints := func(rs []Row) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Mint
		}
		return out
	}
	t.Run("floor", func(t *testing.T) {
		in := append(rows(249_999.99, 300_000, 250_000, 1e6), Row{Index: 4, Mint: "m4"})
		got := mints(CapLSTVariants(in, "", false))
		if diff := cmp.Diff([]string{"m3", "m1", "m2"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("pinned below the floor is appended", func(t *testing.T) {
		got := mints(CapLSTVariants(rows(1e6, 10, 300_000, 20), "m3", false))
		if diff := cmp.Diff([]string{"m0", "m2", "m3"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("pinned already kept", func(t *testing.T) {
		got := mints(CapLSTVariants(rows(1e6, 10, 300_000), "m2", false))
		if diff := cmp.Diff([]string{"m0", "m2"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("unknown pin changes nothing", func(t *testing.T) {
		got := mints(CapLSTVariants(rows(1e6, 10), "nope", false))
		if diff := cmp.Diff([]string{"m0"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	// 600 rows above the floor, liquidity 1e6+i: the 500 most liquid are
	// m599..m100.
	many := make([]float64, 600)
	for i := range many {
		many[i] = 1e6 + float64(i)
	}
	t.Run("cap", func(t *testing.T) {
		got := CapLSTVariants(rows(many...), "", false)
		if len(got) != LSTMaxVariants || got[0].Mint != "m599" || got[499].Mint != "m100" {
			t.Errorf("got %d rows, first %s, last %s; want 500, m599, m100", len(got), got[0].Mint, got[len(got)-1].Mint)
		}
	})
	t.Run("pinned replaces the 500th", func(t *testing.T) {
		got := CapLSTVariants(rows(many...), "m7", false)
		if len(got) != LSTMaxVariants || got[498].Mint != "m101" || got[499].Mint != "m7" {
			t.Errorf("got %d rows, 499th %s, 500th %s; want 500, m101, m7", len(got), got[498].Mint, got[499].Mint)
		}
	})
	t.Run("variantsMode=all lifts everything", func(t *testing.T) {
		in := rows(10, 1e6, 20)
		got := CapLSTVariants(in, "", true)
		if diff := cmp.Diff([]string{"m0", "m1", "m2"}, mints(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
