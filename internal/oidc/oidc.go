// Package oidc verifies JWTs issued by an external OpenID Connect issuer
// (Clerk, Auth0, Keycloak, ...) against the issuer's JWKS and maps their
// claims to a session.Identity.
//
// Keys are discovered through {issuer}/.well-known/openid-configuration,
// cached in memory and refreshed
//   - every Config.RefreshInterval, in the background of the first Verify
//     that notices the cache is stale (verification keeps using the cached
//     keys meanwhile, and keeps them if the refresh fails);
//   - when a token names a kid the cache does not hold, in which case Verify
//     waits for the refetch.
//
// At most one fetch runs at a time (concurrent callers share it) and a fetch
// starts at most once per Config.MinRefreshGap, so tokens with forged kids
// cannot make the verifier hammer the issuer. See docs/sessions.md.
package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/assetd/assetd/internal/session"
)

// Leeway is the clock skew tolerated when checking exp, nbf and iat.
const Leeway = 30 * time.Second

const (
	defaultRefreshInterval = time.Hour
	defaultMinRefreshGap   = 30 * time.Second
	// fetchTimeout bounds one discovery + JWKS fetch.
	fetchTimeout = 10 * time.Second
	// maxDocBytes bounds the discovery document and the JWKS.
	maxDocBytes = 1 << 20
	// maxTokenBytes rejects absurd tokens before any parsing.
	maxTokenBytes = 16 << 10
)

// ErrIssuerMismatch is returned by New when the discovery document names a
// different issuer than the configured one (often a trailing slash).
var ErrIssuerMismatch = errors.New("discovery issuer does not match configured issuer")

// ErrKeysUnavailable is wrapped (together with session.ErrInvalid) by Verify
// when no key set could be loaded from the issuer yet, so callers may tell
// an issuer outage from a bad token.
var ErrKeysUnavailable = errors.New("issuer keys unavailable")

// Config configures a Verifier.
type Config struct {
	// Issuer is the issuer URL (required, http or https); tokens' iss must
	// equal it exactly, as must the discovery document's issuer.
	Issuer string
	// Audience, when set, must be one of the token's aud values.
	Audience string
	// HTTPClient fetches discovery and JWKS (default: a client with a 10s
	// timeout).
	HTTPClient *http.Client
	// Now returns the current time (default time.Now); for tests.
	Now func() time.Time
	// Logger receives refresh logs (default: discarded).
	Logger *slog.Logger
	// RefreshInterval is the age after which cached keys are refetched
	// (default 1h).
	RefreshInterval time.Duration
	// MinRefreshGap is the minimum time between two fetch attempts, whatever
	// triggers them (default 30s).
	MinRefreshGap time.Duration
}

// Verifier verifies issuer JWTs. It implements session.Verifier and is safe
// for concurrent use.
type Verifier struct {
	issuer       string
	discoveryURL string
	client       *http.Client
	now          func() time.Time
	log          *slog.Logger
	refresh      time.Duration
	minGap       time.Duration
	parser       *jwt.Parser

	mu          sync.Mutex
	keys        *keySet // nil until the first successful fetch
	jwksURI     string  // "" until discovered; reset when a fetch fails
	fetchedAt   time.Time
	lastAttempt time.Time // zero: the next Verify may fetch at once
	inflight    *fetch

	// waiting, when set (tests), is called whenever a Verify is about to
	// wait for a fetch.
	waiting func()
}

// fetch is one in-flight discovery + JWKS fetch shared by its waiters.
type fetch struct {
	done chan struct{}
	err  error // set before done is closed
}

var _ session.Verifier = (*Verifier)(nil)

