package httpapi

import (
	"net/http"

	"github.com/assetd/assetd/internal/chainsource"
)

// GET /v1/internal/trades/source: the chain trade source's state, cursor,
// gaps and counts (docs/tradesource.md).
func (s *Server) tradeSource(w http.ResponseWriter, r *http.Request) error {
	if s.d.TradeSource == nil {
		return writeJSON(w, http.StatusOK, chainsource.Off())
	}
	return writeJSON(w, http.StatusOK, s.d.TradeSource())
}
