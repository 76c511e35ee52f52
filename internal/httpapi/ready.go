package httpapi

import (
	"context"
	"net/http"

	"github.com/assetd/assetd/internal/readiness"
)

// ReadinessChecker reports whether the service is ready for traffic.
type ReadinessChecker interface {
	Check(ctx context.Context) readiness.Report
}

// ready is GET /readyz: the readiness report, 200 when ready and 503
// until then (store, registry, market coverage; see docs/operations.md).
// Without a checker the server is ready once it serves.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", noStore)
	if s.d.Readiness == nil {
		return writeJSON(w, http.StatusOK, readiness.Report{Ready: true})
	}
	rep := s.d.Readiness.Check(r.Context())
	status := http.StatusOK
	if !rep.Ready {
		status = http.StatusServiceUnavailable
	}
	s.logReadiness(r.Context(), rep)
	return writeJSON(w, status, rep)
}

// logReadiness logs a change of readiness once, not every probe: WARN
// with the failing checks when the service becomes (or starts) not
// ready, INFO when it becomes ready again. The 503s themselves are
// access-logged at DEBUG (accessLevel).
func (s *Server) logReadiness(ctx context.Context, rep readiness.Report) {
	state := int32(readyStateNot)
	if rep.Ready {
		state = readyStateReady
	}
	prev := s.readyState.Swap(state)
	if prev == state || (prev == 0 && rep.Ready) {
		return
	}
	if rep.Ready {
		s.d.Log.InfoContext(ctx, "ready: /readyz answers 200")
		return
	}
	s.d.Log.WarnContext(ctx, "not ready: /readyz answers 503 until every check passes (logged once per change)",
		"store_ok", rep.Store.OK, "store_error", rep.Store.Error, "registry_assets", rep.Registry.Assets,
		"markets_ok", rep.Markets.OK, "market_coverage", rep.Markets.Coverage["any"], "min_coverage", rep.Markets.MinCoverage)
}

// readyState values (Server.readyState; 0: no probe yet).
const (
	readyStateNot   = 1
	readyStateReady = 2
)

// SimulatedHeader marks every response of a server whose market data is
// the built-in demo feed, so a capture cannot pass simulated numbers as
// real.
const SimulatedHeader = "X-Assetd-Simulated"

// withSimulated sets SimulatedHeader on every response when the market
// data is simulated.
func (s *Server) withSimulated(next http.Handler) http.Handler {
	if !s.d.Simulated {
		return next
	}
	key, val := http.CanonicalHeaderKey(SimulatedHeader), []string{"true"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[key] = val // shared: len == cap, never written into
		next.ServeHTTP(w, r)
	})
}
