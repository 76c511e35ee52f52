package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/session"
)

// openapi is GET /openapi.json: the contract (api/openapi.yaml) as JSON,
// converted on first use and cached.
func (s *Server) openapi(w http.ResponseWriter, _ *http.Request) error {
	js, err := s.contract.JSON()
	if err != nil {
		return fmt.Errorf("openapi document: %w", err)
	}
	// Public routes set their own Cache-Control (wrap only does it for keyed ones).
	w.Header().Set("Cache-Control", cacheContract)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(js)
	return err
}

type healthBody struct {
	OK        bool   `json:"ok"`
	Simulated bool   `json:"simulated,omitempty"`
	Version   string `json:"version"`
}

// health is GET /v1/health: {"ok":true,"version":...}, plus
// "simulated":true when the market data is the built-in demo feed.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", noStore)
	return writeJSON(w, http.StatusOK, healthBody{OK: true, Simulated: s.d.Simulated, Version: s.d.Version})
}

// whoami is GET /v1/whoami: the identity of a session from the __session
// cookie or an Authorization: Bearer token.
func (s *Server) whoami(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", noStore)
	token := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			token = strings.TrimSpace(rest)
		}
	}
	if token == "" {
		if c, err := r.Cookie("__session"); err == nil {
			token = c.Value
		}
	}
	if token == "" {
		return &apierr.Error{Kind: apierr.SessionUnauthorized, Message: "Missing session"}
	}
	id, err := s.d.Sessions.Verify(r.Context(), token)
	if err != nil {
		if errors.Is(err, session.ErrInvalid) {
			return &apierr.Error{Kind: apierr.SessionUnauthorized, Message: "Invalid or expired session", Cause: err}
		}
		return apierr.Wrap(err)
	}
	return writeJSON(w, http.StatusOK, id)
}
