package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/execution"
)

// The /v2/execution/* family (docs/execution.md): this file parses,
// charges the key's quote budget and writes; the rules live in
// internal/execution.

var amountRe = regexp.MustCompile(`^\d+(\.\d+)?$`)

// csvParam parses an optional CSV of values from allowed: trimmed,
// deduplicated, in the order of allowed. Absent gives nil; present but
// empty, or naming an unknown value, is a 400 listing the valid set.
func csvParam(q url.Values, name string, allowed []string) ([]string, error) {
	if !q.Has(name) {
		return nil, nil
	}
	var seen []string
	var unknown []string
	for _, raw := range q[name] {
		for _, p := range strings.Split(raw, ",") {
			p = strings.TrimSpace(p)
			switch {
			case p == "":
			case !slices.Contains(allowed, p):
				unknown = append(unknown, p)
			case !slices.Contains(seen, p):
				seen = append(seen, p)
			}
		}
	}
	if len(unknown) > 0 {
		return nil, badParam(name, "Unknown "+name+" value(s): "+strings.Join(unknown, ", ")+". Valid: "+strings.Join(allowed, ", "),
			apierr.Details{"allowed": allowed})
	}
	if len(seen) == 0 {
		return nil, badParam(name, name+" must name at least one value", apierr.Details{"allowed": allowed})
	}
	out := make([]string, 0, len(seen))
	for _, a := range allowed {
		if slices.Contains(seen, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// executionLinks is GET /v2/execution/links.
func (s *Server) executionLinks(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	mint, err := mintParam(q, "mint")
	if err != nil {
		return err
	}
	assetID := strings.TrimSpace(q.Get("assetId"))
	switch {
	case mint != "" && assetID != "":
		return badParam("mint", "Provide either mint or assetId, not both", nil)
	case mint == "" && assetID == "":
		return missingParam("mint", "Missing required query param: mint or assetId")
	}
	sell, err := mintParam(q, "sellMint")
	if err != nil {
		return err
	}
	req := execution.LinksRequest{Mint: mint, AssetID: assetID, SellMint: sell}
	if req.Venues, err = csvParam(q, "venues", execution.VenueIDs()); err != nil {
		return err
	}
	if req.Kinds, err = csvParam(q, "kinds", []string{execution.KindSwap}); err != nil {
		return err
	}
	if req.Amount = q.Get("amount"); q.Has("amount") && (!amountRe.MatchString(req.Amount) || strings.Trim(req.Amount, "0.") == "") {
		return badParam("amount", "Invalid amount: expected a positive decimal string", nil)
	}
	out, err := s.d.Execution.Links(req)
	if err != nil {
		return executionErr(err)
	}
	return writeJSON(w, http.StatusOK, out)
}

// executionEvaluate is GET /v2/execution/evaluate.
func (s *Server) executionEvaluate(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if strings.TrimSpace(q.Get("mint")) == "" {
		return missingParam("mint", "Missing required query param: mint")
	}
	mint, err := mintParam(q, "mint")
	if err != nil {
		return err
	}
	req := execution.EvaluateRequest{Mint: mint, Side: q.Get("side"), AmountsUSD: q["amountUsd"], TokenAmounts: q["tokenAmount"]}
	if req.Providers, err = csvParam(q, "providers", s.d.Execution.ProviderIDs()); err != nil {
		return err
	}
	plan, err := s.d.Execution.PlanEvaluate(req)
	if err != nil {
		return executionErr(err)
	}
	if err := s.chargeQuotes(w, r, plan.UpstreamQuotes()); err != nil {
		return err
	}
	// The answer carries the mint's pre-trade verdict (docs/onchain.md);
	// refusals stay the advisories' only.
	resp := s.d.Execution.Evaluate(r.Context(), plan)
	v := s.judgement().Verdict(mint)
	resp.Verdict = &v
	return writeJSON(w, http.StatusOK, resp)
}

// executionRoute is GET /v2/execution/route.
func (s *Server) executionRoute(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req := execution.RouteRequest{AssetID: strings.TrimSpace(q.Get("assetId")), Allocate: true}
	if req.AssetID == "" {
		return missingParam("assetId", "Missing required query param: assetId")
	}
	switch q.Get("side") {
	case "", execution.SideBuy:
	case execution.SideSell:
		return badParam("side", "side=sell is not supported: selling needs per-variant token amounts; use /v2/execution/evaluate with side=sell and tokenAmount", nil)
	default:
		return badParam("side", "Invalid side: only buy is supported", nil)
	}
	req.AmountUSD = execution.DefaultRouteUSD
	if s := q.Get("amountUsd"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || s[0] < '0' || s[0] > '9' || n < execution.MinAmountUSD || n > execution.MaxAmountUSD {
			return badParam("amountUsd", "Invalid amountUsd: whole dollars from 1 to 50000000", nil)
		}
		req.AmountUSD = n
	}
	var err error
	req.MaxVariants = execution.DefaultMaxVariants
	if s := q.Get("maxVariants"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > execution.MaxMaxVariants {
			return badParam("maxVariants", "Invalid maxVariants: an integer from 1 to 6", nil)
		}
		req.MaxVariants = n
	}
	switch q.Get("allocate") {
	case "", "true":
	case "false":
		req.Allocate = false
	default:
		return badParam("allocate", "Invalid allocate: expected true or false", nil)
	}
	if req.Providers, err = csvParam(q, "providers", s.d.Execution.ProviderIDs()); err != nil {
		return err
	}
	plan, err := s.d.Execution.PlanRoute(req)
	if err != nil {
		return executionErr(err)
	}
	if err := s.chargeQuotes(w, r, plan.UpstreamQuotes()); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.d.Execution.Route(r.Context(), plan))
}

// chargeQuotes charges n upstream quotes to the key's quote budget: 429
// with Retry-After when it cannot pay.
func (s *Server) chargeQuotes(w http.ResponseWriter, r *http.Request, n int) error {
	if s.d.QuoteBudget == nil || n == 0 {
		return nil
	}
	k := KeyFrom(r.Context())
	ok, after := s.d.QuoteBudget.Charge(r.Context(), k.ID, n, s.d.Now())
	if ok {
		return nil
	}
	secs := ceilSeconds(after)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	return apierr.Newf(apierr.RateLimited, "quote budget exhausted: %d upstream quotes per %s per key", s.d.QuoteBudget.Capacity, s.d.QuoteBudget.Window).
		WithDetails(apierr.Details{"code": "quote_budget", "retryAfterSeconds": secs, "cost": n})
}

// executionErr maps the execution service's errors to the API's: 400 with
// the parameter, 404, 403 AssetAdvisoryError with the advisory, 503 while
// advisories are not loaded.
func executionErr(err error) error {
	var pe *execution.ParamError
	var nf *execution.NotFoundError
	var ae *execution.AdvisoryError
	switch {
	case errors.As(err, &pe):
		return apierr.New(apierr.BadRequest, pe.Message).WithDetails(apierr.Details{"code": "invalid_param", "param": pe.Param})
	case errors.As(err, &nf):
		return apierr.New(apierr.NotFound, nf.Message)
	case errors.As(err, &ae):
		a := ae.Advisory
		return apierr.New(apierr.AssetAdvisory, ae.Error()).
			WithDetails(apierr.Details{"code": ae.Code(), "mint": ae.Mint, "status": a.Status, "reason": a.Reason, "url": a.URL})
	case errors.Is(err, execution.ErrAdvisoriesUnavailable):
		return apierr.New(apierr.Unavailable, execution.ErrAdvisoriesUnavailable.Error()).
			WithDetails(apierr.Details{"code": "advisories_unavailable"})
	}
	return err
}
