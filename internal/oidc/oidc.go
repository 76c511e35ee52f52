// Package oidc verifies JWTs issued by an external OpenID Connect issuer
// (Clerk, Auth0, Keycloak, ...) against the issuer's JWKS and maps their
// claims to a session.Identity.
//
// The JWKS URI comes from {issuer}/.well-known/openid-configuration. Keys
// are fetched, cached and refreshed by github.com/MicahParks/keyfunc/v3
// (github.com/MicahParks/jwkset): in the background every
// Config.RefreshInterval, and when a token names a kid the cache does not
// hold, at most once per Config.MinRefreshGap so tokens with forged kids
// cannot make the verifier hammer the issuer. Tokens are parsed and checked
// by github.com/golang-jwt/jwt/v5. See docs/sessions.md.
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
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/assetd/assetd/internal/session"
)

// Leeway is the clock skew tolerated when checking exp, nbf and iat.
const Leeway = 30 * time.Second

const (
	defaultRefreshInterval = time.Hour
	defaultMinRefreshGap   = 30 * time.Second
	// fetchTimeout bounds one discovery or JWKS fetch.
	fetchTimeout = 10 * time.Second
	// maxDocBytes bounds the discovery document.
	maxDocBytes = 1 << 20
	// maxTokenBytes rejects absurd tokens before any parsing.
	maxTokenBytes = 16 << 10
)

// supportedAlgs are the asymmetric algorithms a token may use: none and
// HMAC are never accepted, so a public key cannot be used as an HMAC
// secret.
var supportedAlgs = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}

// ErrIssuerMismatch is returned by New when the discovery document names a
// different issuer than the configured one (often a trailing slash).
var ErrIssuerMismatch = errors.New("discovery issuer does not match configured issuer")

// ErrKeysUnavailable is wrapped (together with session.ErrInvalid) by Verify
// when the issuer's key set could not be located yet (discovery failed), so
// callers may tell an issuer outage from a bad token.
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
	// Now returns the current time for the token's exp, nbf and iat and the
	// discovery retry spacing (default time.Now); for tests.
	Now func() time.Time
	// Logger receives discovery and refresh logs (default: discarded).
	Logger *slog.Logger
	// RefreshInterval is how often the cached keys are refetched in the
	// background (default 1h).
	RefreshInterval time.Duration
	// MinRefreshGap is the minimum time between two fetches triggered by
	// unknown kids, and between two discovery attempts (default 30s).
	MinRefreshGap time.Duration
}

// Verifier verifies issuer JWTs. It implements session.Verifier and is safe
// for concurrent use. Its background key refresh ends with the context
// given to New.
type Verifier struct {
	issuer       string
	discoveryURL string
	client       *http.Client
	now          func() time.Time
	log          *slog.Logger
	refresh      time.Duration
	minGap       time.Duration
	parser       *jwt.Parser
	life         context.Context

	mu          sync.Mutex
	keys        keyfunc.Keyfunc // nil until discovery succeeded
	lastAttempt time.Time       // of discovery
}

var _ session.Verifier = (*Verifier)(nil)

// New validates cfg, discovers the issuer's JWKS and starts its key set
// (refreshed in the background until ctx ends). If the issuer cannot be
// reached or serves an unusable discovery document, New logs the failure and
// returns a working Verifier anyway: Verify retries the discovery, at most
// once per MinRefreshGap. New fails on an invalid Config, and when the
// issuer answers with a discovery document for a different issuer
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
		life:         context.WithoutCancel(ctx),
	}
	// The key set's refresh goroutine lives as long as ctx (not its
	// deadline, if any).
	life, cancel := context.WithCancel(v.life)
	context.AfterFunc(ctx, cancel)
	v.life = life
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
		jwt.WithValidMethods(supportedAlgs),
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

	v.mu.Lock()
	defer v.mu.Unlock()
	v.lastAttempt = v.now()
	if err := v.load(ctx); err != nil {
		if errors.Is(err, ErrIssuerMismatch) {
			return nil, fmt.Errorf("oidc: %w", err)
		}
		// Leave the next attempt to the first Verify.
		v.lastAttempt = time.Time{}
		v.log.Warn("oidc: issuer keys not loaded at start; will retry on first verification", "err", err)
	}
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

// errCritical rejects a token whose header has "crit": the verifier
// understands no JWS extension, so every one a token marks critical is
// unknown and RFC 7515 §4.1.11 requires the token be rejected.
var errCritical = errors.New(`header "crit" names extensions this verifier does not understand`)

