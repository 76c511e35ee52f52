package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Bounds of POST /v1/assets/price-history.
const (
	MaxPriceHistoryMints      = 100
	MaxPriceHistoryTimestamps = 100
)

// priceAtRow is one answer of price-at and price-history
// (docs/prices.md, "Price at a time").
type priceAtRow struct {
	AssetID  string           `json:"assetId"`
	Mint     string           `json:"mint"`
	TS       int64            `json:"ts"`
	Price    *float64         `json:"price"`
	At       *int64           `json:"at"`
	Interval *market.Interval `json:"interval"`
	Source   *string          `json:"source"`
	Status   string           `json:"status"`
}

func priceRows(assetID, mint string, singleton bool, pts []chart.PricePoint, out []priceAtRow) []priceAtRow {
	for _, p := range pts {
		st := p.Status
		if singleton && st == chart.PriceNoData {
			st = chart.PriceUnknownMint // not listed, nothing stored
		}
		out = append(out, priceAtRow{AssetID: assetID, Mint: mint, TS: p.TS, Price: p.Price, At: p.At, Interval: p.Interval, Source: p.Source, Status: st})
	}
	return out
}

// searchWidthParam parses searchWidth (seconds, 1..chart.MaxSearchWidth);
// 0 when absent (each interval's default).
func searchWidthParam(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > chart.MaxSearchWidth {
		return 0, badParam("searchWidth", "Invalid searchWidth: seconds, 1 to "+strconv.Itoa(chart.MaxSearchWidth), apierr.Details{"max": chart.MaxSearchWidth})
	}
	return n, nil
}

// GET /v1/assets/{assetId}/price-at
func (s *Server) priceAt(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	tsRaw := q.Get("ts")
	if tsRaw == "" {
		return missingParam("ts", "ts (unix seconds) is required")
	}
	ts, err := int64Param(tsRaw, "ts", 0)
	if err != nil {
		return err
	}
	width, err := searchWidthParam(q.Get("searchWidth"))
	if err != nil {
		return err
	}
	res, mint, err := s.assetMint(r)
	if err != nil {
		return err
	}
	rows := priceRows(res.AssetID, mint, res.Singleton(), s.charts().PriceAt(mint, []int64{ts}, width), nil)
	return writeJSON(w, http.StatusOK, rows[0])
}

// POST /v1/assets/price-history
func (s *Server) priceHistory(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Queries []struct {
			Mint       string  `json:"mint"`
			Timestamps []int64 `json:"timestamps"`
		} `json:"queries"`
		SearchWidth *int64 `json:"searchWidth"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Queries == nil {
		return missingParam("queries", `body must hold queries: [{"mint": ..., "timestamps": [...]}]`)
	}
	if len(body.Queries) > MaxPriceHistoryMints {
		return apierr.Newf(apierr.BadRequest, "at most %d queries (mints) per request", MaxPriceHistoryMints).
			WithDetails(apierr.Details{"code": "batch_too_large", "field": "queries", "max": MaxPriceHistoryMints})
	}
	var width int64
	if body.SearchWidth != nil {
		var err error
		if width, err = searchWidthParam(strconv.FormatInt(*body.SearchWidth, 10)); err != nil {
			return err
		}
	}
	n := 0
	var bad []string
	for i := range body.Queries {
		qr := &body.Queries[i]
		qr.Mint = strings.TrimSpace(qr.Mint)
		if !registry.ValidMint(qr.Mint) {
			bad = append(bad, qr.Mint)
		}
		if len(qr.Timestamps) > MaxPriceHistoryTimestamps {
			return apierr.Newf(apierr.BadRequest, "at most %d timestamps per query", MaxPriceHistoryTimestamps).
				WithDetails(apierr.Details{"code": "batch_too_large", "field": "timestamps", "max": MaxPriceHistoryTimestamps, "query": i})
		}
		for _, t := range qr.Timestamps {
			if t < 0 {
				return badParam("timestamps", "Invalid timestamp: must be unix seconds", apierr.Details{"query": i})
			}
		}
		n += len(qr.Timestamps)
	}
	if len(bad) > 0 {
		return invalidMints(bad)
	}
	rows := make([]priceAtRow, 0, n)
	cs := s.charts()
	for _, qr := range body.Queries {
		res, err := s.d.Catalog.ResolveMint(qr.Mint)
		assetID, singleton := res.AssetID, res.Singleton()
		if err != nil {
			assetID, singleton = registry.SingletonAssetID(qr.Mint), true
		}
		rows = priceRows(assetID, qr.Mint, singleton, cs.PriceAt(qr.Mint, qr.Timestamps, width), rows)
	}
	return writeJSON(w, http.StatusOK, struct {
		Prices []priceAtRow `json:"prices"`
	}{rows})
}
