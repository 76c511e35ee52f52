package httpapi

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// MarketData is the market cache as the market endpoints read it. Every
// method answers from memory at once; reads of missing or stale data
// schedule a background refresh.
type MarketData interface {
	Token(mint string) (market.Token, bool)
	DEXMarkets(mint string) ([]market.DEXMarket, time.Time, bool)
	ExecutionQuality(mint string) *asset.ExecutionQuality
	// MintCandles are the market-data provider's candles of a mint and
	// that provider's source name (the fallback of trade-derived OHLCV).
	MintCandles(mint string, iv market.Interval, from, to int64) ([]market.Candle, string, bool)
}

// noMarkets answers "nothing cached" for every read.
type noMarkets struct{}

func (noMarkets) Token(m string) (market.Token, bool) { return market.Token{Mint: m}, false }
func (noMarkets) DEXMarkets(string) ([]market.DEXMarket, time.Time, bool) {
	return nil, time.Time{}, false
}
func (noMarkets) ExecutionQuality(string) *asset.ExecutionQuality { return nil }
func (noMarkets) MintCandles(string, market.Interval, int64, int64) ([]market.Candle, string, bool) {
	return nil, "", false
}

// Limits of the batch market endpoints.
const (
	MaxSnapshotMints      = 250
	MaxVariantMarketMints = 50
)

func invalidMints(bad []string) error {
	return apierr.Newf(apierr.BadRequest, "Invalid mint(s): %s", strings.Join(bad, ", ")).
		WithDetails(apierr.Details{"code": "invalid_mint", "mints": bad})
}

// dedupeMints trims, drops empties and duplicates (keeping order) and
// collects the malformed ones.
func dedupeMints(in []string) (out, bad []string) {
	seen := make(map[string]bool, len(in))
	for _, m := range in {
		m = strings.TrimSpace(m)
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		if !registry.ValidMint(m) {
			bad = append(bad, m)
			continue
		}
		out = append(out, m)
	}
	return out, bad
}

// snapshotRow is one row of POST /v1/assets/market-snapshots, keyed by the
// requested address.
type snapshotRow struct {
	Address   string        `json:"address"`
	AssetID   string        `json:"assetId"`
	Symbol    *string       `json:"symbol"`
	Name      *string       `json:"name"`
	Decimals  *int          `json:"decimals"`
	LogoURI   *string       `json:"logoURI"`
	Market    *asset.Market `json:"market"`
	HasMarket bool          `json:"hasMarket"`
	// Advisory is the operator flag of the mint, null when not flagged.
	Advisory *asset.Advisory `json:"advisory"`
	// Status says why the market is what it is (asset.MarketStatus).
	Status string `json:"status"`
}

// POST /v1/assets/market-snapshots
func (s *Server) marketSnapshots(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Mints     []string `json:"mints"`
		Addresses []string `json:"addresses"`
	}
	rawBuf := bufPool.Get().(*bytes.Buffer)
	rawBuf.Reset()
	defer bufPool.Put(rawBuf)
	raw, readErr := readMintsBody(r, rawBuf)
	// A body built in this second from the same catalog, advisory and
	// market versions is sent again as it is, looked up first by the
	// request body's bytes (a client polling its list sends the same
	// bytes), then by the list as sent (length-prefixed, so unambiguous).
	// Only bodies and lists that validated are cached, so a hit needs
	// neither parsing nor validation.
	dep, cacheable := s.snapshotInputs()
	sec := uint64(s.d.Now().Unix())
	rawKey := cacheable && raw != nil && len(raw) <= maxSnapRawKey
	if rawKey {
		if e := s.snapRaw.get(sec, dep, raw); e != nil {
			return writeBody(w, http.StatusOK, e.plain, nil)
		}
	}
	if err := decodeReadMintsBody(w, r, raw, readErr, &body.Mints, &body.Addresses, &body); err != nil {
		return err
	}
	in := body.Mints
	if in == nil {
		in = body.Addresses
	}
	if in == nil {
		return missingParam("mints", "body must hold mints or addresses (an array of mint addresses)")
	}
	cacheable = cacheable && len(in) <= MaxSnapshotMints
	var key *bytes.Buffer
	if cacheable {
		key = bufPool.Get().(*bytes.Buffer)
		key.Reset()
		defer bufPool.Put(key)
		var n [binary.MaxVarintLen64]byte
		for _, m := range in {
			key.Write(n[:binary.PutUvarint(n[:], uint64(len(m)))])
			key.WriteString(m)
		}
		if e := s.snapBodies.get(sec, dep, key.Bytes()); e != nil {
			if rawKey {
				s.snapRaw.put(sec, string(raw), e)
			}
			return writeBody(w, http.StatusOK, e.plain, nil)
		}
	}
	mints, bad := dedupeMints(in)
	if len(bad) > 0 {
		return invalidMints(bad)
	}
	if len(mints) > MaxSnapshotMints {
		mints = mints[:MaxSnapshotMints]
	}
	// The body is each mint's cached row encoding concatenated, exactly
	// what encoding/json writes for the slice of rows.
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	buf.WriteByte('[')
	now := s.d.Now()
	for i, m := range mints {
		if i > 0 {
			buf.WriteByte(',')
		}
		in := snapInput{mint: m, advisory: s.d.Advisories.Get(m)}
		in.assetID, in.sym, in.name, in.dec = s.d.Catalog.VariantMeta(m)
		in.dec = s.resolveDecimals(m, in.dec)
		in.tok, in.hasTok = s.d.Markets.Token(m)
		in.setStatus(now)
		if !s.snapRows.appendRow(buf, &in) {
			return s.writeSnapshotRows(w, mints)
		}
	}
	buf.WriteString("]\n")
	if cacheable {
		e := newEncoded(bytes.Clone(buf.Bytes()))
		e.dep = dep
		s.snapBodies.put(sec, key.String(), e)
		if rawKey {
			s.snapRaw.put(sec, string(raw), e)
		}
	}
	return writeBody(w, http.StatusOK, buf.Bytes(), nil)
}

