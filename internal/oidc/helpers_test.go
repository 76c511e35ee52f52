package oidc

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const testAudience = "assetd"

// fakeClock is an injected clock; tests move it explicitly.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Unix(1_900_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer collects logs from the verifier's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// signer is a private key that mints tokens under a kid.
type signer struct {
	kid    string
	method jwt.SigningMethod
	priv   crypto.Signer
}

func newRSASigner(t testing.TB, kid string) signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signer{kid: kid, method: jwt.SigningMethodRS256, priv: k}
}

func newECSigner(t testing.TB, kid string, curve elliptic.Curve) signer {
	t.Helper()
	k, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]jwt.SigningMethod{"P-256": jwt.SigningMethodES256, "P-384": jwt.SigningMethodES384, "P-521": jwt.SigningMethodES512}[curve.Params().Name]
	return signer{kid: kid, method: m, priv: k}
}

// with returns a copy of s signing with method m.
func (s signer) with(m jwt.SigningMethod) signer { s.method = m; return s }

// withKID returns a copy of s putting kid in its tokens' header ("" omits it).
func (s signer) withKID(kid string) signer { s.kid = kid; return s }

func (s signer) sign(t testing.TB, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.method, c)
	if s.kid != "" {
		tok.Header["kid"] = s.kid
	}
	out, err := tok.SignedString(s.priv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// jwk returns the public JWK of s.
func (s signer) jwk() map[string]any {
	switch pub := s.priv.Public().(type) {
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "kid": s.kid, "use": "sig", "n": b64u(pub.N.Bytes()), "e": b64u(big.NewInt(int64(pub.E)).Bytes())}
	case *ecdsa.PublicKey:
		pt, err := pub.Bytes()
		if err != nil {
			panic(err)
		}
		size := (len(pt) - 1) / 2
		return map[string]any{"kty": "EC", "kid": s.kid, "crv": pub.Curve.Params().Name, "x": b64u(pt[1 : 1+size]), "y": b64u(pt[1+size:])}
	default:
		panic("unknown key type")
	}
}

func b64u(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// testIssuer is an httptest OIDC issuer serving discovery and a JWKS.
type testIssuer struct {
	srv *httptest.Server

	mu         sync.Mutex
	keys       []map[string]any
	down       bool
	discIssuer string // issuer named by discovery; default the URL

	discoveryHits atomic.Int64
	jwksHits      atomic.Int64
}

func newTestIssuer(t testing.TB, signers ...signer) *testIssuer {
	t.Helper()
	ti := &testIssuer{}
	ti.publish(signers...)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		ti.discoveryHits.Add(1)
		ti.mu.Lock()
		down, iss := ti.down, ti.discIssuer
		ti.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if iss == "" {
			iss = ti.srv.URL
		}
		writeJSON(w, map[string]any{"issuer": iss, "jwks_uri": ti.srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		ti.jwksHits.Add(1)
		ti.mu.Lock()
		down, keys := ti.down, ti.keys
		ti.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, map[string]any{"keys": keys})
	})
	ti.srv = httptest.NewServer(mux)
	t.Cleanup(ti.srv.Close)
	return ti
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// publish replaces the served JWKS with the public keys of signers.
func (ti *testIssuer) publish(signers ...signer) {
	keys := make([]map[string]any, 0, len(signers))
	for _, s := range signers {
		keys = append(keys, s.jwk())
	}
	ti.mu.Lock()
	ti.keys = keys
	ti.mu.Unlock()
}

func (ti *testIssuer) setDown(down bool) {
	ti.mu.Lock()
	ti.down = down
	ti.mu.Unlock()
}

func (ti *testIssuer) URL() string { return ti.srv.URL }

// claims returns valid claims for this issuer at now.
func (ti *testIssuer) claims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss":   ti.srv.URL,
		"sub":   "user_123",
		"aud":   testAudience,
		"exp":   now.Add(5 * time.Minute).Unix(),
		"iat":   now.Unix(),
		"nbf":   now.Unix(),
		"sid":   "sess_abc",
		"email": "ada@example.com",
	}
}

// fixture is a verifier wired to a test issuer and a fake clock.
type fixture struct {
	iss   *testIssuer
	clock *fakeClock
	logs  *syncBuffer
	v     *Verifier
}

func newFixture(t testing.TB, iss *testIssuer, mod ...func(*Config)) *fixture {
	t.Helper()
	f := &fixture{iss: iss, clock: newClock(), logs: &syncBuffer{}}
	cfg := Config{
		Issuer:     iss.URL(),
		Audience:   testAudience,
		HTTPClient: iss.srv.Client(),
		Now:        f.clock.Now,
		Logger:     slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, m := range mod {
		m(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // stops the key set's background refresh
	v, err := New(ctx, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.v = v
	return f
}
