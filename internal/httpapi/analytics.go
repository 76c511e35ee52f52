package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/market"
)

// Analytics is the trade analytics engine as the HTTP layer uses it.
type Analytics interface {
	Candles(mint string, iv market.Interval, from, to int64) []analytics.CandleRow
	Ingest(trades []analytics.Trade) analytics.IngestResult
	Trending(now time.Time, excluded func(mint string) bool) analytics.TrendingSet
}

// TradeIngester stores trades before the engine sees them
// (internal/ingest). An error means nothing of the batch is acknowledged.
type TradeIngester interface {
	Ingest(ctx context.Context, trades []analytics.Trade) (analytics.IngestResult, error)
}

// unavailable is a TradeIngester error saying the durable path (the NATS
// trade stream) cannot be reached: 503, retry.
type unavailable interface{ Unavailable() bool }

// Limits of the analytics endpoints.
const (
	// MaxCandlesPerRequest bounds (to − from) / interval of one OHLCV or
	// price-chart request.
	MaxCandlesPerRequest = 5000
	// DefaultCandleRange is the default span of from..to.
	DefaultCandleRange = 7 * 24 * time.Hour
	// MaxTradesPerIngest bounds the events of one POST /v1/internal/trades.
	MaxTradesPerIngest = 10_000
	// MaxTradeBodyBytes is the body limit of POST /v1/internal/trades.
	MaxTradeBodyBytes = 8 << 20
	// MaxTrendingLimit is the trending page size cap (and default).
	MaxTrendingLimit = analytics.TrendingLimit
	// maxIngestErrors bounds the per-event errors listed in an ingest
	// response (reasons counts them all).
	maxIngestErrors = 100
)

// trendingRow is one row of GET /v1/assets/trending.
type trendingRow struct {
	Rank     int                     `json:"rank"`
	AssetID  string                  `json:"assetId"`
	Mint     string                  `json:"mint"`
	Symbol   string                  `json:"symbol"`
	Name     string                  `json:"name"`
	Decimals *int                    `json:"decimals"`
	Category string                  `json:"category"`
	ImageURL *string                 `json:"imageUrl"`
	Market   analytics.WindowMetrics `json:"market"`
	Trending trendingScore           `json:"trending"`
	// Advisory is the mint's operator flag at serve time, null when not
	// flagged (only caution can show: blocked and compromised never trend).
	Advisory *asset.Advisory `json:"advisory"`
}

type trendingScore struct {
	Score          float64 `json:"score"`
	ScoringVersion string  `json:"scoringVersion"`
}

// trendingView is one computed trending set with its row metadata.
type trendingView struct {
	seq            uint64 // numbers the sets of one server, from 1
	asOf           *int64
	scoringVersion string
	rows           []trendingRow
}

// RefreshTrending recomputes the trending set at now and swaps it in. A
// run with no rows never replaces a non-empty set. Which mints may trend,
// and under which identity, is the catalog's decision (TrendIdentity).
func (s *Server) RefreshTrending(now time.Time) int {
	if s.d.Analytics == nil || s.d.Catalog == nil {
		return 0
	}
	ids := map[string]catalog.TrendIdentity{}
	set := s.d.Analytics.Trending(now, func(mint string) bool {
		id, ok := s.d.Catalog.TrendIdentity(mint, s.d.Markets)
		if ok {
			ids[mint] = id
		}
		return !ok
	})
	if len(set.Rows) == 0 {
		if cur := s.trending.Load(); cur != nil && len(cur.rows) > 0 {
			return len(cur.rows)
		}
	}
	v := &trendingView{seq: s.trendSeq.Add(1), scoringVersion: set.ScoringVersion, rows: make([]trendingRow, 0, len(set.Rows))}
	asOf := set.AsOf
	v.asOf = &asOf
	for _, r := range set.Rows {
		id, ok := ids[r.Mint]
		if !ok {
			continue // the engine only returns mints it asked about
		}
		row := trendingRow{Rank: r.Rank, AssetID: id.AssetID, Mint: r.Mint, Symbol: id.Symbol, Name: id.Name, Decimals: id.Decimals,
			Category: id.Category, ImageURL: id.ImageURL, Market: r.Market,
			Trending: trendingScore{Score: r.Score, ScoringVersion: set.ScoringVersion}}
		row.Market.Source, row.Market.MetricsSource = asset.SourceAnalyticsTrades, asset.SourceAnalyticsTrades
		v.rows = append(v.rows, row)
	}
	s.trending.Store(v)
	return len(v.rows)
}

// RunTrending refreshes the trending set now and every interval until ctx
// ends.
func (s *Server) RunTrending(ctx context.Context, every time.Duration) {
	s.RefreshTrending(s.d.Now())
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.RefreshTrending(s.d.Now())
		}
	}
}

