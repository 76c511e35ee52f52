package oidc

import (
	"context"
	"crypto"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/assetd/assetd/internal/session"
)

func TestVerify(t *testing.T) {
	rsaKey := newRSASigner(t, "rsa-1")
	ecKey := newECSigner(t, "ec-1", elliptic.P256())
	forger := newRSASigner(t, "rsa-1") // same kid, unpublished key
	p384 := newECSigner(t, "ec-1", elliptic.P384())
	iss := newTestIssuer(t, rsaKey, ecKey)
	f := newFixture(t, iss)
	now := f.clock.Now()

	valid := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := iss.claims(now)
		if mod != nil {
			mod(c)
		}
		return c
	}
	pubPEM := func() []byte {
		der, err := x509.MarshalPKIXPublicKey(rsaKey.priv.Public())
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}
	hmacWith := func(secret []byte) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, valid(nil))
		tok.Header["kid"] = "rsa-1"
		s, err := tok.SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	unsigned := func(header string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, valid(nil))
		tok.Header["kid"] = "rsa-1"
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		if header != "" { // hand-written header, e.g. a differently cased alg
			parts := strings.SplitN(s, ".", 3)
			s = base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + parts[1] + "."
		}
		return s
	}
	tamper := func(tok string) string {
		parts := strings.Split(tok, ".")
		parts[1] = b64u(mustJSON(t, valid(func(c jwt.MapClaims) { c["sub"] = "admin" })))
		return strings.Join(parts, ".")
	}
	wantID := session.Identity{UserID: "user_123", SessionID: "sess_abc", PrimaryEmail: "ada@example.com"}

	accepted := []struct {
		name  string
		token string
	}{
		{"valid RS256", rsaKey.sign(t, valid(nil))},
		{"valid RS512", rsaKey.with(jwt.SigningMethodRS512).sign(t, valid(nil))},
		{"valid PS256", rsaKey.with(jwt.SigningMethodPS256).sign(t, valid(nil))},
		{"valid ES256", ecKey.sign(t, valid(nil))},
		{"valid without nbf and iat", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "nbf"); delete(c, "iat") }))},
		{"audience in array", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["aud"] = []string{"other", testAudience} }))},
		{"expired within leeway", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["exp"] = now.Add(-Leeway / 2).Unix() }))},
		{"nbf within leeway", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["nbf"] = now.Add(Leeway / 2).Unix() }))},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			id, err := f.v.Verify(context.Background(), tc.token)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if id != wantID {
				t.Fatalf("identity = %+v, want %+v", id, wantID)
			}
		})
	}

	rejected := []struct {
		name    string
		token   string
		wantErr error // besides session.ErrInvalid, when set
	}{
		{"expired", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() })), jwt.ErrTokenExpired},
		{"expired ES256", ecKey.sign(t, valid(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() })), jwt.ErrTokenExpired},
		{"missing exp", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "exp") })), jwt.ErrTokenRequiredClaimMissing},
		{"not yet valid", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Minute).Unix() })), jwt.ErrTokenNotValidYet},
		{"issued in the future", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Minute).Unix() })), jwt.ErrTokenUsedBeforeIssued},
		{"exp not a number", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["exp"] = "tomorrow" })), jwt.ErrTokenMalformed},
		{"wrong issuer", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })), jwt.ErrTokenInvalidIssuer},
		{"issuer with trailing slash", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["iss"] = iss.URL() + "/" })), jwt.ErrTokenInvalidIssuer},
		{"missing issuer", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "iss") })), jwt.ErrTokenRequiredClaimMissing},
		{"wrong audience", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["aud"] = "other" })), jwt.ErrTokenInvalidAudience},
		{"audience array without ours", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["aud"] = []string{"a", "b"} })), jwt.ErrTokenInvalidAudience},
		{"missing audience", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "aud") })), jwt.ErrTokenRequiredClaimMissing},
		{"missing sub", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "sub") })), nil},

		{"forged signature same kid", forger.sign(t, valid(nil)), jwt.ErrTokenSignatureInvalid},
		{"tampered payload", tamper(rsaKey.sign(t, valid(nil))), jwt.ErrTokenSignatureInvalid},
		{"RSA alg on EC key", forger.withKID("ec-1").sign(t, valid(nil)), jwt.ErrTokenUnverifiable},
		{"ES256 alg on RSA key", ecKey.withKID("rsa-1").sign(t, valid(nil)), jwt.ErrTokenUnverifiable},
		{"ES384 on P-256 key", p384.sign(t, valid(nil)), jwt.ErrTokenUnverifiable},
		{"alg none", unsigned(""), jwt.ErrTokenSignatureInvalid},
		{"alg None", unsigned(`{"alg":"None","kid":"rsa-1"}`), jwt.ErrTokenUnverifiable},
		{"HS256 keyed with public key PEM", hmacWith(pubPEM()), jwt.ErrTokenSignatureInvalid},
		{"HS256 keyed with modulus", hmacWith(rsaKey.priv.Public().(*rsa.PublicKey).N.Bytes()), jwt.ErrTokenSignatureInvalid},
		{"no kid with several keys", rsaKey.withKID("").sign(t, valid(nil)), jwt.ErrTokenUnverifiable},

		{"empty", "", nil},
		{"garbage", "not-a-jwt", jwt.ErrTokenMalformed},
		{"two segments", "eyJhbGciOiJSUzI1NiJ9.e30", jwt.ErrTokenMalformed},
		{"empty segments", "..", jwt.ErrTokenMalformed},
		{"header not JSON", b64u([]byte("{nope")) + ".e30.c2ln", jwt.ErrTokenMalformed},
		{"header without alg", b64u([]byte(`{"kid":"rsa-1"}`)) + ".e30.c2ln", jwt.ErrTokenUnverifiable},
		{"kid not a string", b64u([]byte(`{"alg":"RS256","kid":7}`)) + "." + b64u(mustJSON(t, valid(nil))) + ".c2ln", jwt.ErrTokenUnverifiable},
		{"claims not JSON", b64u([]byte(`{"alg":"RS256","kid":"rsa-1"}`)) + ".bm9wZQ.c2ln", jwt.ErrTokenMalformed},
		{"oversized", strings.Repeat("a", maxTokenBytes+1), nil},
	}
	for _, tc := range rejected {
		t.Run(tc.name, func(t *testing.T) {
			id, err := f.v.Verify(context.Background(), tc.token)
			t.Logf("err: %v", err)
			if !errors.Is(err, session.ErrInvalid) {
				t.Fatalf("err = %v, want session.ErrInvalid", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if id != (session.Identity{}) {
				t.Fatalf("identity = %+v on error", id)
			}
		})
	}
	if got := iss.jwksHits.Load(); got != 1 {
		t.Errorf("jwks fetched %d times, want 1 (no refetch within the gap)", got)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyNoKidSingleKey(t *testing.T) {
	k := newECSigner(t, "only", elliptic.P256())
	iss := newTestIssuer(t, k)
	f := newFixture(t, iss)
	id, err := f.v.Verify(context.Background(), k.withKID("").sign(t, iss.claims(f.clock.Now())))
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if id.UserID != "user_123" {
		t.Fatalf("identity = %+v", id)
	}
}

func TestClaimsMapping(t *testing.T) {
	k := newECSigner(t, "k", elliptic.P256())
	iss := newTestIssuer(t, k)
	f := newFixture(t, iss)
	tests := []struct {
		name  string
		extra map[string]any
		want  session.Identity
	}{
		{"sid and email", map[string]any{"sid": "sess_1", "jti": "jti_1", "email": "a@x.io", "primary_email": "b@x.io"}, session.Identity{UserID: "user_123", SessionID: "sess_1", PrimaryEmail: "a@x.io"}},
		{"jti and primary_email fallbacks", map[string]any{"jti": "jti_1", "primary_email": "b@x.io"}, session.Identity{UserID: "user_123", SessionID: "jti_1", PrimaryEmail: "b@x.io"}},
		{"empty sid falls back", map[string]any{"sid": "", "jti": "jti_1", "email": ""}, session.Identity{UserID: "user_123", SessionID: "jti_1"}},
		{"neither", nil, session.Identity{UserID: "user_123"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := iss.claims(f.clock.Now())
			delete(c, "sid")
			delete(c, "email")
			for k, v := range tc.extra {
				c[k] = v
			}
			id, err := f.v.Verify(context.Background(), k.sign(t, c))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if id != tc.want {
				t.Fatalf("identity = %+v, want %+v", id, tc.want)
			}
		})
	}
}

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no issuer", Config{}},
		{"not a URL", Config{Issuer: "://nope"}},
		{"relative", Config{Issuer: "issuer.example"}},
		{"ftp", Config{Issuer: "ftp://issuer.example"}},
		{"no host", Config{Issuer: "https://"}},
		{"query", Config{Issuer: "https://issuer.example?x=1"}},
		{"fragment", Config{Issuer: "https://issuer.example#x"}},
		{"user info", Config{Issuer: "https://u:p@issuer.example"}},
		{"negative refresh", Config{Issuer: "https://issuer.example", RefreshInterval: -time.Second}},
		{"negative gap", Config{Issuer: "https://issuer.example", MinRefreshGap: -time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if v, err := New(context.Background(), tc.cfg); err == nil {
				t.Fatalf("New = %v, want error", v)
			}
		})
	}

	t.Run("defaults", func(t *testing.T) {
		iss := newTestIssuer(t, newECSigner(t, "k", elliptic.P256()))
		v, err := New(context.Background(), Config{Issuer: iss.URL(), HTTPClient: iss.srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		if v.refresh != time.Hour || v.minGap != 30*time.Second || v.log == nil || v.now == nil {
			t.Fatalf("defaults not applied: refresh %s gap %s", v.refresh, v.minGap)
		}
	})
}

func TestNewIssuerMismatch(t *testing.T) {
	iss := newTestIssuer(t, newECSigner(t, "k", elliptic.P256()))
	iss.mu.Lock()
	iss.discIssuer = iss.URL() + "/"
	iss.mu.Unlock()
	_, err := New(context.Background(), Config{Issuer: iss.URL(), HTTPClient: iss.srv.Client()})
	if !errors.Is(err, ErrIssuerMismatch) {
		t.Fatalf("err = %v, want ErrIssuerMismatch", err)
	}
}

func TestUnknownKidRefetchAfterRotation(t *testing.T) {
	oldKey := newECSigner(t, "2024", elliptic.P256())
	newKey := newRSASigner(t, "2025")
	iss := newTestIssuer(t, oldKey)
	f := newFixture(t, iss)
	ctx := context.Background()
	if _, err := f.v.Verify(ctx, oldKey.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("old key: %v", err)
	}

	iss.publish(oldKey, newKey) // issuer rotates
	// Right after the initial fetch the refetch is still rate-limited.
	if _, err := f.v.Verify(ctx, newKey.sign(t, iss.claims(f.clock.Now()))); !errors.Is(err, session.ErrInvalid) {
		t.Fatalf("new key within gap: err = %v, want ErrInvalid", err)
	}
	if got := iss.jwksHits.Load(); got != 1 {
		t.Fatalf("jwks hits = %d within gap, want 1", got)
	}

	f.clock.Advance(defaultMinRefreshGap)
	id, err := f.v.Verify(ctx, newKey.sign(t, iss.claims(f.clock.Now())))
	if err != nil {
		t.Fatalf("new key after gap: %v", err)
	}
	if id.UserID != "user_123" {
		t.Fatalf("identity = %+v", id)
	}
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2", got)
	}
	// Both keys now verify from the cache.
	for _, k := range []signer{oldKey, newKey} {
		if _, err := f.v.Verify(ctx, k.sign(t, iss.claims(f.clock.Now()))); err != nil {
			t.Fatalf("kid %s: %v", k.kid, err)
		}
	}
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2", got)
	}
}

func TestUnknownKidFloodRateLimited(t *testing.T) {
	real := newECSigner(t, "real", elliptic.P256())
	iss := newTestIssuer(t, real)
	f := newFixture(t, iss, func(c *Config) { c.MinRefreshGap = time.Minute })
	ctx := context.Background()

	flood := func(round int) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := range 100 {
			wg.Go(func() {
				forged := real.withKID(fmt.Sprintf("forged-%d-%d", round, i))
				_, err := f.v.Verify(ctx, forged.sign(t, iss.claims(f.clock.Now())))
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if !errors.Is(err, session.ErrInvalid) {
				t.Fatalf("forged kid: err = %v, want ErrInvalid", err)
			}
		}
		waitFetch(f.v)
	}

	wantHits := func(want int64) {
		t.Helper()
		if got := iss.jwksHits.Load(); got != want {
			t.Fatalf("jwks hits = %d, want %d", got, want)
		}
	}
	wantHits(1)
	flood(0) // within the gap of the initial fetch: no refetch at all
	wantHits(1)
	f.clock.Advance(time.Minute)
	flood(1) // one refetch, shared or rate-limited for the other 99
	wantHits(2)
	flood(2)
	f.clock.Advance(time.Minute - time.Nanosecond)
	flood(3)
	wantHits(2)
	f.clock.Advance(time.Nanosecond)
	flood(4)
	wantHits(3)

	// Genuine tokens keep working throughout.
	if _, err := f.v.Verify(ctx, real.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("real key: %v", err)
	}
	wantHits(3)
}

func TestConcurrentRefetchCoalesced(t *testing.T) {
	oldKey := newECSigner(t, "old", elliptic.P256())
	newKey := newECSigner(t, "new", elliptic.P256())
	iss := newTestIssuer(t, oldKey)
	f := newFixture(t, iss)
	iss.publish(oldKey, newKey)
	f.clock.Advance(defaultMinRefreshGap)

	release := iss.hold()
	t.Cleanup(release)
	const n = 20
	waiting := make(chan struct{}, n)
	f.v.waiting = func() { waiting <- struct{}{} }

	tok := newKey.sign(t, iss.claims(f.clock.Now()))
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := f.v.Verify(context.Background(), tok)
			errs <- err
		}()
	}
	// Every caller must end up waiting on the single blocked fetch. The
	// timer is a failure guard, not synchronisation.
	guard := time.After(10 * time.Second)
	for i := range n {
		select {
		case <-waiting:
		case <-guard:
			t.Fatalf("only %d of %d callers waited for the in-flight fetch", i, n)
		}
	}
	release()
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("Verify: %v", err)
		}
	}
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2 (one coalesced refetch)", got)
	}
}

