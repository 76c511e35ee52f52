package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// resolveErr maps registry resolution errors to API errors.
func resolveErr(ref string, err error) error {
	switch {
	case errors.Is(err, registry.ErrInvalidMint):
		return apierr.Newf(apierr.BadRequest, "Invalid mint: %q is not a base58 32-byte address", ref).
			WithDetails(apierr.Details{"code": "invalid_mint", "ref": ref})
	case errors.Is(err, registry.ErrInvalidRef):
		return apierr.Newf(apierr.BadRequest, "Invalid asset reference %q", ref).
			WithDetails(apierr.Details{"code": "invalid_ref", "ref": ref})
	case errors.Is(err, registry.ErrNotFound):
		return apierr.Newf(apierr.NotFound, "Asset not found: %q", ref)
	}
	return apierr.Wrap(err)
}

func notVariant(mint, assetID string) error {
	return apierr.Newf(apierr.BadRequest, "`mint` must be a variant of this asset (%s)", assetID).
		WithDetails(apierr.Details{"code": "mint_not_variant", "mint": mint, "assetId": assetID})
}

// pathAsset resolves the {assetId} path segment.
func (s *Server) pathAsset(r *http.Request) (registry.Resolution, error) {
	ref := r.PathValue("assetId")
	res, err := s.d.Catalog.Resolve(ref)
	if err != nil {
		return res, resolveErr(ref, err)
	}
	return res, nil
}

// GET /v1/assets/resolve
func (s *Server) resolve(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	var res registry.Resolution
	var err error
	switch mint, ref := strings.TrimSpace(q.Get("mint")), q.Get("ref"); {
	case mint != "":
		if res, err = s.d.Catalog.ResolveMint(mint); err != nil {
			return apierr.Newf(apierr.BadRequest, "Invalid mint: %q is not a base58 32-byte address", mint).
				WithDetails(apierr.Details{"code": "invalid_mint", "param": "mint", "mint": mint})
		}
	case strings.TrimSpace(ref) != "":
		if res, err = s.d.Catalog.Resolve(ref); err != nil {
			return resolveErr(ref, err)
		}
	default:
		return missingParam("mint", "mint or ref is required")
	}
	return writeJSON(w, http.StatusOK, s.d.Catalog.ResolvedBody(res))
}

// Include blocks of asset detail (spec enumeration "include block").
var includeBlocks = []string{"profile", "risk", "ohlcv", "markets", "stablecoinHealth"}

var ohlcvIntervals = []string{"1m", "5m", "15m", "1H", "4H", "1D", "1W"}

