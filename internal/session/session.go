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
}

// Store persists local sessions. SessionByHash wraps storage.ErrNotFound.
type Store interface {
	CreateSession(ctx context.Context, s Session) error
	SessionByHash(ctx context.Context, tokenHash string) (Session, error)
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
	if !l.Now().Before(s.ExpiresAt) {
		return Identity{}, fmt.Errorf("%w: session %s expired", ErrInvalid, s.ID)
	}
	return Identity{UserID: s.UserID, SessionID: s.ID, PrimaryEmail: s.Email}, nil
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