// maxSnapRawKey bounds the request bodies market-snapshots caches its
// answers under (MaxSnapshotMints mints of 44 characters, quoted and
// comma-separated, fit well within it).
const maxSnapRawKey = 32 << 10

// snapshotDeps are the versions a market snapshot body is built from.
type snapshotDeps struct {
	catalog, advisories, markets, analytics uint64
}

// marketVersioner is a market cache that numbers its states
// (marketcache.Cache.Version).
type marketVersioner interface {
	Version() (cache, analytics uint64, ok bool)
}

// snapshotInputs returns the versions of everything a snapshot row reads;
// false when one of them is not numbered (the body is then built per
// request).
func (s *Server) snapshotInputs() (any, bool) {
	mv, ok := s.d.Markets.(marketVersioner)
	if !ok {
		return nil, false
	}
	av, ok := s.d.Advisories.(versioned)
	if !ok {
		return nil, false
	}
	mc, ma, ok := mv.Version()
	if !ok {
		return nil, false
	}
	return snapshotDeps{catalog: s.d.Catalog.Version(), advisories: av.Version(), markets: mc, analytics: ma}, true
}

// writeSnapshotRows encodes the rows of mints with the general encoder
// (the path of a row holding a non-finite number).
func (s *Server) writeSnapshotRows(w http.ResponseWriter, mints []string) error {
	rows := make([]snapshotRow, len(mints))
	for i, m := range mints {
		in := snapInput{mint: m, advisory: s.d.Advisories.Get(m)}
		in.assetID, in.sym, in.name, in.dec = s.d.Catalog.VariantMeta(m)
		in.dec = s.resolveDecimals(m, in.dec)
		in.tok, in.hasTok = s.d.Markets.Token(m)
		in.setStatus(s.d.Now())
		rows[i] = in.row()
	}
	return writeJSON(w, http.StatusOK, rows)
}

func nonEmptyPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type variantMarketRow struct {
	Mint             string                  `json:"mint"`
	AssetID          *string                 `json:"assetId"`
	Chain            *string                 `json:"chain"`
	Market           *asset.Market           `json:"market"`
	ExecutionQuality *asset.ExecutionQuality `json:"executionQuality"`
	Advisory         *asset.Advisory         `json:"advisory"`
	Status           string                  `json:"status"`
}

// GET /v1/assets/variant-markets
func (s *Server) variantMarkets(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	raw := q.Get("mints")
	if raw == "" {
		raw = q.Get("addresses")
	}
	// Neither mints nor addresses: an empty list, as the public reference
	// answers (its deploy canary calls it that way).
	mints, bad := dedupeMints(strings.Split(raw, ","))
	if len(bad) > 0 {
		return invalidMints(bad)
	}
	if len(mints) > MaxVariantMarketMints {
		return badParam("mints", "at most 50 mints per call", apierr.Details{"max": MaxVariantMarketMints, "given": len(mints)})
	}
	chain := "solana"
	now := s.d.Now()
	rows := make([]variantMarketRow, len(mints))
	for i, m := range mints {
		assetID, _, _, _ := s.d.Catalog.VariantMeta(m)
		row := variantMarketRow{Mint: m, AssetID: &assetID, Chain: &chain, ExecutionQuality: s.d.Markets.ExecutionQuality(m),
			Advisory: s.d.Advisories.Get(m)}
		if tok, ok := s.d.Markets.Token(m); ok {
			mk := tok.Market
			row.Market = &mk
		}
		row.Status = asset.MarketStatus(assetID != registry.SingletonAssetID(m), row.Market, row.Advisory, now)
		rows[i] = row
	}
	return writeJSON(w, http.StatusOK, struct {
		Variants []variantMarketRow `json:"variants"`
	}{rows})
}