type includeBlock struct {
	OK      bool   `json:"ok"`
	Data    any    `json:"data,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

type detailBody struct {
	Asset      *catalog.Detail         `json:"asset"`
	Includes   map[string]includeBlock `json:"includes,omitempty"`
	Resolution *catalog.Resolution     `json:"resolution,omitempty"`
}

// parseIncludes validates the comma-separated include list.
func parseIncludes(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out, invalid []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case !containsStr(includeBlocks, p):
			invalid = append(invalid, p)
		case !containsStr(out, p):
			out = append(out, p)
		}
	}
	if len(invalid) > 0 {
		return nil, apierr.Newf(apierr.BadRequest, "Invalid include: %s", strings.Join(invalid, ",")).
			WithDetails(apierr.Details{"code": "invalid_include", "param": "include", "allowed": includeBlocks, "invalid": invalid})
	}
	return out, nil
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// GET /v1/assets/{assetId}
func (s *Server) assetDetail(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	includes, err := parseIncludes(q.Get("include"))
	if err != nil {
		return err
	}
	strategy, err := enumParam(q, "primaryVariantStrategy", asset.StrategyLiquidity, asset.Strategies)
	if err != nil {
		return err
	}
	all, err := allParam(q, "variantsMode")
	if err != nil {
		return err
	}
	mint, err := mintParam(q, "mint")
	if err != nil {
		return err
	}
	ivs, err := enumParam(q, "ohlcvInterval", "1H", ohlcvIntervals)
	if err != nil {
		return err
	}
	now := s.d.Now().Unix()
	to, err := int64Param(q.Get("ohlcvTo"), "ohlcvTo", now)
	if err != nil {
		return err
	}
	from, err := int64Param(q.Get("ohlcvFrom"), "ohlcvFrom", to-7*86400)
	if err != nil {
		return err
	}
	if from >= to {
		return badParam("ohlcvFrom", "ohlcvFrom must be before ohlcvTo", nil)
	}
	iv := market.Interval(ivs)
	if step := int64(iv.Duration() / time.Second); (to-from)/step > MaxCandlesPerRequest {
		// Include blocks are best effort: a range longer than one request
		// serves keeps its most recent MaxCandlesPerRequest candles (the
		// block reports the from it used).
		from = to - MaxCandlesPerRequest*step
	}
	mOffset, err := offsetParam(q, "marketsOffset")
	if err != nil {
		return err
	}
	mLimit, err := limitParam(q, "marketsLimit", 10, 1, 50)
	if err != nil {
		return err
	}
	res, err := s.pathAsset(r)
	if err != nil {
		return err
	}
	d, err := s.d.Catalog.Detail(res, catalog.DetailOptions{Strategy: strategy, Mint: mint, VariantsAll: all})
	if errors.Is(err, catalog.ErrNotVariant) {
		return notVariant(mint, res.AssetID)
	}
	if err != nil {
		return apierr.Wrap(err)
	}
	body := detailBody{Asset: d.Asset, Resolution: d.Resolution}
	if len(includes) > 0 {
		body.Includes = s.computeIncludes(r, includes, includeParams{res: res, mint: d.Mint, explicitMint: mint != "",
			interval: iv, from: from, to: to, marketsOffset: mOffset, marketsLimit: mLimit})
	}
	if d.AssetJSON != nil {
		if len(includes) == 0 {
			return s.writeCachedDetail(w, r.PathValue("assetId"), strategy, mint, all, d.AssetJSON, d.Resolution)
		}
		return writeDetail(w, d.AssetJSON, body)
	}
	return writeJSON(w, http.StatusOK, body)
}

// writeDetail writes body as writeJSON would, byte for byte, but copies
// the asset object from the encoding the catalog cached with its model
// instead of encoding it again: encoding a large asset (dozens of
// variants with markets) dominated the cost of the request.
func writeDetail(w http.ResponseWriter, assetJSON []byte, body detailBody) error {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	buf.WriteString(`{"asset":`)
	buf.Write(assetJSON)
	if len(body.Includes) > 0 {
		b, err := json.Marshal(body.Includes)
		if err != nil {
			return fmt.Errorf("encode response: %w", err)
		}
		buf.WriteString(`,"includes":`)
		buf.Write(b)
	}
	if body.Resolution != nil {
		b, err := json.Marshal(body.Resolution)
		if err != nil {
			return fmt.Errorf("encode response: %w", err)
		}
		buf.WriteString(`,"resolution":`)
		buf.Write(b)
	}
	buf.WriteString("}\n")
	return writeBody(w, http.StatusOK, buf.Bytes(), nil)
}

// detailCacheEntries bounds the cached detail bodies (emptied when full).
const detailCacheEntries = 4096

// detailCache keeps the encoded body of each normalised detail request
// without includes (asset reference, strategy, mint, variantsMode), valid
// while the catalog hands out the same encoded asset object (the same
// bytes: an asset whose market data did not move keeps them across model
// versions) and the same resolution.
type detailCache struct {
	mu sync.RWMutex
	m  map[string]*detailEntry
}

type detailEntry struct {
	asset *byte // the catalog's encoded asset object, by identity
	n     int
	res   catalog.Resolution
	mint  string // res.Mint dereferenced
	byRes bool   // the body has a resolution block
	e     *encoded
}

func (x *detailEntry) matches(assetJSON []byte, res *catalog.Resolution) bool {
	if x.asset != &assetJSON[0] || x.n != len(assetJSON) || x.byRes != (res != nil) {
		return false
	}
	if res == nil {
		return true
	}
	m := ""
	if res.Mint != nil {
		m = *res.Mint
	}
	return x.res.Ref == res.Ref && x.res.ResolvedBy == res.ResolvedBy && x.res.AssetID == res.AssetID &&
		(x.res.Mint != nil) == (res.Mint != nil) && x.mint == m
}

// writeCachedDetail writes the detail body of assetJSON and res (what
// writeDetail writes without includes), encoding it once per normalised
// request and asset encoding.
func (s *Server) writeCachedDetail(w http.ResponseWriter, ref, strategy, mint string, all bool, assetJSON []byte, res *catalog.Resolution) error {
	if len(assetJSON) == 0 {
		return writeDetail(w, assetJSON, detailBody{Resolution: res})
	}
	var kb [192]byte
	key := append(kb[:0], ref...)
	key = append(key, 0)
	key = append(key, strategy...)
	key = append(key, 0)
	key = append(key, mint...)
	if all {
		key = append(key, 0, 'a')
	}
	c := &s.details
	c.mu.RLock()
	x := c.m[string(key)]
	c.mu.RUnlock()
	if x == nil || !x.matches(assetJSON, res) {
		var buf bytes.Buffer
		buf.Grow(len(assetJSON) + 128)
		buf.WriteString(`{"asset":`)
		buf.Write(assetJSON)
		if res != nil {
			b, err := json.Marshal(res)
			if err != nil {
				return fmt.Errorf("encode response: %w", err)
			}
			buf.WriteString(`,"resolution":`)
			buf.Write(b)
		}
		buf.WriteString("}\n")
		x = &detailEntry{asset: &assetJSON[0], n: len(assetJSON), byRes: res != nil, e: newEncoded(buf.Bytes())}
		if res != nil {
			x.res = *res
			if res.Mint != nil {
				x.mint = *res.Mint
			}
		}
		c.mu.Lock()
		if c.m == nil || len(c.m) >= detailCacheEntries {
			c.m = make(map[string]*detailEntry, 64)
		}
		c.m[string(key)] = x
		c.mu.Unlock()
	}
	return writeBody(w, http.StatusOK, x.e.plain, x.e)
}

func int64Param(s, name string, def int64) (int64, error) {
	if s == "" {
		return def, nil
	}
	var n int64
	for i, c := range []byte(s) {
		if c < '0' || c > '9' || i > 11 {
			return 0, badParam(name, "Invalid "+name+": must be unix seconds", nil)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

var tierValues = []string{asset.Tier1, asset.Tier2, asset.Tier3, asset.TierExperimental}

// GET /v1/assets/{assetId}/variants
func (s *Server) assetVariants(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	var f catalog.VariantFilter
	var err error
	if f.Kind, err = enumParam(q, "kind", "", asset.Kinds); err != nil {
		return err
	}
	lt, err := enumParam(q, "liquidityTier", "", tierValues)
	if err != nil {
		return err
	}
	tt, err := enumParam(q, "trustTier", "", tierValues)
	if err != nil {
		return err
	}
	lt, tt = normTier(lt), normTier(tt)
	if lt != "" && tt != "" && lt != tt {
		return badParam("trustTier", "liquidityTier and trustTier filters must match", nil)
	}
	f.LiquidityTier = lt + tt
	if lt != "" && tt != "" {
		f.LiquidityTier = lt
	}
	if f.StockVariantTier, err = enumParam(q, "stockVariantTier", "", asset.StockVariantTiers); err != nil {
		return err
	}
	if f.All, err = allParam(q, "variantsMode"); err != nil {
		return err
	}
	if f.SortBy, err = enumParam(q, "sortBy", asset.StrategyLiquidity, asset.Strategies); err != nil {
		return err
	}
	if f.Mint, err = mintParam(q, "mint"); err != nil {
		return err
	}
	res, err := s.pathAsset(r)
	if err != nil {
		return err
	}
	rows, err := s.d.Catalog.Variants(res, f)
	if errors.Is(err, catalog.ErrNotVariant) {
		return notVariant(f.Mint, res.AssetID)
	}
	if err != nil {
		return apierr.Wrap(err)
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID  string             `json:"assetId"`
		SortBy   string             `json:"sortBy"`
		Variants []*catalog.Variant `json:"variants"`
	}{res.AssetID, f.SortBy, rows})
}

// normTier maps the legacy "experimental" to tier3.
func normTier(t string) string {
	if t == asset.TierExperimental {
		return asset.Tier3
	}
	return t
}

// MaxSearchQuery is the longest q accepted by search.
const MaxSearchQuery = 200

// GET /v1/assets/search
//
// A query string answered before for the current catalog version and
// token index is served without parsing it again (keyed by its raw bytes,
// beside the normalised key every parse builds).
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	var dep any
	if x := s.d.Catalog.TokenIndex(); x != nil {
		dep = x
	}
	version := s.d.Catalog.Version()
	var rb [256]byte
	raw := append(append(rb[:0], "search-raw\x00"...), r.URL.RawQuery...)
	if e := s.bodies.get(version, dep, raw); e != nil {
		if rw, ok := w.(*recorder); ok && e.nonFinite != "" {
			rw.nonFinite = e.nonFinite
		}
		return writeBody(w, http.StatusOK, e.plain, e)
	}
	q := query(r)
	query := strings.TrimSpace(q.Get("q"))
	if query == "" {
		return missingParam("q", "Missing required query param: q")
	}
	if len(query) > MaxSearchQuery {
		return badParam("q", "q is longer than 200 characters", nil)
	}
	limit, err := limitParam(q, "limit", 20, 1, 50)
	if err != nil {
		return err
	}
	var category *string
	if c := q.Get("category"); c != "" {
		if !containsStr(catalog.Categories(), c) {
			return apierr.Newf(apierr.BadRequest, "Invalid category: %q", c).
				WithDetails(apierr.Details{"code": "invalid_category", "param": "category", "categories": catalog.Categories()})
		}
		category = &c
	}
	variants, err := allParam(q, "variants")
	if err != nil {
		return err
	}
	strategy, err := enumParam(q, "primaryVariantStrategy", asset.StrategyLiquidity, asset.Strategies)
	if err != nil {
		return err
	}
	o := catalog.SearchOptions{Query: query, Limit: limit, VariantsAll: variants, Strategy: strategy}
	if category != nil {
		o.Category = *category
	}
	var kb [320]byte
	key := append(kb[:0], "search\x00"...)
	key = append(key, query...)
	key = append(append(key, 0), o.Category...)
	key = append(append(key, 0), strategy...)
	key = strconv.AppendInt(append(key, 0), int64(limit), 10)
	key = strconv.AppendBool(append(key, 0), variants)
	// Search also reads the token index, which reloads on its own (dep,
	// read above with the version).
	err = serveVersioned(w, &s.bodies, version, dep, key, func() any {
		return struct {
			Query                  string        `json:"query"`
			Category               *string       `json:"category"`
			PrimaryVariantStrategy string        `json:"primaryVariantStrategy"`
			Results                []catalog.Row `json:"results"`
		}{query, category, strategy, s.d.Catalog.Search(o)}
	})
	if err == nil {
		if e := s.bodies.get(version, dep, key); e != nil {
			s.bodies.put(version, string(raw), e)
		}
	}
	return err
}

// curatedListAliases are legacy list ids accepted for compatibility.
var curatedListAliases = map[string]string{"stables": "currencies", "xstocks": "etfs"}

type pagination struct {
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	HasMore    bool `json:"hasMore"`
	NextOffset *int `json:"nextOffset"`
}

// GET /v1/assets/curated
func (s *Server) curated(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	list := q.Get("list")
	if a, ok := curatedListAliases[list]; ok {
		list = a
	}
	if list == "" {
		list = "all"
	}
	if !containsStr(asset.CuratedLists, list) {
		return badParam("list", "Invalid list: "+q.Get("list")+" (allowed: "+strings.Join(asset.CuratedLists, ", ")+")",
			map[string]any{"allowed": asset.CuratedLists})
	}
	groupBy, err := enumParam(q, "groupBy", "asset", []string{"asset", "mint"})
	if err != nil {
		return err
	}
	variants, err := allParam(q, "variants")
	if err != nil {
		return err
	}
	modeAll, err := allParam(q, "variantsMode")
	if err != nil {
		return err
	}
	strategy, err := enumParam(q, "primaryVariantStrategy", asset.StrategyLiquidity, asset.Strategies)
	if err != nil {
		return err
	}
	paged := q.Has("limit") || q.Has("offset")
	limit, err := limitParam(q, "limit", 250, 1, 500)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	var kb [128]byte
	key := append(kb[:0], "curated\x00"...)
	key = append(key, list...)
	key = append(append(key, 0), groupBy...)
	key = strconv.AppendBool(append(key, 0), variants)
	key = strconv.AppendBool(append(key, 0), modeAll)
	key = append(append(key, 0), strategy...)
	if paged {
		key = strconv.AppendInt(append(key, 0), int64(limit), 10)
		key = strconv.AppendInt(append(key, 0), int64(offset), 10)
	}
	return serveVersioned(w, &s.bodies, s.d.Catalog.Version(), nil, key, func() any {
		return s.curatedBody(list, groupBy, variants, modeAll, strategy, paged, limit, offset)
	})
}

// curatedBody is the curated response of one normalised request.
func (s *Server) curatedBody(list, groupBy string, variants, modeAll bool, strategy string, paged bool, limit, offset int) any {
	rows, _ := s.d.Catalog.Curated(catalog.CuratedOptions{List: list, ByMint: groupBy == "mint", VariantsAll: variants && groupBy == "asset",
		AllVariants: modeAll, Strategy: strategy})
	body := struct {
		ListID                 string        `json:"listId"`
		PrimaryVariantStrategy string        `json:"primaryVariantStrategy"`
		Pagination             *pagination   `json:"pagination,omitempty"`
		Assets                 []catalog.Row `json:"assets"`
	}{ListID: list, PrimaryVariantStrategy: strategy, Assets: rows}
	if paged {
		p := &pagination{Offset: offset, Limit: limit, Total: len(rows)}
		start := min(offset, len(rows))
		end := min(start+limit, len(rows))
		body.Assets = rows[start:end]
		if end < len(rows) {
			p.HasMore = true
			p.NextOffset = &end
		}
		body.Pagination = p
	}
	return body
}
