package execution

import (
	"math"
	"slices"
)

// Best-provider reasons of the evaluate summary.
const (
	ReasonMostWins      = "most_wins"
	ReasonAggregateEdge = "aggregate_edge"
	ReasonOnlyProvider  = "only_provider"
	ReasonTie           = "tie"
	ReasonNoComparison  = "no_comparison"
)

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	v := round2(s / float64(len(xs)))
	return &v
}

func medianOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := len(ys)
	v := ys[n/2]
	if n%2 == 0 {
		v = (ys[n/2-1] + ys[n/2]) / 2
	}
	v = round2(v)
	return &v
}

// evaluateMeta aggregates the rows. Wins and edges count contested sizes
// only (at least two providers quoted); a sole answer counts in
// soleQuotes.
func evaluateMeta(rows []*QuoteRow, ids []string, p *EvaluatePlan) EvaluateMeta {
	m := EvaluateMeta{Requested: len(rows), Deduped: p.deduped, UpstreamQuotes: len(rows) * len(ids),
		Limits: map[string]int{"maxAmounts": MaxAmounts, "maxProviders": p.configured}, ComparisonVersion: ComparisonVersion,
		AmountSource: p.source, TokenSource: "registry", ProviderStats: map[string]*ProviderStats{}, Warnings: []string{}}
	if len(ids) > 0 {
		m.TieBreak = ids[0]
	}
	if p.source == "default" {
		m.DefaultLadderUSD = DefaultLadderUSD
	}
	edges := map[string][]float64{}
	for _, id := range ids {
		m.ProviderStats[id] = &ProviderStats{}
	}
	var all []float64
	var maxEdge *float64
	for _, r := range rows {
		if r.Status == StatusAvailable {
			m.Available++
		} else {
			m.Unavailable++
		}
		for _, pq := range r.ProviderQuotes {
			st := m.ProviderStats[pq.Provider]
			if pq.Status == StatusAvailable {
				st.Quoted++
			} else {
				st.Unavailable++
			}
		}
		if r.Best == nil {
			continue
		}
		if r.Edge == nil {
			m.ProviderStats[r.Best.Provider].SoleQuotes++
			continue
		}
		m.Summary.ComparableEntries++
		m.ProviderStats[r.Best.Provider].Wins++
		edges[r.Best.Provider] = append(edges[r.Best.Provider], r.Edge.Bps)
		all = append(all, r.Edge.Bps)
		if maxEdge == nil || r.Edge.Bps > *maxEdge {
			v := r.Edge.Bps
			maxEdge = &v
			at := r.Request
			m.Summary.MaxEdgeAt = &at
		}
	}
	for id, st := range m.ProviderStats {
		st.MeanEdgeBps, st.MedianEdgeBps = mean(edges[id]), medianOf(edges[id])
	}
	m.Summary.MeanEdgeBps, m.Summary.MedianEdgeBps, m.Summary.MaxEdgeBps = mean(all), medianOf(all), maxEdge
	m.Summary.BestProvider, m.Summary.BestProviderReason = bestProvider(ids, m.ProviderStats, edges)
	for _, r := range rows {
		if r.Status == StatusUnavailable && r.Reason != nil && *r.Reason == ReasonTimeout {
			m.Warnings = append(m.Warnings, "quote_budget_exhausted")
			break
		}
	}
	return m
}

// bestProvider names the provider with the most wins; equal wins go to
// the larger summed edge, else it is a tie.
func bestProvider(ids []string, stats map[string]*ProviderStats, edges map[string][]float64) (*string, string) {
	quoted := 0
	var only string
	for _, id := range ids {
		if stats[id].Quoted > 0 {
			quoted++
			only = id
		}
	}
	if quoted == 1 && len(ids) == 1 {
		return &only, ReasonOnlyProvider
	}
	contested := 0
	for _, id := range ids {
		contested += stats[id].Wins
	}
	if contested == 0 {
		if quoted == 1 {
			return &only, ReasonOnlyProvider
		}
		return nil, ReasonNoComparison
	}
	best, tied := "", false
	for _, id := range ids {
		switch {
		case best == "" || stats[id].Wins > stats[best].Wins:
			best, tied = id, false
		case stats[id].Wins == stats[best].Wins:
			tied = true
		}
	}
	if !tied {
		return &best, ReasonMostWins
	}
	sum := func(id string) float64 {
		var s float64
		for _, e := range edges[id] {
			s += e
		}
		return s
	}
	best, tied = "", false
	for _, id := range ids {
		if stats[id].Wins == 0 {
			continue
		}
		switch {
		case best == "" || stats[id].Wins > stats[best].Wins || stats[id].Wins == stats[best].Wins && sum(id) > sum(best):
			best, tied = id, false
		case stats[id].Wins == stats[best].Wins && sum(id) == sum(best):
			tied = true
		}
	}
	if tied {
		return nil, ReasonTie
	}
	return &best, ReasonAggregateEdge
}
