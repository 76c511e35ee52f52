package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/curator"
)

// GET /v2/lists/search-tokens
func (s *Server) searchTokens(w http.ResponseWriter, r *http.Request) error {
	if s.d.Curator == nil {
		return apierr.New(apierr.NotFound, "curator search is not configured")
	}
	// The provider budget is charged first, as the reference does, and only
	// when a live provider can be asked.
	if s.d.Curator.HasProvider() {
		if err := s.spendBudget(w, r, "search", s.d.ListsConfig.SearchBudget); err != nil {
			return err
		}
	}
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("q"))
	if query == "" {
		return missingParam("q", "q is required: a symbol, name or mint address")
	}
	if utf8.RuneCountInString(query) > curator.MaxQueryLen {
		return badParam("q", "Query too long (max 100 characters)", apierr.Details{"max": curator.MaxQueryLen})
	}
	policy := q.Get("policy")
	if policy == "" {
		policy = curator.DefaultPolicy
	}
	if _, ok := curator.Policies[policy]; !ok {
		return badParam("policy", "Invalid policy: must be one of "+strings.Join(curator.PolicyNames, ", "),
			apierr.Details{"policies": curator.PolicyNames})
	}
	limit, err := intParam(q, "limit", curator.DefaultLimit, 1, curator.MaxLimit, true)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.d.Curator.Search(r.Context(), curator.Request{Query: query, Policy: policy, Limit: limit}))
}

// spendBudget charges the key's provider budget of kind and, when it is
// exhausted, sets Retry-After on the 429 it returns.
func (s *Server) spendBudget(w http.ResponseWriter, r *http.Request, kind string, n int) error {
	err := s.chargeBudget(r, kind, n)
	var e *apierr.Error
	if errors.As(err, &e) && e.Kind == apierr.RateLimited {
		if d, ok := e.Details.(apierr.Details); ok {
			if secs, ok := d["retryAfterSeconds"].(int64); ok {
				w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
			}
		}
	}
	return err
}