func TestCanceledWaiterDoesNotAbortFetch(t *testing.T) {
	oldKey := newECSigner(t, "old", elliptic.P256())
	newKey := newECSigner(t, "new", elliptic.P256())
	iss := newTestIssuer(t, oldKey)
	f := newFixture(t, iss)
	iss.publish(newKey)
	f.clock.Advance(defaultMinRefreshGap)
	release := iss.hold()
	t.Cleanup(release)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tok := newKey.sign(t, iss.claims(f.clock.Now()))
	_, err := f.v.Verify(ctx, tok)
	if !errors.Is(err, session.ErrInvalid) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrInvalid and context.Canceled", err)
	}
	release()
	waitFetch(f.v)
	if _, err := f.v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after fetch: %v", err)
	}
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2", got)
	}
}

func TestPeriodicRefresh(t *testing.T) {
	oldKey := newECSigner(t, "old", elliptic.P256())
	newKey := newECSigner(t, "new", elliptic.P256())
	iss := newTestIssuer(t, oldKey)
	f := newFixture(t, iss, func(c *Config) { c.RefreshInterval = 10 * time.Minute })
	ctx := context.Background()

	f.clock.Advance(9 * time.Minute)
	if _, err := f.v.Verify(ctx, oldKey.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatal(err)
	}
	waitFetch(f.v)
	if got := iss.jwksHits.Load(); got != 1 {
		t.Fatalf("jwks hits = %d before the interval, want 1", got)
	}

	iss.publish(newKey) // old key revoked
	f.clock.Advance(time.Minute)
	// The stale cache still serves this request; the refresh runs behind it.
	if _, err := f.v.Verify(ctx, oldKey.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("stale cache: %v", err)
	}
	waitFetch(f.v)
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d after the interval, want 2", got)
	}
	if _, err := f.v.Verify(ctx, oldKey.sign(t, iss.claims(f.clock.Now()))); !errors.Is(err, session.ErrInvalid) {
		t.Fatalf("revoked key: err = %v, want ErrInvalid", err)
	}
	if _, err := f.v.Verify(ctx, newKey.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("new key: %v", err)
	}
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2", got)
	}
}

