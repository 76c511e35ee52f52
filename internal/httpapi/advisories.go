package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/lists"
)

// AdvisoryFeed is the advisory feed and the current advisories. Both are
// read from the store (like whoami's session lookup): the feed's cursor
// must hold across replicas and restarts, which only the store's order
// gives (docs/advisories.md "Feed").
type AdvisoryFeed interface {
	Events(ctx context.Context, since int64, limit int) ([]lists.AdvisoryEvent, int64, error)
	List(ctx context.Context) ([]lists.Advisory, error)
}

// Feed page bounds.
const (
	feedDefaultLimit = 100
	feedMaxLimit     = lists.MaxFeedPage
)

type advisoryEventJSON struct {
	Cursor string  `json:"cursor"`
	Mint   string  `json:"mint"`
	Action string  `json:"action"`
	Status string  `json:"status"`
	Reason string  `json:"reason"`
	URL    *string `json:"url"`
	Source string  `json:"source"`
	At     int64   `json:"at"`
}

type advisoryFeedJSON struct {
	Events     []advisoryEventJSON `json:"events"`
	NextCursor string              `json:"nextCursor"`
}

type currentAdvisoryJSON struct {
	Mint      string  `json:"mint"`
	Status    string  `json:"status"`
	Reason    string  `json:"reason"`
	URL       *string `json:"url"`
	Since     int64   `json:"since"`
	UpdatedAt int64   `json:"updatedAt"`
	Source    string  `json:"source"`
}

type currentAdvisoriesJSON struct {
	Advisories []currentAdvisoryJSON `json:"advisories"`
}

// cursorParam parses the opaque feed cursor: absent or "" is the start
// (0); anything but a non-negative decimal integer is a 400.
func cursorParam(r *http.Request, name string) (int64, error) {
	s := query(r).Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strings.TrimLeft(s, "0123456789") != "" { // digits only: no sign

		return 0, badParam(name, "Invalid "+name+": must be a cursor returned as nextCursor (a non-negative integer)", nil)
	}
	return n, nil
}

// advisoryFeed serves GET /v1/advisories: events after since, oldest first.
func (s *Server) advisoryFeed(w http.ResponseWriter, r *http.Request) error {
	since, err := cursorParam(r, "since")
	if err != nil {
		return err
	}
	limit, err := limitParam(query(r), "limit", feedDefaultLimit, 1, feedMaxLimit)
	if err != nil {
		return err
	}
	evs, next, err := s.d.AdvisoryFeed.Events(r.Context(), since, limit)
	if err != nil {
		return err
	}
	out := advisoryFeedJSON{Events: make([]advisoryEventJSON, len(evs)), NextCursor: strconv.FormatInt(next, 10)}
	for i, e := range evs {
		out.Events[i] = advisoryEventJSON{Cursor: strconv.FormatInt(e.Cursor, 10), Mint: e.Mint, Action: e.Action,
			Status: e.Status, Reason: e.Reason, URL: e.URL, Source: e.Source(), At: e.At}
	}
	return writeJSON(w, http.StatusOK, out)
}

// currentAdvisories serves GET /v1/advisories/current: every active advisory.
func (s *Server) currentAdvisories(w http.ResponseWriter, r *http.Request) error {
	all, err := s.d.AdvisoryFeed.List(r.Context())
	if err != nil {
		return err
	}
	out := currentAdvisoriesJSON{Advisories: make([]currentAdvisoryJSON, len(all))}
	for i, a := range all {
		out.Advisories[i] = currentAdvisoryJSON{Mint: a.Mint, Status: a.Status, Reason: a.Reason, URL: a.URL,
			Since: a.Since, UpdatedAt: a.UpdatedAt, Source: lists.SourceOf(a.SetBy)}
	}
	return writeJSON(w, http.StatusOK, out)
}