// assetMint resolves the path asset and the mint parameter (default: the
// primary variant by liquidity).
func (s *Server) assetMint(r *http.Request) (registry.Resolution, string, error) {
	res, err := s.pathAsset(r)
	if err != nil {
		return res, "", err
	}
	mint, err := mintParam(r.URL.Query(), "mint")
	if err != nil {
		return res, "", err
	}
	if mint != "" {
		if !s.d.Catalog.HasVariant(res, mint) {
			return res, "", notVariant(mint, res.AssetID)
		}
		return res, mint, nil
	}
	p := s.d.Catalog.Primary(res, asset.StrategyLiquidity)
	if p == nil {
		return res, "", apierr.New(apierr.NotFound, "No primary variant available")
	}
	return res, p.Mint, nil
}

func msPtr(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// GET /v1/assets/{assetId}/variant-market
func (s *Server) variantMarket(w http.ResponseWriter, r *http.Request) error {
	res, mint, err := s.assetMint(r)
	if err != nil {
		return err
	}
	body := struct {
		AssetID          string                  `json:"assetId"`
		Mint             string                  `json:"mint"`
		Market           *asset.Market           `json:"market"`
		ExecutionQuality *asset.ExecutionQuality `json:"executionQuality"`
		Advisory         *asset.Advisory         `json:"advisory"`
		LastUpdatedAt    *int64                  `json:"lastUpdatedAt"`
	}{AssetID: res.AssetID, Mint: mint, ExecutionQuality: s.d.Markets.ExecutionQuality(mint), Advisory: s.d.Advisories.Get(mint)}
	if tok, ok := s.d.Markets.Token(mint); ok {
		mk := tok.Market
		body.Market = &mk
		body.LastUpdatedAt = mk.LastFetchedAt
	}
	return writeJSON(w, http.StatusOK, body)
}

// tokenRef is a token inside a market row.
type tokenRef struct {
	Address string `json:"address"`
	Symbol  string `json:"symbol,omitempty"`
}

// marketRow is one DEX market (pool) of the markets endpoints.
type marketRow struct {
	Address   string   `json:"address"`
	Venue     string   `json:"venue"`
	Name      string   `json:"name"`
	Base      tokenRef `json:"base"`
	Quote     tokenRef `json:"quote"`
	Price     *float64 `json:"price"`
	Liquidity *float64 `json:"liquidity"`
	Volume24h *float64 `json:"volume24h"`
	Trade24h  *float64 `json:"trade24h"`
	URL       string   `json:"url,omitempty"`
	CreatedAt *int64   `json:"createdAt,omitempty"` // unix seconds
}

// protocolToken identifies a protocol-owned token in a pool.
type protocolToken struct {
	Address string  `json:"address"`
	Symbol  *string `json:"symbol"`
	Name    *string `json:"name"`
}

func toMarketRow(m market.DEXMarket) marketRow {
	name := m.BaseSymbol + "-" + m.QuoteSymbol
	if m.BaseSymbol == "" || m.QuoteSymbol == "" {
		name = m.Venue
	}
	return marketRow{Address: m.Address, Venue: m.Venue, Name: name, Base: tokenRef{m.BaseMint, m.BaseSymbol},
		Quote: tokenRef{m.QuoteMint, m.QuoteSymbol}, Price: m.PriceUSD, Liquidity: m.LiquidityUSD, Volume24h: m.Volume24hUSD,
		Trade24h: m.Trade24h, URL: m.URL, CreatedAt: m.CreatedAt}
}

// GET /v1/assets/{assetId}/markets
func (s *Server) assetMarkets(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	limit, err := limitParam(q, "limit", 10, 1, 50)
	if err != nil {
		return err
	}
	res, mint, err := s.assetMint(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID string `json:"assetId"`
		marketsPage
	}{res.AssetID, s.marketsPage(mint, offset, limit)})
}

// marketsPage is one page of a mint's cached DEX markets (the markets
// endpoint and the markets include block).
type marketsPage struct {
	Mint                   string                     `json:"mint"`
	Markets                []marketRow                `json:"markets"`
	ProtocolTokensByMarket map[string][]protocolToken `json:"protocolTokensByMarket"`
	Total                  int                        `json:"total"`
	Offset                 int                        `json:"offset"`
	Limit                  int                        `json:"limit"`
	LastUpdatedAt          *int64                     `json:"lastUpdatedAt"`
}

