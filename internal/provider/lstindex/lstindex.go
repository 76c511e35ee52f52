// Package lstindex implements market.LSTIndex from the Sanctum LST list:
// a local file or a URL serving the layout of sanctum-lst-list.json (an
// object with a "sanctum_lst_list" array, or the bare array). The list is
// cached for TTL; a failed refresh keeps serving the last good list, and
// a refresh that would shrink the list below MinRetain of its size is
// refused (the reference's "suspicious drop" guard).
package lstindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// Defaults.
const (
	DefaultTTL       = 6 * time.Hour
	DefaultMinRetain = 0.7
	// errorBackoff is the least time between two failing refreshes while
	// a last good list is served.
	errorBackoff = time.Minute
	// reservePool is the pool program of the list's wrapped-SOL entry,
	// which is not a liquid staking token.
	reservePool = "ReservePool"
)

// Config configures an Index. Exactly one of Path and URL is required.
type Config struct {
	// Path of a local file in the sanctum-lst-list.json layout.
	Path string
	// URL serving the same layout (fetched with GET).
	URL string
	// APIKey, optional, is sent as x-api-key with URL requests; it is
	// never logged.
	APIKey string
	// HTTPClient performs URL requests; nil means a new http.Client.
	HTTPClient *http.Client
	// Timeout bounds one fetch; 0 means 15 s.
	Timeout time.Duration
	// Logger; nil discards.
	Logger *slog.Logger
	// TTL is how long a loaded list is served before a refresh; 0 means
	// DefaultTTL.
	TTL time.Duration
	// MinRetain refuses a refresh whose entry count is below this
	// fraction of the current list (keeping the current one); 0 means
	// DefaultMinRetain, a negative value disables the guard.
	MinRetain float64
	// MaxBody caps the document size; 0 means 8 MiB.
	MaxBody int64
	// Now is the clock for the TTL; nil means time.Now.
	Now func() time.Time
}

// Index is a cached LST list. It is safe for concurrent use.
type Index struct {
	path      string
	http      *upstream.Client
	urlQuery  url.Values
	log       *slog.Logger
	ttl       time.Duration
	minRetain float64
	maxBody   int64
	now       func() time.Time

	sem chan struct{} // one refresh at a time; waiters honour ctx

	mu        sync.Mutex
	list      []market.LST
	loadedAt  time.Time
	nextTry   time.Time // after a failed refresh
	hasLoaded bool
}

var _ market.LSTIndex = (*Index)(nil)

const name = "lstindex"

// New validates cfg and returns an Index. Nothing is loaded until the
// first LSTs call.
func New(cfg Config) (*Index, error) {
	cfg.Path, cfg.URL = strings.TrimSpace(cfg.Path), strings.TrimSpace(cfg.URL)
	if (cfg.Path == "") == (cfg.URL == "") {
		return nil, errors.New("lstindex: exactly one of Path and URL is required")
	}
	if cfg.TTL < 0 {
		return nil, errors.New("lstindex: TTL must not be negative")
	}
	ix := &Index{
		path:      cfg.Path,
		ttl:       cfg.TTL,
		minRetain: cfg.MinRetain,
		maxBody:   cfg.MaxBody,
		now:       cfg.Now,
		log:       cfg.Logger,
		sem:       make(chan struct{}, 1),
	}
	if ix.ttl == 0 {
		ix.ttl = DefaultTTL
	}
	if ix.minRetain == 0 {
		ix.minRetain = DefaultMinRetain
	}
	if ix.maxBody <= 0 {
		ix.maxBody = upstream.DefaultMaxBody
	}
	if ix.now == nil {
		ix.now = time.Now
	}
	if ix.log == nil {
		ix.log = slog.New(slog.DiscardHandler)
	}
	if cfg.URL != "" {
		u, err := url.Parse(cfg.URL)
		if err != nil || u.Fragment != "" {
			return nil, fmt.Errorf("lstindex: URL %q is not a valid URL", cfg.URL)
		}
		h := http.Header{}
		if k := strings.TrimSpace(cfg.APIKey); k != "" {
			h.Set("x-api-key", k)
		}
		// The client's base is the URL without its query; the query goes
		// with each request.
		q := u.Query()
		u.RawQuery = ""
		hc, err := upstream.New(upstream.Options{
			Name:          name,
			BaseURL:       u.String(),
			HTTPClient:    cfg.HTTPClient,
			Timeout:       cfg.Timeout,
			Logger:        ix.log,
			Header:        h,
			SecretHeaders: []string{"x-api-key"},
			MaxBody:       ix.maxBody,
			Now:           ix.now,
		})
		if err != nil {
			return nil, err
		}
		ix.http = hc
		ix.urlQuery = q
	}
	return ix, nil
}