func TestRefreshFailureKeepsCachedKeys(t *testing.T) {
	k := newECSigner(t, "k", elliptic.P256())
	iss := newTestIssuer(t, k)
	f := newFixture(t, iss, func(c *Config) { c.RefreshInterval = 10 * time.Minute })
	ctx := context.Background()
	verify := func() {
		t.Helper()
		if _, err := f.v.Verify(ctx, k.sign(t, iss.claims(f.clock.Now()))); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		waitFetch(f.v)
	}

	iss.setDown(true)
	f.clock.Advance(10 * time.Minute)
	verify() // refresh attempted against the cached jwks_uri and fails
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2", got)
	}
	if !strings.Contains(f.logs.String(), "keeping cached keys") {
		t.Fatalf("refresh failure not logged:\n%s", f.logs)
	}
	verify() // within the gap: no new attempt
	if got := iss.discoveryHits.Load(); got != 1 {
		t.Fatalf("discovery hits = %d, want 1", got)
	}
	f.clock.Advance(defaultMinRefreshGap)
	verify() // retried, rediscovering after the failure
	if got := iss.discoveryHits.Load(); got != 2 {
		t.Fatalf("discovery hits = %d, want 2", got)
	}

	iss.setDown(false)
	f.clock.Advance(defaultMinRefreshGap)
	verify()
	if got := iss.jwksHits.Load(); got != 3 {
		t.Fatalf("jwks hits = %d, want 3", got)
	}
	f.clock.Advance(defaultMinRefreshGap)
	verify() // fresh again: nothing fetched
	if got := iss.jwksHits.Load(); got != 3 {
		t.Fatalf("jwks hits = %d, want 3", got)
	}
}

