package httpapi

import (
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
		if err := s.chargeBudget(r, "search", s.d.ListsConfig.SearchBudget); err != nil {
			return err
		}
	}
	q := query(r)
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
	limit, err := limitParam(q, "limit", curator.DefaultLimit, 1, curator.MaxLimit)
	if err != nil {
		return err
	}
	req := curator.Request{Query: query, Policy: policy, Limit: limit}
	deps, cacheable := s.searchDepsNow()
	if !cacheable {
		return writeJSON(w, http.StatusOK, s.d.Curator.Search(r.Context(), req))
	}
	start := s.d.Now()
	var kb [160]byte
	key := append(kb[:0], query...)
	key = append(append(key, 0), policy...)
	key = strconv.AppendInt(append(key, 0), int64(limit), 10)
	j := s.searchBodies.get(key, deps, start)
	if j == nil {
		// The judgment reads only the interpretation: another spelling of
		// the query (case, a leading $, confusables) shares it.
		in := curator.Interpret(query)
		var nb [160]byte
		nkey := append(append(append(nb[:0], in.Intent...), 0), in.NormalizedQuery...)
		nkey = strconv.AppendBool(append(nkey, 0), in.HadSuspiciousCharacters)
		nkey = append(append(append(nkey, 0), policy...), 0)
		nkey = strconv.AppendInt(nkey, int64(limit), 10)
		if nj := s.searchJudged.get(nkey, deps, start); nj != nil {
			j = nj.withQuery(query)
		}
		if j == nil {
			res := s.d.Curator.Search(r.Context(), req)
			if j = newJudged(deps, start, res); j == nil {
				return writeJSON(w, http.StatusOK, res)
			}
			if res.Sources.Provider == "degraded" {
				return j.write(w, latencyMs(s.d.Now().Sub(start)))
			}
			s.searchJudged.put(string(nkey), j)
		}
		s.searchBodies.put(string(key), j)
	}
	return j.write(w, latencyMs(s.d.Now().Sub(start)))
}
