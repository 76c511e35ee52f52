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
