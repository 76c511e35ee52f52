// Package session authenticates identity-provider sessions for GET
// /v1/whoami: local sessions issued by `assetd sessions create` (stored as
// hashes) and, through package oidc, JWTs of an external OIDC issuer.
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/storage"
)

// Identity is what whoami returns.
type Identity struct {
	UserID       string `json:"userId"`
	SessionID    string `json:"sessionId"`
	PrimaryEmail string `json:"primaryEmail"`
}

// ErrInvalid is returned for a missing, malformed, unknown, expired or
// forged session. Verifiers wrap it with the reason for logs.
var ErrInvalid = errors.New("invalid session")

// Verifier checks a session token.
type Verifier interface {
	Verify(ctx context.Context, token string) (Identity, error)
}

// LocalPrefix starts every local session token.
const LocalPrefix = "ads_"

// Session is a stored local session.
type Session struct {
	ID        string
	UserID    string
	Email     string
	TokenHash string
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt time.Time // zero while the session is not revoked
}

// DefaultTTL is the lifetime of a local session unless its creator says
// otherwise (docs/auth.md, "Sessions").
const DefaultTTL = 7 * 24 * time.Hour

// Status is "active", "expired" or "revoked" at now.
func (s Session) Status(now time.Time) string {
	switch {
	case !s.RevokedAt.IsZero():
		return "revoked"
	case !now.Before(s.ExpiresAt):
		return "expired"
	}
	return "active"
}

// Store persists local sessions. SessionByHash and RevokeSession wrap
// storage.ErrNotFound. RevokeSession keeps the first revocation time;
// ListSessions returns userID's sessions (every session for ""), newest
// first.
type Store interface {
	CreateSession(ctx context.Context, s Session) error
	SessionByHash(ctx context.Context, tokenHash string) (Session, error)
	RevokeSession(ctx context.Context, id string, at time.Time) error
	ListSessions(ctx context.Context, userID string) ([]Session, error)
}

// Local issues and verifies local sessions.
type Local struct {
	Store Store
	Now   func() time.Time
}

// Create issues a session for userID valid for ttl and returns its token.
func (l Local) Create(ctx context.Context, userID, email string, ttl time.Duration) (string, Session, error) {
	if strings.TrimSpace(userID) == "" {
		return "", Session{}, errors.New("user id is required")
	}
	if !strings.Contains(email, "@") {
		return "", Session{}, fmt.Errorf("email %q is not an address", email)
	}
	if ttl <= 0 {
		return "", Session{}, errors.New("ttl must be positive")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", Session{}, fmt.Errorf("generate session: %w", err)
	}
	token := LocalPrefix + hex.EncodeToString(b[:])
	var idb [8]byte
	_, _ = rand.Read(idb[:])
	now := l.Now().UTC().Truncate(time.Millisecond)
	s := Session{ID: "sess_" + hex.EncodeToString(idb[:]), UserID: userID, Email: email, TokenHash: hashToken(token), CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := l.Store.CreateSession(ctx, s); err != nil {
		return "", Session{}, fmt.Errorf("create session: %w", err)
	}
	return token, s, nil
}

// Verify implements Verifier for local tokens.
func (l Local) Verify(ctx context.Context, token string) (Identity, error) {
	if !strings.HasPrefix(token, LocalPrefix) || len(token) != len(LocalPrefix)+64 {
		return Identity{}, fmt.Errorf("%w: not a local session token", ErrInvalid)
	}
	s, err := l.Store.SessionByHash(ctx, hashToken(token))
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if st := s.Status(l.Now()); st != "active" {
		return Identity{}, fmt.Errorf("%w: session %s %s", ErrInvalid, s.ID, st)
	}
	return Identity{UserID: s.UserID, SessionID: s.ID, PrimaryEmail: s.Email}, nil
}

// SignOut revokes the local session token belongs to, so the token stops
// working everywhere the store is read (every replica: sessions are not
// cached). An unknown or malformed token is not an error: there is nothing
// left to revoke.
func (l Local) SignOut(ctx context.Context, token string) error {
	if !strings.HasPrefix(token, LocalPrefix) || len(token) != len(LocalPrefix)+64 {
		return nil
	}
	s, err := l.Store.SessionByHash(ctx, hashToken(token))
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("sign out: %w", err)
	}
	if !s.RevokedAt.IsZero() {
		return nil
	}
	if err := l.Store.RevokeSession(ctx, s.ID, l.Now()); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// Revoke revokes the session with id (`assetd sessions revoke`); an
// unknown id wraps storage.ErrNotFound.
func (l Local) Revoke(ctx context.Context, id string) error {
	if err := l.Store.RevokeSession(ctx, id, l.Now()); err != nil {
		return fmt.Errorf("revoke session %s: %w", id, err)
	}
	return nil
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// Router sends local tokens to Local and everything else to JWT (which may
// be nil when no OIDC issuer is configured).
type Router struct {
	Local Verifier
	JWT   Verifier
}

// SignOut ends the session of token: a local session is revoked in the
// store; an identity-provider JWT cannot be revoked here (its issuer owns
// it), so signing out of one only drops the caller's copy.
func (r Router) SignOut(ctx context.Context, token string) error {
	l, ok := r.Local.(interface {
		SignOut(ctx context.Context, token string) error
	})
	if !ok || !strings.HasPrefix(token, LocalPrefix) {
		return nil
	}
	return l.SignOut(ctx, token)
}

// Verify implements Verifier.
func (r Router) Verify(ctx context.Context, token string) (Identity, error) {
	if token == "" {
		return Identity{}, fmt.Errorf("%w: no session", ErrInvalid)
	}
	if strings.HasPrefix(token, LocalPrefix) {
		if r.Local == nil {
			return Identity{}, fmt.Errorf("%w: local sessions disabled", ErrInvalid)
		}
		return r.Local.Verify(ctx, token)
	}
	if r.JWT == nil {
		return Identity{}, fmt.Errorf("%w: no OIDC issuer configured", ErrInvalid)
	}
	return r.JWT.Verify(ctx, token)
}