// GET /v1/assets/trending
func (s *Server) trendingList(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	category, err := enumParam(q, "category", "", asset.Categories)
	if err != nil {
		return err
	}
	limit, err := limitParam(q, "limit", MaxTrendingLimit, 1, MaxTrendingLimit)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	v := s.trending.Load()
	build := func() any { return s.trendingBody(v, category, limit, offset) }
	av, ok := s.d.Advisories.(versioned)
	if !ok || v == nil {
		return writeJSON(w, http.StatusOK, build())
	}
	// Encoded once per trending set and advisory index version.
	var kb [64]byte
	key := append(kb[:0], category...)
	key = strconv.AppendInt(append(key, 0), int64(limit), 10)
	key = strconv.AppendInt(append(key, 0), int64(offset), 10)
	return serveVersioned(w, &s.trendBodies, v.seq<<32|av.Version()&0xffffffff, nil, key, build)
}

// trendingBody is the trending response of one normalised request over v
// (nil: no set yet).
func (s *Server) trendingBody(v *trendingView, category string, limit, offset int) any {
	type meta struct {
		Limit          int    `json:"limit"`
		Offset         int    `json:"offset"`
		Total          int    `json:"total"`
		AsOf           *int64 `json:"asOf"`
		ScoringVersion string `json:"scoringVersion"`
	}
	body := struct {
		Trending []trendingRow `json:"trending"`
		Meta     meta          `json:"meta"`
	}{Trending: []trendingRow{}, Meta: meta{Limit: limit, Offset: offset, ScoringVersion: analytics.ScoringVersion}}
	if v != nil && category != "stablecoin" {
		body.Meta.AsOf, body.Meta.ScoringVersion = v.asOf, v.scoringVersion
		// Advisories are read now: a mint flagged blocked or compromised
		// since the last run is hidden at once; the others are annotated.
		for i := range v.rows {
			row := &v.rows[i]
			if category != "" && row.Category != category {
				continue
			}
			adv := s.d.Advisories.Get(row.Mint)
			if catalog.HiddenFromTrending(adv) {
				continue
			}
			if body.Meta.Total >= offset && len(body.Trending) < limit {
				out := *row
				out.Advisory = adv
				body.Trending = append(body.Trending, out)
			}
			body.Meta.Total++
		}
	} else if v != nil {
		body.Meta.AsOf, body.Meta.ScoringVersion = v.asOf, v.scoringVersion
	}
	return body
}

var intervalNames = func() []string {
	out := make([]string, len(market.Intervals))
	for i, iv := range market.Intervals {
		out[i] = string(iv)
	}
	return out
}()

// candleQuery parses interval, from and to.
func (s *Server) candleQuery(r *http.Request) (market.Interval, int64, int64, error) {
	q := query(r)
	ivs, err := enumParam(q, "interval", "1H", intervalNames)
	if err != nil {
		return "", 0, 0, err
	}
	iv := market.Interval(ivs)
	now := s.d.Now().Unix()
	to, err := int64Param(q.Get("to"), "to", now)
	if err != nil {
		return "", 0, 0, err
	}
	from, err := int64Param(q.Get("from"), "from", to-int64(DefaultCandleRange/time.Second))
	if err != nil {
		return "", 0, 0, err
	}
	if from >= to {
		return "", 0, 0, badParam("from", "Invalid from: must be before to", apierr.Details{"from": from, "to": to})
	}
	if n := (to - from) / int64(iv.Duration()/time.Second); n > MaxCandlesPerRequest {
		return "", 0, 0, badParam("from", "Range too large: at most "+strconv.Itoa(MaxCandlesPerRequest)+" "+ivs+" candles per request",
			apierr.Details{"code": "range_too_large", "maxCandles": MaxCandlesPerRequest})
	}
	return iv, from, to, nil
}

var fillModes = []string{chart.FillNone, chart.FillPrevious}

// fillParam parses fill=none|previous (docs/prices.md).
func fillParam(r *http.Request) (string, error) {
	return enumParam(query(r), "fill", chart.FillNone, fillModes)
}

// FillLookbackBars is how many bars before from fill=previous looks back
// for the close an empty first period repeats.
const FillLookbackBars = 1000

// fillPrevious fills c's empty periods (chart.Service.FillPrevious); when
// its first period is empty, the close before it comes from read over the
// FillLookbackBars bars before from.
func (s *Server) fillPrevious(c chart.Chart, iv market.Interval, from, to int64, read func(from, to int64) chart.Chart) chart.Chart {
	d := int64(iv.Duration() / time.Second)
	first, ok := analytics.PeriodStart(iv, from)
	if first < from {
		first += d // the first period wholly in the range
	}
	if ok && (len(c.Candles) == 0 || c.Candles[0].Time > first) {
		if before := read(from-FillLookbackBars*d, from).Candles; len(before) > 0 {
			c.Candles = append(before[len(before)-1:len(before):len(before)], c.Candles...)
		}
	}
	return s.charts().FillPrevious(c, iv, from, to)
}

