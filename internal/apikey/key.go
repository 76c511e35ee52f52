// Package apikey provides API keys: generation, hashing, scopes, and the
// in-memory index the request path authenticates against. The index is an
// immutable snapshot rebuilt from the store whenever the keys change, so a
// request never queries the database.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Prefix starts every plaintext key, so a leaked key is recognisable.
const Prefix = "adk_"

// plaintextLen is the length of a key: prefix + 64 hex chars (256 bits).
const plaintextLen = len(Prefix) + 64

// Scopes.
const (
	ScopeAssetsRead  = "assets:read"
	ScopeProfileRead = "assets:profile:read"
	ScopeRiskRead    = "assets:risk:read"
	ScopeOHLCVRead   = "assets:ohlcv:read"
	ScopeMarketsRead = "assets:markets:read"
	ScopeTradesWrite = "trades:write"
	// ScopeExecutionRead covers the /v2/execution/* family. Every key gets
	// it by default (migration execution_scope granted it to the keys that
	// existed before it); an explicit --scopes list may leave it out.
	ScopeExecutionRead = "execution:read"
	// DefaultScopeList is what a key gets when no scopes are named.
	DefaultScopeList  = ScopeAssetsRead + "," + ScopeExecutionRead
	scopeCountAllowed = 7
)

// AllScopes lists every scope a key may hold.
var AllScopes = [scopeCountAllowed]string{ScopeAssetsRead, ScopeProfileRead, ScopeRiskRead, ScopeOHLCVRead, ScopeMarketsRead, ScopeTradesWrite, ScopeExecutionRead}

// defaultScopes is DefaultScopeList as a slice.
func defaultScopes() []string { return []string{ScopeAssetsRead, ScopeExecutionRead} }

// ParseScopes parses a comma-separated scope list, rejecting unknown scopes.
// An empty string yields the default scope.
func ParseScopes(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return defaultScopes(), nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(AllScopes[:], p) {
			return nil, fmt.Errorf("unknown scope %q (allowed: %s)", p, strings.Join(AllScopes[:], ", "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return defaultScopes(), nil
	}
	return out, nil
}

// Limits are per-key overrides; zero fields mean "use the server default".
type Limits struct {
	RateRequests  int           // requests per RateWindow
	RateWindow    time.Duration // window of the rate limit
	QuotaPerMonth int64         // requests per UTC calendar month
}

// Key is a stored API key. The plaintext is never stored, only its hash.
type Key struct {
	ID        string
	Name      string // display name ("" when none was given)
	ProjectID string
	Project   string // project name
	Hash      string // hex SHA-256 of the plaintext
	Scopes    []string
	Limits    Limits
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Active reports whether the key may authenticate.
func (k *Key) Active() bool { return k.RevokedAt == nil }

// HasScope reports whether the key holds scope s.
func (k *Key) HasScope(s string) bool { return slices.Contains(k.Scopes, s) }

// HasAnyScope reports whether the key holds at least one of scopes.
func (k *Key) HasAnyScope(scopes []string) bool {
	for _, s := range scopes {
		if k.HasScope(s) {
			return true
		}
	}
	return false
}

// Status is "active" or "revoked".
func (k *Key) Status() string {
	if k.Active() {
		return "active"
	}
	return "revoked"
}

// Generate returns a new random plaintext key and its hash.
func Generate() (plaintext, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("generate key: %w", err)
	}
	plaintext = Prefix + hex.EncodeToString(b[:])
	return plaintext, Hash(plaintext), nil
}

// NewID returns a random key or project id with the given prefix.
func NewID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return prefix + hex.EncodeToString(b[:])
}

// Hash returns the hex SHA-256 of a plaintext key.
func Hash(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// WellFormed reports whether s has the shape of a key (cheap pre-check
// before hashing).
func WellFormed(s string) bool {
	if len(s) != plaintextLen || !strings.HasPrefix(s, Prefix) {
		return false
	}
	for i := len(Prefix); i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