// New validates cfg and loads the issuer's keys. If the issuer cannot be
// reached or serves unusable documents, New logs the failure and returns a
// working Verifier anyway: the first Verify retries the fetch, and later
// attempts are spaced by MinRefreshGap. New fails on an invalid Config, and
// when the issuer answers with a discovery document for a different issuer
// (ErrIssuerMismatch), which no retry can fix.
func New(ctx context.Context, cfg Config) (*Verifier, error) {
	if err := validateIssuer(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("oidc: %w", err)
	}
	if cfg.RefreshInterval < 0 {
		return nil, fmt.Errorf("oidc: refresh interval %s is negative", cfg.RefreshInterval)
	}
	if cfg.MinRefreshGap < 0 {
		return nil, fmt.Errorf("oidc: min refresh gap %s is negative", cfg.MinRefreshGap)
	}
	v := &Verifier{
		issuer:       cfg.Issuer,
		discoveryURL: strings.TrimSuffix(cfg.Issuer, "/") + "/.well-known/openid-configuration",
		client:       cfg.HTTPClient,
		now:          cfg.Now,
		log:          cfg.Logger,
		refresh:      cfg.RefreshInterval,
		minGap:       cfg.MinRefreshGap,
	}
	if v.client == nil {
		v.client = &http.Client{Timeout: fetchTimeout}
	}
	if v.now == nil {
		v.now = time.Now
	}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	v.log = v.log.With("issuer", v.issuer)
	if v.refresh == 0 {
		v.refresh = defaultRefreshInterval
	}
	if v.minGap == 0 {
		v.minGap = defaultMinRefreshGap
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(supportedAlgs()),
		jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(v.now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithIssuer(v.issuer),
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v.parser = jwt.NewParser(opts...)

	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	ks, uri, err := v.fetchKeys(fctx, "")
	if errors.Is(err, ErrIssuerMismatch) {
		return nil, fmt.Errorf("oidc: %w", err)
	}
	if err != nil {
		// Leave lastAttempt zero so the first Verify retries immediately.
		v.log.Warn("oidc: issuer keys not loaded at start; will retry on first verification", "err", err)
		return v, nil
	}
	v.keys, v.jwksURI, v.fetchedAt, v.lastAttempt = ks, uri, v.now(), v.now()
	return v, nil
}

func validateIssuer(issuer string) error {
	if issuer == "" {
		return errors.New("issuer is required")
	}
	u, err := url.Parse(issuer)
	if err != nil {
		return fmt.Errorf("issuer %q: %w", issuer, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("issuer %q: scheme must be https or http", issuer)
	}
	if u.Host == "" {
		return fmt.Errorf("issuer %q: missing host", issuer)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("issuer %q: must not have user info, query or fragment", issuer)
	}
	return nil
}

// claims are the token claims read by Verify.
type claims struct {
	jwt.RegisteredClaims
	SID          string `json:"sid"`
	Email        string `json:"email"`
	PrimaryEmail string `json:"primary_email"`
}

// Verify checks token's signature against the issuer's keys and its exp
// (required), nbf and iat (when present) with Leeway, iss and, when
// configured, aud. It maps sub (required) to UserID, sid (else jti) to
// SessionID and email (else primary_email) to PrimaryEmail. Every failure
// wraps session.ErrInvalid.
func (v *Verifier) Verify(ctx context.Context, token string) (session.Identity, error) {
	if token == "" {
		return session.Identity{}, fmt.Errorf("%w: oidc: empty token", session.ErrInvalid)
	}
	if len(token) > maxTokenBytes {
		return session.Identity{}, fmt.Errorf("%w: oidc: token of %d bytes exceeds %d", session.ErrInvalid, len(token), maxTokenBytes)
	}
	var c claims
	if _, err := v.parser.ParseWithClaims(token, &c, v.keyFunc(ctx)); err != nil {
		return session.Identity{}, fmt.Errorf("%w: oidc: %w", session.ErrInvalid, err)
	}
	if c.Subject == "" {
		return session.Identity{}, fmt.Errorf("%w: oidc: token has no sub", session.ErrInvalid)
	}
	id := session.Identity{UserID: c.Subject, SessionID: c.SID, PrimaryEmail: c.Email}
	if id.SessionID == "" {
		id.SessionID = c.ID
	}
	if id.PrimaryEmail == "" {
		id.PrimaryEmail = c.PrimaryEmail
	}
	return id, nil
}

// keyFunc selects the key for a token whose alg the parser already limited
// to supportedAlgs, and rejects the token unless the key allows its alg.
func (v *Verifier) keyFunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		kid := ""
		if raw, ok := t.Header["kid"]; ok {
			s, ok := raw.(string)
			if !ok {
				return nil, errors.New("kid header is not a string")
			}
			kid = s
		}
		k, err := v.key(ctx, kid)
		if err != nil {
			return nil, err
		}
		if alg := t.Method.Alg(); !slices.Contains(k.algs, alg) {
			return nil, fmt.Errorf("algorithm %s not allowed for key %q", alg, clip(k.kid))
		}
		return k.pub, nil
	}
}

// key returns the key for kid (see keySet.find), refreshing the cache as
// described in the package documentation.
func (v *Verifier) key(ctx context.Context, kid string) (*key, error) {
	now := v.now()
	v.mu.Lock()
	if v.keys != nil && now.Sub(v.fetchedAt) >= v.refresh && v.inflight == nil && v.gapElapsed(now) {
		v.startFetch(ctx, now) // background; keep serving cached keys
	}
	if k := v.keys.find(kid); k != nil {
		v.mu.Unlock()
		return k, nil
	}
	f := v.inflight
	if f == nil {
		if !v.gapElapsed(now) {
			loaded := v.keys != nil
			retry := v.lastAttempt.Add(v.minGap)
			v.mu.Unlock()
			if !loaded {
				return nil, fmt.Errorf("%w: next attempt after %s", ErrKeysUnavailable, retry.Format(time.RFC3339))
			}
			return nil, fmt.Errorf("%s (refetch rate-limited)", noKey(kid))
		}
		f = v.startFetch(ctx, now)
	}
	waiting := v.waiting
	v.mu.Unlock()

	if waiting != nil {
		waiting()
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for issuer keys: %w", ctx.Err())
	}

	v.mu.Lock()
	k, loaded := v.keys.find(kid), v.keys != nil
	v.mu.Unlock()
	switch {
	case k != nil:
		return k, nil
	case !loaded:
		return nil, fmt.Errorf("%w: %w", ErrKeysUnavailable, f.err)
	case f.err != nil:
		return nil, fmt.Errorf("%s (refetch failed: %w)", noKey(kid), f.err)
	default:
		return nil, errors.New(noKey(kid))
	}
}

// noKey describes why no key matched kid.
func noKey(kid string) string {
	if kid == "" {
		return "token has no kid and the JWKS does not hold exactly one key"
	}
	return fmt.Sprintf("unknown key id %q", clip(kid))
}

// gapElapsed reports whether a fetch may start at now. v.mu must be held.
func (v *Verifier) gapElapsed(now time.Time) bool {
	return v.lastAttempt.IsZero() || now.Sub(v.lastAttempt) >= v.minGap
}

// startFetch starts a fetch in its own goroutine so that no single caller's
// cancellation aborts it for the others; it keeps ctx's values and is bounded
// by fetchTimeout. v.mu must be held.
func (v *Verifier) startFetch(ctx context.Context, now time.Time) *fetch {
	f := &fetch{done: make(chan struct{})}
	v.inflight, v.lastAttempt = f, now
	uri := v.jwksURI
	go func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		defer cancel()
		ks, newURI, err := v.fetchKeys(fctx, uri)
		v.mu.Lock()
		if err == nil {
			v.keys, v.fetchedAt = ks, v.now()
		}
		v.jwksURI = newURI
		v.inflight = nil
		f.err = err
		loaded := v.keys != nil
		v.mu.Unlock()
		if err != nil {
			if !loaded {
				v.log.Error("oidc: issuer keys still unavailable", "err", err, "retry_after", v.minGap)
			} else {
				v.log.Warn("oidc: jwks refresh failed; keeping cached keys", "err", err, "retry_after", v.minGap)
			}
		}
		close(f.done)
	}()
	return f
}