// GET /v1/assets/{assetId}/ohlcv
func (s *Server) ohlcv(w http.ResponseWriter, r *http.Request) error {
	res, mint, err := s.assetMint(r)
	if err != nil {
		return err
	}
	iv, from, to, err := s.candleQuery(r)
	if err != nil {
		return err
	}
	fill, err := fillParam(r)
	if err != nil {
		return err
	}
	c := s.charts().Mint(mint, iv, from, to)
	if fill == chart.FillPrevious {
		c = s.fillPrevious(c, iv, from, to, func(from, to int64) chart.Chart { return s.charts().Mint(mint, iv, from, to) })
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID  string          `json:"assetId"`
		Mint     string          `json:"mint"`
		Interval market.Interval `json:"interval"`
		From     int64           `json:"from"`
		To       int64           `json:"to"`
		Source   string          `json:"source"`
		Candles  []chart.Candle  `json:"candles"`
	}{res.AssetID, mint, iv, from, to, c.Source, c.Candles})
}

// ingestError is one rejected event of an ingest call.
type ingestError struct {
	Index int    `json:"index"`
	Code  string `json:"code"`
	Field string `json:"field,omitempty"`
}

// POST /v1/internal/trades
func (s *Server) ingestTrades(w http.ResponseWriter, r *http.Request) error {
	if s.d.Analytics == nil {
		return apierr.New(apierr.NotFound, "trade ingest is not enabled")
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt != "application/x-ndjson" && mt != "application/json" {
		return apierr.New(apierr.BadRequest, "Content-Type must be application/x-ndjson or application/json").
			WithDetails(apierr.Details{"code": "unsupported_content_type", "contentType": ct})
	}
	body := http.MaxBytesReader(w, r.Body, MaxTradeBodyBytes)
	var events [][]byte
	if mt == "application/json" {
		var raw []json.RawMessage
		dec := json.NewDecoder(body)
		if err := dec.Decode(&raw); err != nil {
			return bodyError(err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			if err != nil {
				return bodyError(err)
			}
			return apierr.New(apierr.BadRequest, "request body must hold a single JSON array").WithDetails(apierr.Details{"code": "invalid_json"})
		}
		if len(raw) > MaxTradesPerIngest {
			return tooManyEvents()
		}
		events = make([][]byte, len(raw))
		for i := range raw {
			events[i] = raw[i]
		}
	} else {
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 0, 64<<10), MaxTradeBodyBytes+1)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if len(events) == MaxTradesPerIngest {
				return tooManyEvents()
			}
			events = append(events, slices.Clone(line))
		}
		if err := sc.Err(); err != nil {
			return bodyError(err)
		}
	}
	if len(events) == 0 {
		return apierr.New(apierr.BadRequest, "request body holds no trade events").WithDetails(apierr.Details{"code": "no_events"})
	}
	out := struct {
		Accepted   int            `json:"accepted"`
		Duplicates int            `json:"duplicates"`
		Rejected   int            `json:"rejected"`
		Reasons    map[string]int `json:"reasons"`
		Errors     []ingestError  `json:"errors,omitempty"`
	}{Reasons: map[string]int{}}
	trades := make([]analytics.Trade, 0, len(events))
	for i, ev := range events {
		t, err := analytics.ParseTrade(ev)
		if err != nil {
			code := string(analytics.ReasonOf(err))
			if code == "" {
				code = string(analytics.ReasonMalformedJSON)
			}
			out.Rejected++
			out.Reasons[code]++
			if len(out.Errors) < maxIngestErrors {
				var ve *analytics.ValidationError
				field := ""
				if errors.As(err, &ve) {
					field = ve.Field
				}
				out.Errors = append(out.Errors, ingestError{Index: i, Code: code, Field: field})
			}
			continue
		}
		trades = append(trades, t)
	}
	if s.d.Trades != nil {
		// The ingester counts its own rejections; these are the events
		// that did not parse.
		s.d.Metrics.ObserveIngest(0, 0, out.Reasons)
	}
	if len(trades) > 0 {
		var res analytics.IngestResult
		if s.d.Trades != nil {
			var err error
			if res, err = s.d.Trades.Ingest(r.Context(), trades); err != nil {
				var un unavailable
				if errors.As(err, &un) && un.Unavailable() {
					return &apierr.Error{Kind: apierr.Unavailable, Message: "the trade stream is unavailable; none of the trades is acknowledged, retry the request",
						Details: apierr.Details{"code": "trade_stream_unavailable"}, Cause: err}
				}
				return &apierr.Error{Kind: apierr.Internal, Message: "the trades could not be stored; none of them is acknowledged, retry the request", Cause: err}
			}
		} else {
			res = s.d.Analytics.Ingest(trades)
		}
		out.Accepted, out.Duplicates = res.Accepted, res.Duplicates
		out.Rejected += res.Rejected
		for k, n := range res.Reasons {
			out.Reasons[k] += n
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

func tooManyEvents() error {
	return apierr.Newf(apierr.BadRequest, "at most %d trade events per request", MaxTradesPerIngest).
		WithDetails(apierr.Details{"code": "too_many_events", "max": MaxTradesPerIngest})
}

// TrendingMints returns the current trending set's mints in rank order
// (the event producer compares sets).
func (s *Server) TrendingMints() []string {
	v := s.trending.Load()
	if v == nil {
		return nil
	}
	out := make([]string, len(v.rows))
	for i, r := range v.rows {
		out[i] = r.Mint
	}
	return out
}