// LSTs returns the active liquid staking tokens in list order (the
// wrapped-SOL reserve entry excluded). It loads or refreshes the list when
// it is older than TTL; a failed refresh returns the last good list (and
// logs), and only fails when there is none.
func (ix *Index) LSTs(ctx context.Context) ([]market.LST, error) {
	if l, ok := ix.cached(false); ok {
		return l, nil
	}
	select {
	case ix.sem <- struct{}{}:
	case <-ctx.Done():
		if l, ok := ix.cached(true); ok {
			return l, nil
		}
		return nil, fmt.Errorf("lstindex: %w: %w", market.ErrUpstream, ctx.Err())
	}
	defer func() { <-ix.sem }()
	if l, ok := ix.cached(false); ok { // refreshed while we waited
		return l, nil
	}

	list, err := ix.load(ctx)
	now := ix.now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err == nil && ix.hasLoaded && ix.minRetain > 0 && float64(len(list)) < ix.minRetain*float64(len(ix.list)) {
		err = fmt.Errorf("lstindex: refusing a list of %d entries, below %.0f%% of the current %d (suspicious drop)",
			len(list), ix.minRetain*100, len(ix.list))
	}
	if err != nil {
		if !ix.hasLoaded {
			return nil, err
		}
		ix.nextTry = now.Add(min(ix.ttl, errorBackoff))
		ix.log.LogAttrs(ctx, slog.LevelWarn, "LST index refresh failed; serving the last good list",
			slog.String("provider", name), slog.Int("entries", len(ix.list)), slog.String("error", err.Error()))
		return slices.Clone(ix.list), nil
	}
	ix.list, ix.loadedAt, ix.hasLoaded, ix.nextTry = list, now, true, time.Time{}
	return slices.Clone(list), nil
}

// cached returns the list when it is fresh, or (stale) when any list is
// loaded, or while a failed refresh backs off.
func (ix *Index) cached(stale bool) ([]market.LST, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.hasLoaded {
		return nil, false
	}
	now := ix.now()
	if stale || now.Sub(ix.loadedAt) < ix.ttl || now.Before(ix.nextTry) {
		return slices.Clone(ix.list), true
	}
	return nil, false
}

func (ix *Index) load(ctx context.Context) ([]market.LST, error) {
	var body []byte
	if ix.http != nil {
		b, err := ix.http.Get(ctx, "", ix.urlQuery)
		if err != nil {
			return nil, err
		}
		body = b
	} else {
		b, err := readFile(ix.path, ix.maxBody)
		if err != nil {
			return nil, err
		}
		body = b
	}
	list, skipped, err := parseList(body)
	if err != nil {
		return nil, err
	}
	if skipped > 0 {
		ix.log.LogAttrs(ctx, slog.LevelDebug, "LST index entries skipped", slog.String("provider", name),
			slog.Int("skipped", skipped), slog.Int("entries", len(list)))
	}
	return list, nil
}

func readFile(path string, maxBody int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lstindex: %w: %w", market.ErrUpstream, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("lstindex: read %s: %w: %w", path, market.ErrUpstream, err)
	}
	if int64(len(b)) > maxBody {
		return nil, upstream.Malformed(name, path, fmt.Errorf("file exceeds %d bytes", maxBody))
	}
	return b, nil
}

type entry struct {
	Mint     string          `json:"mint"`
	Name     string          `json:"name"`
	Symbol   string          `json:"symbol"`
	LogoURI  string          `json:"logo_uri"`
	Decimals upstream.Number `json:"decimals"`
	Pool     struct {
		Program string `json:"program"`
	} `json:"pool"`
}

var errListShape = errors.New(`expected {"sanctum_lst_list": [...]} or an array of LSTs`)

// parseList decodes the list. Entries with a malformed mint or no
// decimals, the reserve-pool entry (wrapped SOL) and repeated mints are
// skipped and counted. A document without any usable entry is malformed.
func parseList(body []byte) (list []market.LST, skipped int, err error) {
	t := bytes.TrimSpace(body)
	var es []entry
	switch {
	case len(t) > 0 && t[0] == '[':
		if err := json.Unmarshal(t, &es); err != nil {
			return nil, 0, upstream.Malformed(name, "LST list", err)
		}
	case len(t) > 0 && t[0] == '{':
		var doc struct {
			List *[]entry `json:"sanctum_lst_list"`
		}
		if err := json.Unmarshal(t, &doc); err != nil {
			return nil, 0, upstream.Malformed(name, "LST list", err)
		}
		if doc.List == nil {
			return nil, 0, upstream.Malformed(name, "LST list", errListShape)
		}
		es = *doc.List
	default:
		return nil, 0, upstream.Malformed(name, "LST list", errListShape)
	}
	seen := make(map[string]bool, len(es))
	list = make([]market.LST, 0, len(es))
	for _, e := range es {
		mint := strings.TrimSpace(e.Mint)
		dec := e.Decimals.IntPtr()
		if !upstream.ValidMint(mint) || dec == nil || e.Pool.Program == reservePool || seen[mint] {
			skipped++
			continue
		}
		seen[mint] = true
		list = append(list, market.LST{
			Mint:     mint,
			Symbol:   e.Symbol,
			Name:     e.Name,
			Decimals: *dec,
			LogoURI:  e.LogoURI,
			Pool:     e.Pool.Program,
		})
	}
	if len(list) == 0 {
		return nil, skipped, upstream.Malformed(name, "LST list", errors.New("no usable entry"))
	}
	return list, skipped, nil
}