// fetchKeys discovers the JWKS URI when jwksURI is empty, then fetches and
// parses the JWKS. It returns the URI to reuse next time, "" on failure so
// that the next attempt rediscovers it.
func (v *Verifier) fetchKeys(ctx context.Context, jwksURI string) (*keySet, string, error) {
	if jwksURI == "" {
		var err error
		if jwksURI, err = v.discover(ctx); err != nil {
			return nil, "", err
		}
	}
	body, err := v.get(ctx, jwksURI)
	if err != nil {
		return nil, "", fmt.Errorf("fetch jwks: %w", err)
	}
	ks, skipped, err := parseJWKS(body)
	for _, s := range skipped {
		v.log.Debug("oidc: jwks key skipped", "reason", s)
	}
	if err != nil {
		return nil, "", fmt.Errorf("jwks %s: %w", jwksURI, err)
	}
	v.log.Info("oidc: jwks loaded", "jwks_uri", jwksURI, "keys", len(ks.all), "skipped", len(skipped))
	return ks, jwksURI, nil
}

// discover reads the discovery document and returns its jwks_uri.
func (v *Verifier) discover(ctx context.Context) (string, error) {
	body, err := v.get(ctx, v.discoveryURL)
	if err != nil {
		return "", fmt.Errorf("discovery: %w", err)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("discovery %s: decode: %w", v.discoveryURL, err)
	}
	if doc.Issuer != v.issuer {
		return "", fmt.Errorf("%w: discovery %s names %q, configured %q", ErrIssuerMismatch, v.discoveryURL, doc.Issuer, v.issuer)
	}
	u, err := url.Parse(doc.JWKSURI)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("discovery %s: jwks_uri %q is not an absolute http(s) URL", v.discoveryURL, doc.JWKSURI)
	}
	if strings.HasPrefix(v.issuer, "https:") && u.Scheme != "https" {
		return "", fmt.Errorf("discovery %s: jwks_uri %q is not https", v.discoveryURL, doc.JWKSURI)
	}
	return doc.JWKSURI, nil
}

// get fetches a JSON document of at most maxDocBytes.
func (v *Verifier) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, fmt.Errorf("get %s: status %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u, err)
	}
	if len(body) > maxDocBytes {
		return nil, fmt.Errorf("get %s: body exceeds %d bytes", u, maxDocBytes)
	}
	return body, nil
}

// clip shortens attacker-controlled strings before they reach errors.
func clip(s string) string {
	const limit = 64
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