func (s *Server) marketsPage(mint string, offset, limit int) marketsPage {
	all, fetched, _ := s.d.Markets.DEXMarkets(mint)
	page := all[min(offset, len(all)):min(offset+limit, len(all))]
	rows := make([]marketRow, len(page))
	protocol := map[string][]protocolToken{}
	for i, m := range page {
		rows[i] = toMarketRow(m)
		for _, pt := range m.ProtocolTokens {
			_, sym, name, _ := s.d.Catalog.VariantMeta(pt)
			protocol[m.Address] = append(protocol[m.Address], protocolToken{Address: pt, Symbol: nonEmptyPtr(sym), Name: nonEmptyPtr(name)})
		}
	}
	return marketsPage{mint, rows, protocol, len(all), offset, limit, msPtr(fetched)}
}

type topMarketRow struct {
	Mint             string          `json:"mint"`
	Kind             string          `json:"kind"`
	LiquidityTier    string          `json:"liquidityTier"`
	TrustTier        string          `json:"trustTier"`
	Label            string          `json:"label,omitempty"`
	StockVariantTier string          `json:"stockVariantTier,omitempty"`
	Symbol           string          `json:"symbol,omitempty"`
	Name             string          `json:"name,omitempty"`
	Advisory         *asset.Advisory `json:"advisory"`
	TopMarket        *marketRow      `json:"topMarket"`
	MarketsTotal     *int            `json:"marketsTotal"`
	TotalLiquidity   *float64        `json:"totalLiquidity"`
	LastFetchedAt    *int64          `json:"lastFetchedAt"`
}

// GET /v1/assets/{assetId}/variant-top-markets
func (s *Server) variantTopMarkets(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	limit, err := limitParam(q, "limit", 10, 1, 100)
	if err != nil {
		return err
	}
	all, err := allParam(q, "variantsMode")
	if err != nil {
		return err
	}
	res, err := s.pathAsset(r)
	if err != nil {
		return err
	}
	variants, err := s.d.Catalog.Variants(res, catalog.VariantFilter{All: all, SortBy: asset.StrategyLiquidity})
	if err != nil {
		return apierr.Wrap(err)
	}
	rows := make([]topMarketRow, len(variants))
	var newest time.Time
	for i, v := range variants {
		row := topMarketRow{Mint: v.Mint, Kind: v.Kind, LiquidityTier: v.LiquidityTier, TrustTier: v.TrustTier, Label: v.Label,
			StockVariantTier: v.StockVariantTier, Symbol: v.Symbol, Name: v.Name, Advisory: s.d.Advisories.Get(v.Mint)}
		if ms, fetched, ok := s.d.Markets.DEXMarkets(v.Mint); ok {
			n := len(ms)
			row.MarketsTotal = &n
			row.LastFetchedAt = msPtr(fetched)
			if fetched.After(newest) {
				newest = fetched
			}
			sum := 0.0
			for _, m := range ms {
				if m.LiquidityUSD != nil {
					sum += *m.LiquidityUSD
				}
			}
			row.TotalLiquidity = &sum
			if v.Market != nil && v.Market.Liquidity != nil && *v.Market.Liquidity > 0 {
				row.TotalLiquidity = v.Market.Liquidity
			}
			if len(ms) > 0 {
				top := toMarketRow(ms[0]) // cached most liquid first
				row.TopMarket = &top
			}
		}
		rows[i] = row
	}
	// Top market liquidity desc (rows without one last), then mint.
	slices.SortStableFunc(rows, func(a, b topMarketRow) int {
		la, lb := -1.0, -1.0
		if a.TopMarket != nil && a.TopMarket.Liquidity != nil {
			la = *a.TopMarket.Liquidity
		}
		if b.TopMarket != nil && b.TopMarket.Liquidity != nil {
			lb = *b.TopMarket.Liquidity
		}
		switch {
		case la > lb:
			return -1
		case la < lb:
			return 1
		}
		return strings.Compare(a.Mint, b.Mint)
	})
	page := rows[min(offset, len(rows)):min(offset+limit, len(rows))]
	return writeJSON(w, http.StatusOK, struct {
		AssetID       string         `json:"assetId"`
		Total         int            `json:"total"`
		Offset        int            `json:"offset"`
		Limit         int            `json:"limit"`
		LastUpdatedAt *int64         `json:"lastUpdatedAt"`
		Variants      []topMarketRow `json:"variants"`
	}{res.AssetID, len(rows), offset, limit, msPtr(newest), page})
}
