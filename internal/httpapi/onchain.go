package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/risk"
)

// MaxVerdictMints is the most mints of one verdicts call (after
// de-duplication).
const MaxVerdictMints = 100

// judgement assembles the verdict inputs from memory: the chain facts, the
// registry, the advisories and the market cache (docs/onchain.md).
func (s *Server) judgement() onchain.Judgement {
	j := onchain.Judgement{Facts: s.d.OnChain, Now: s.d.Now}
	if s.d.Catalog != nil {
		j.Registry = onchain.SnapshotRegistry(s.d.Catalog.Snapshot)
	}
	g := s.risk()
	j.Advisory = func(mint string) *onchain.AdvisoryRef {
		if s.d.Advisories == nil {
			return nil
		}
		a := s.d.Advisories.Get(mint)
		if a == nil {
			return nil
		}
		return &onchain.AdvisoryRef{Status: a.Status, Reason: a.Reason, Since: a.Since}
	}
	j.Liquidity = func(mint string) *float64 {
		if in := g.Input(mint); in.Market != nil {
			return in.Market.Liquidity
		}
		return nil
	}
	j.FirstSeen = func(mint string) int64 {
		if age := g.Input(mint).TokenAgeDays; age != nil {
			return s.d.Now().Add(-time.Duration(*age * float64(24*time.Hour))).UnixMilli()
		}
		return 0
	}
	if s.d.Curator != nil {
		j.Impersonation = s.impersonation
	}
	return j
}

// impersonation: a mint the registry does not list whose claimed symbol
// (its on-chain metadata, else the token index's) is protected by another
// asset (search-tokens' protected claims).
func (s *Server) impersonation(mint string) *onchain.Impersonation {
	if s.d.Catalog == nil {
		return nil
	}
	if listed, _, _ := onchain.SnapshotRegistry(s.d.Catalog.Snapshot).VerdictRegistry(mint); listed {
		return nil
	}
	sym := ""
	if _, f := s.d.OnChain.Lookup(mint); f != nil {
		switch {
		case f.Extensions.TokenMetadata != nil:
			sym = f.Extensions.TokenMetadata.Symbol
		case f.Metadata != nil:
			sym = f.Metadata.Symbol
		}
	}
	if sym == "" {
		if ix := s.d.Catalog.TokenIndex(); ix != nil {
			if t, ok := ix.Get(mint); ok {
				sym = t.Symbol
			}
		}
	}
	if sym == "" {
		return nil
	}
	if by, ok := s.d.Curator.Protected().Protects(sym); ok {
		return &onchain.Impersonation{Verdict: "impersonation", CollidesWith: by}
	}
	return nil
}

// POST /v1/assets/verdicts: the pre-trade verdict of each mint, in
// request order (docs/onchain.md).
func (s *Server) verdicts(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Mints []string `json:"mints"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Mints == nil {
		return missingParam("mints", "body must hold mints (an array of mint addresses)")
	}
	mints, bad := dedupeMints(body.Mints)
	if len(bad) > 0 {
		return invalidMints(bad)
	}
	if len(mints) > MaxVerdictMints {
		return apierr.Newf(apierr.BadRequest, "At most %d mints per call", MaxVerdictMints).
			WithDetails(apierr.Details{"code": "batch_too_large", "max": MaxVerdictMints})
	}
	key := ""
	if k := KeyFrom(r.Context()); k != nil {
		key = k.ID
	}
	return writeJSON(w, http.StatusOK, struct {
		Verdicts []onchain.Verdict `json:"verdicts"`
	}{s.judgement().Verdicts(key, mints)})
}

// changeRow is one change-log row of GET /v1/assets/{assetId}/changes.
type changeRow struct {
	Mint   string          `json:"mint"`
	Field  string          `json:"field"`
	Old    json.RawMessage `json:"old"`
	New    json.RawMessage `json:"new"`
	Slot   *int64          `json:"slot"`
	At     int64           `json:"at"`
	Source string          `json:"source"`
}

func rawOrNull(s string) json.RawMessage {
	if s == "" || !json.Valid([]byte(s)) {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}

// GET /v1/assets/{assetId}/changes[?mint=][&since=][&before=][&limit=]:
// the change log of the asset's mints (or of mint), newest first.
func (s *Server) assetChanges(w http.ResponseWriter, r *http.Request) error {
	res, err := s.pathAsset(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	mint, err := mintParam(q, "mint")
	if err != nil {
		return err
	}
	var mints []string
	switch {
	case mint != "":
		if !s.d.Catalog.HasVariant(res, mint) {
			return notVariant(mint, res.AssetID)
		}
		mints = []string{mint}
	case res.Asset != nil:
		for _, v := range res.Asset.Variants {
			mints = append(mints, v.Mint)
		}
	}
	since, err := msParam(q, "since")
	if err != nil {
		return err
	}
	before, err := msParam(q, "before")
	if err != nil {
		return err
	}
	limit, err := limitParam(q, "limit", 50, 1, 200)
	if err != nil {
		return err
	}
	rows := []changeRow{}
	var next *int64
	if s.d.OnChain != nil && len(mints) > 0 {
		ch, err := s.d.OnChain.Changes(r.Context(), mints, since, before, limit)
		if err != nil {
			return err
		}
		for _, c := range ch {
			row := changeRow{Mint: c.Mint, Field: c.Field, Old: rawOrNull(c.Old), New: rawOrNull(c.New), At: c.At, Source: c.Source}
			if c.Slot > 0 {
				sl := c.Slot
				row.Slot = &sl
			}
			rows = append(rows, row)
		}
		if len(ch) == limit {
			n := ch[len(ch)-1].Seq
			next = &n
		}
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID    string      `json:"assetId"`
		Changes    []changeRow `json:"changes"`
		NextBefore *int64      `json:"nextBefore"`
	}{res.AssetID, rows, next})
}

// msParam parses an optional non-negative integer (unix ms, or a cursor).
func msParam(q map[string][]string, name string) (int64, error) {
	v := ""
	if vs := q[name]; len(vs) > 0 {
		v = strings.TrimSpace(vs[0])
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, badParam(name, "Invalid "+name+": must be a non-negative integer", nil)
	}
	return n, nil
}

// resolveDecimals returns dec, or the resolver's decimals of mint when dec
// is nil.
func (s *Server) resolveDecimals(mint string, dec *int) *int {
	if dec != nil || s.d.Decimals == nil {
		return dec
	}
	if d, ok := s.d.Decimals(mint); ok {
		return &d
	}
	return nil
}

// chainCaps gives the risk model a mint's on-chain fact warnings (as caps,
// docs/onchain.md) and its top-10 holder share.
func (s *Server) chainCaps(mint string) ([]risk.ChainWarning, *float64) {
	j := onchain.Judgement{Facts: s.d.OnChain}
	if s.d.Catalog != nil {
		j.Registry = onchain.SnapshotRegistry(s.d.Catalog.Snapshot)
	}
	ws, share := j.FactWarnings(mint)
	out := make([]risk.ChainWarning, 0, len(ws))
	for _, w := range ws {
		out = append(out, risk.ChainWarning{Code: w.Code, Severity: w.Severity, Slot: *w.Evidence.Slot})
	}
	return out, share
}