func TestIssuerDownAtStart(t *testing.T) {
	k := newRSASigner(t, "k")

	t.Run("up before first verify", func(t *testing.T) {
		iss := newTestIssuer(t, k)
		iss.setDown(true)
		f := newFixture(t, iss)
		if !strings.Contains(f.logs.String(), "will retry") {
			t.Fatalf("start failure not logged:\n%s", f.logs)
		}
		iss.setDown(false)
		// The first Verify retries at once, without waiting for the gap.
		if _, err := f.v.Verify(context.Background(), k.sign(t, iss.claims(f.clock.Now()))); err != nil {
			t.Fatalf("Verify: %v", err)
		}
	})

	t.Run("still down at first verify", func(t *testing.T) {
		iss := newTestIssuer(t, k)
		iss.setDown(true)
		f := newFixture(t, iss)
		ctx := context.Background()
		tok := k.sign(t, iss.claims(f.clock.Now()))
		_, err := f.v.Verify(ctx, tok)
		if !errors.Is(err, session.ErrInvalid) || !errors.Is(err, ErrKeysUnavailable) {
			t.Fatalf("err = %v, want ErrInvalid and ErrKeysUnavailable", err)
		}
		if got := iss.discoveryHits.Load(); got != 2 {
			t.Fatalf("discovery hits = %d, want 2", got)
		}
		iss.setDown(false)
		_, err = f.v.Verify(ctx, tok) // within the gap of the failed attempt
		if !errors.Is(err, ErrKeysUnavailable) {
			t.Fatalf("err = %v, want ErrKeysUnavailable", err)
		}
		if got := iss.discoveryHits.Load(); got != 2 {
			t.Fatalf("discovery hits = %d, want 2", got)
		}
		f.clock.Advance(defaultMinRefreshGap)
		if _, err := f.v.Verify(ctx, tok); err != nil {
			t.Fatalf("Verify after recovery: %v", err)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		iss := newTestIssuer(t, k)
		url := iss.URL()
		iss.srv.Close()
		v, err := New(context.Background(), Config{Issuer: url})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		_, err = v.Verify(context.Background(), k.sign(t, jwt.MapClaims{"iss": url, "sub": "u", "exp": time.Now().Add(time.Minute).Unix()}))
		if !errors.Is(err, ErrKeysUnavailable) {
			t.Fatalf("err = %v, want ErrKeysUnavailable", err)
		}
	})
}

func TestParseJWKS(t *testing.T) {
	rsaKey := newRSASigner(t, "r")
	ecKey := newECSigner(t, "e", elliptic.P256())
	weak, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	weakJWK := signer{kid: "weak", priv: weak}.jwk()
	with := func(base map[string]any, kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	ecj, rsj := ecKey.jwk(), rsaKey.jwk()
	x, _ := base64.RawURLEncoding.DecodeString(ecj["x"].(string))

	tests := []struct {
		name string
		key  map[string]any
		ok   bool
		algs []string
	}{
		{"rsa", rsj, true, rsaAlgs()},
		{"rsa with alg", with(rsj, "alg", "PS384"), true, []string{"PS384"}},
		{"rsa padded base64", with(rsj, "e", "AQAB"+"="), true, rsaAlgs()},
		{"rsa with enc alg", with(rsj, "alg", "RSA-OAEP"), false, nil},
		{"rsa HMAC alg", with(rsj, "alg", "HS256"), false, nil},
		{"rsa 1024 bits", weakJWK, false, nil},
		{"rsa even exponent", with(rsj, "e", b64u([]byte{2})), false, nil},
		{"rsa exponent 1", with(rsj, "e", b64u([]byte{1})), false, nil},
		{"rsa huge exponent", with(rsj, "e", b64u([]byte{1, 0, 0, 0, 1})), false, nil},
		{"rsa missing n", with(rsj, "n", ""), false, nil},
		{"rsa bad base64", with(rsj, "n", "!!"), false, nil},
		{"ec", ecj, true, []string{"ES256"}},
		{"ec matching alg", with(ecj, "alg", "ES256"), true, []string{"ES256"}},
		{"ec mismatched alg", with(ecj, "alg", "ES384"), false, nil},
		{"ec unknown curve", with(ecj, "crv", "secp256k1"), false, nil},
		{"ec point off curve", with(ecj, "x", b64u(append([]byte{x[0] ^ 1}, x[1:]...))), false, nil},
		{"ec coordinate too long", with(ecj, "x", b64u(append([]byte{0}, x...))), false, nil},
		{"ec missing y", with(ecj, "y", ""), false, nil},
		{"encryption key", with(rsj, "use", "enc"), false, nil},
		{"key_ops without verify", with(ecj, "key_ops", []string{"sign"}), false, nil},
		{"key_ops with verify", with(ecj, "key_ops", []string{"verify"}), true, []string{"ES256"}},
		{"symmetric key", map[string]any{"kty": "oct", "kid": "s", "k": b64u([]byte("secret"))}, false, nil},
		{"OKP key", map[string]any{"kty": "OKP", "kid": "o", "crv": "Ed25519", "x": b64u(make([]byte, 32))}, false, nil},
		{"no kty", map[string]any{"kid": "x"}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ks, skipped, err := parseJWKS(mustJSON(t, map[string]any{"keys": []any{tc.key}}))
			if !tc.ok {
				if err == nil || len(skipped) != 1 {
					t.Fatalf("parseJWKS = %v, %v, %v; want the key skipped and an error", ks, skipped, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseJWKS: %v (skipped %v)", err, skipped)
			}
			if len(ks.all) != 1 || strings.Join(ks.all[0].algs, ",") != strings.Join(tc.algs, ",") {
				t.Fatalf("keys = %+v, want one key with algs %v", ks.all, tc.algs)
			}
		})
	}

	t.Run("short EC coordinate is left-padded", func(t *testing.T) {
		// Find a key whose x has a leading zero byte, then strip it.
		for i := 0; i < 2000; i++ {
			k := newECSigner(t, "z", elliptic.P256())
			j := k.jwk()
			xb, _ := base64.RawURLEncoding.DecodeString(j["x"].(string))
			if xb[0] != 0 {
				continue
			}
			j["x"] = b64u(xb[1:])
			ks, _, err := parseJWKS(mustJSON(t, map[string]any{"keys": []any{j}}))
			if err != nil {
				t.Fatalf("parseJWKS: %v", err)
			}
			if !ks.all[0].pub.(interface{ Equal(crypto.PublicKey) bool }).Equal(k.priv.Public()) {
				t.Fatal("parsed key differs")
			}
			return
		}
		t.Skip("no key with a leading zero x byte generated")
	})

	t.Run("duplicate kid keeps the first", func(t *testing.T) {
		other := newECSigner(t, "e", elliptic.P256())
		ks, skipped, err := parseJWKS(mustJSON(t, map[string]any{"keys": []any{ecj, other.jwk()}}))
		if err != nil || len(ks.all) != 1 || len(skipped) != 1 {
			t.Fatalf("parseJWKS = %v, %v, %v", ks, skipped, err)
		}
	})

	t.Run("documents", func(t *testing.T) {
		for _, doc := range []string{``, `[]`, `{"keys":{}}`, `{"keys":[]}`, `{"keys":[1]}`, `{}`} {
			if _, _, err := parseJWKS([]byte(doc)); err == nil {
				t.Errorf("parseJWKS(%q) succeeded", doc)
			}
		}
	})
}
