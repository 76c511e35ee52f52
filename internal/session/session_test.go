package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage"
)

type memStore map[string]Session

func (m memStore) CreateSession(_ context.Context, s Session) error { m[s.TokenHash] = s; return nil }
func (m memStore) SessionByHash(_ context.Context, h string) (Session, error) {
	s, ok := m[h]
	if !ok {
		return s, storage.ErrNotFound
	}
	return s, nil
}
func (m memStore) RevokeSession(_ context.Context, id string, at time.Time) error {
	for h, s := range m {
		if s.ID == id {
			if s.RevokedAt.IsZero() {
				s.RevokedAt = at
				m[h] = s
			}
			return nil
		}
	}
	return storage.ErrNotFound
}
func (m memStore) ListSessions(context.Context, string) ([]Session, error) { return nil, nil }

func TestLocalSessions(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	st := memStore{}
	l := Local{Store: st, Now: func() time.Time { return now }}
	tok, s, err := l.Create(context.Background(), "user_1", "a@example.com", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, LocalPrefix) || len(tok) != len(LocalPrefix)+64 || strings.Contains(s.TokenHash, tok[4:]) {
		t.Fatalf("token %q hash %q", tok, s.TokenHash)
	}
	id, err := l.Verify(context.Background(), tok)
	if err != nil || id != (Identity{UserID: "user_1", SessionID: s.ID, PrimaryEmail: "a@example.com"}) {
		t.Fatalf("Verify = %+v, %v", id, err)
	}
	for name, bad := range map[string]string{
		"unknown":   LocalPrefix + strings.Repeat("0", 64),
		"short":     LocalPrefix + "abc",
		"no prefix": strings.Repeat("0", 68),
	} {
		if _, err := l.Verify(context.Background(), bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v; want ErrInvalid", name, err)
		}
	}
	now = now.Add(time.Hour)
	if _, err := l.Verify(context.Background(), tok); !errors.Is(err, ErrInvalid) {
		t.Errorf("expired session accepted: %v", err)
	}
	for _, c := range [][2]string{{"", "a@example.com"}, {"u", "not-an-email"}} {
		if _, _, err := l.Create(context.Background(), c[0], c[1], time.Hour); err == nil {
			t.Errorf("Create(%q, %q) accepted", c[0], c[1])
		}
	}
}

type fixed struct{ id Identity }

func (f fixed) Verify(context.Context, string) (Identity, error) { return f.id, nil }

func TestRouter(t *testing.T) {
	r := Router{Local: fixed{Identity{UserID: "local"}}, JWT: fixed{Identity{UserID: "jwt"}}}
	if id, _ := r.Verify(context.Background(), LocalPrefix+"x"); id.UserID != "local" {
		t.Errorf("local token routed to %q", id.UserID)
	}
	if id, _ := r.Verify(context.Background(), "eyJ.x.y"); id.UserID != "jwt" {
		t.Errorf("JWT routed to %q", id.UserID)
	}
	if _, err := r.Verify(context.Background(), ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty token: %v", err)
	}
	if _, err := (Router{Local: fixed{}}).Verify(context.Background(), "eyJ.x.y"); !errors.Is(err, ErrInvalid) {
		t.Errorf("JWT without an issuer: %v", err)
	}
}

// TestSignOutRevokes: after sign-out (or a revocation by id) the token is
// refused, though it has not expired; signing out twice, or with an
// unknown token, is not an error.
func TestSignOutRevokes(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	st := memStore{}
	l := Local{Store: st, Now: func() time.Time { return now }}
	r := Router{Local: l}
	a, _, err := l.Create(ctx, "user_1", "a@example.com", DefaultTTL)
	if err != nil {
		t.Fatal(err)
	}
	b, sb, err := l.Create(ctx, "user_1", "a@example.com", DefaultTTL)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SignOut(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Verify(ctx, a); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("token after sign-out: %v; want ErrInvalid (revoked)", err)
	}
	if _, err := r.Verify(ctx, b); err != nil {
		t.Fatalf("the user's other session: %v", err)
	}
	if err := l.Revoke(ctx, sb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Verify(ctx, b); !errors.Is(err, ErrInvalid) {
		t.Fatalf("token after revoke: %v; want ErrInvalid", err)
	}
	for _, tok := range []string{a, LocalPrefix + strings.Repeat("0", 64), "eyJ.x.y", ""} {
		if err := r.SignOut(ctx, tok); err != nil {
			t.Errorf("SignOut(%q) = %v", tok, err)
		}
	}
	if err := l.Revoke(ctx, "sess_unknown"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("revoke unknown: %v; want ErrNotFound", err)
	}
}