// UnmarshalJSON decodes the claims after checking that exp, nbf and iat,
// when present and not null, are JSON numbers (RFC 7519 §2 NumericDate):
// golang-jwt's NumericDate also takes a numeric string such as
// "1900000000", which a conforming issuer never sends.
func (c *claims) UnmarshalJSON(b []byte) error {
	var dates struct {
		Exp json.RawMessage `json:"exp"`
		Nbf json.RawMessage `json:"nbf"`
		Iat json.RawMessage `json:"iat"`
	}
	if err := json.Unmarshal(b, &dates); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		raw  json.RawMessage
	}{{"exp", dates.Exp}, {"nbf", dates.Nbf}, {"iat", dates.Iat}} {
		if len(d.raw) == 0 || string(d.raw) == "null" {
			continue
		}
		if ch := d.raw[0]; ch != '-' && (ch < '0' || ch > '9') {
			return fmt.Errorf("claim %s is not a number: %.32s", d.name, d.raw)
		}
	}
	type plain claims // without this method
	return json.Unmarshal(b, (*plain)(c))
}

// Verify checks token's signature against the issuer's keys and its exp
// (required, a number), nbf and iat (when present, numbers) with Leeway,
// iss and, when configured, aud; a header "crit" is rejected. It maps sub (required) to UserID, sid (else jti) to
// SessionID and email (else primary_email) to PrimaryEmail. Every failure
// wraps session.ErrInvalid.
func (v *Verifier) Verify(ctx context.Context, token string) (session.Identity, error) {
	if token == "" {
		return session.Identity{}, fmt.Errorf("%w: oidc: empty token", session.ErrInvalid)
	}
	if len(token) > maxTokenBytes {
		return session.Identity{}, fmt.Errorf("%w: oidc: token of %d bytes exceeds %d", session.ErrInvalid, len(token), maxTokenBytes)
	}
	keys, err := v.keySet(ctx)
	if err != nil {
		return session.Identity{}, fmt.Errorf("%w: oidc: %w", session.ErrInvalid, err)
	}
	var c claims
	keyOf := keys.KeyfuncCtx(ctx)
	noCrit := func(t *jwt.Token) (any, error) {
		if _, ok := t.Header["crit"]; ok {
			return nil, errCritical
		}
		return keyOf(t)
	}
	if _, err := v.parser.ParseWithClaims(token, &c, noCrit); err != nil {
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

// keySet returns the issuer's key set, retrying the discovery when it
// failed before and MinRefreshGap has passed since the last attempt.
// Concurrent callers share one attempt.
func (v *Verifier) keySet(ctx context.Context) (keyfunc.Keyfunc, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.keys != nil {
		return v.keys, nil
	}
	now := v.now()
	if !v.lastAttempt.IsZero() && now.Sub(v.lastAttempt) < v.minGap {
		return nil, fmt.Errorf("%w: next attempt after %s", ErrKeysUnavailable, v.lastAttempt.Add(v.minGap).Format(time.RFC3339))
	}
	v.lastAttempt = now
	if err := v.load(ctx); err != nil {
		v.log.Error("oidc: issuer keys still unavailable", "err", err, "retry_after", v.minGap)
		return nil, fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	}
	return v.keys, nil
}

// load discovers the JWKS URI and starts the key set on it. v.mu is held.
func (v *Verifier) load(ctx context.Context) error {
	dctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	uri, err := v.discover(dctx)
	if err != nil {
		return err
	}
	log := v.log.With("jwks_uri", uri)
	keys, err := keyfunc.NewDefaultOverrideCtx(v.life, []string{uri}, keyfunc.Override{
		Client:      v.client,
		HTTPTimeout: fetchTimeout,
		// A first fetch that fails leaves an empty set, refilled by the
		// background refresh or the next unknown kid.
		RefreshInterval: v.refresh,
		// Unknown kids refetch at most once per gap; within it a caller
		// does not wait for the next slot (the wait would exceed the fetch
		// timeout) but is refused at once.
		RefreshUnknownKID: rate.NewLimiter(rate.Every(v.minGap), 1),
		RateLimitWaitMax:  fetchTimeout,
		RefreshErrorHandlerFunc: func(string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				if v.life.Err() == nil {
					log.Warn("oidc: jwks refresh failed; keeping cached keys", "err", err)
				}
			}
		},
	})
	if err != nil {
		return fmt.Errorf("jwks %s: %w", uri, err)
	}
	v.keys = keys
	log.Info("oidc: jwks key set started")
	return nil
}

// discover reads the discovery document and returns its jwks_uri.
func (v *Verifier) discover(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.discoveryURL, nil)
	if err != nil {
		return "", fmt.Errorf("discovery: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("discovery: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("discovery %s: status %s", v.discoveryURL, resp.Status)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxDocBytes)).Decode(&doc); err != nil {
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
