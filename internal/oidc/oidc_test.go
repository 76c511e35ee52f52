package oidc

import (
	"context"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/assetd/assetd/internal/poll"
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
	withHeader := func(s signer, hdr map[string]any) string { // a valid token with extra header fields
		tok := jwt.NewWithClaims(s.method, valid(nil))
		tok.Header["kid"] = s.kid
		for k, v := range hdr {
			tok.Header[k] = v
		}
		out, err := tok.SignedString(s.priv)
		if err != nil {
			t.Fatal(err)
		}
		return out
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
		{"no kid: tried against every published key", rsaKey.withKID("").sign(t, valid(nil))},
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
		{"exp a numeric string", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["exp"] = strconv.FormatInt(now.Add(time.Hour).Unix(), 10) })), jwt.ErrTokenMalformed},
		{"exp a boolean", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["exp"] = true })), jwt.ErrTokenMalformed},
		{"nbf a numeric string", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["nbf"] = strconv.FormatInt(now.Unix(), 10) })), jwt.ErrTokenMalformed},
		{"iat a numeric string", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["iat"] = strconv.FormatInt(now.Unix(), 10) })), jwt.ErrTokenMalformed},
		{"unknown crit header", withHeader(rsaKey, map[string]any{"crit": []string{"exp-ext"}, "exp-ext": 1}), jwt.ErrTokenUnverifiable},
		{"crit naming nothing", withHeader(rsaKey, map[string]any{"crit": []string{}}), jwt.ErrTokenUnverifiable},
		{"crit not an array", withHeader(rsaKey, map[string]any{"crit": "b64"}), jwt.ErrTokenUnverifiable},
		{"wrong issuer", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })), jwt.ErrTokenInvalidIssuer},
		{"issuer with trailing slash", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["iss"] = iss.URL() + "/" })), jwt.ErrTokenInvalidIssuer},
		{"missing issuer", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "iss") })), jwt.ErrTokenRequiredClaimMissing},
		{"wrong audience", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["aud"] = "other" })), jwt.ErrTokenInvalidAudience},
		{"audience array without ours", rsaKey.sign(t, valid(func(c jwt.MapClaims) { c["aud"] = []string{"a", "b"} })), jwt.ErrTokenInvalidAudience},
		{"missing audience", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "aud") })), jwt.ErrTokenRequiredClaimMissing},
		{"missing sub", rsaKey.sign(t, valid(func(c jwt.MapClaims) { delete(c, "sub") })), nil},

		{"forged signature same kid", forger.sign(t, valid(nil)), jwt.ErrTokenSignatureInvalid},
		{"tampered payload", tamper(rsaKey.sign(t, valid(nil))), jwt.ErrTokenSignatureInvalid},
		{"RSA alg on EC key", forger.withKID("ec-1").sign(t, valid(nil)), jwt.ErrTokenSignatureInvalid},
		{"ES256 alg on RSA key", ecKey.withKID("rsa-1").sign(t, valid(nil)), jwt.ErrTokenSignatureInvalid},
		{"ES384 on P-256 key", p384.sign(t, valid(nil)), jwt.ErrTokenSignatureInvalid},
		{"alg none", unsigned(""), jwt.ErrTokenSignatureInvalid},
		{"alg None", unsigned(`{"alg":"None","kid":"rsa-1"}`), jwt.ErrTokenUnverifiable},
		{"HS256 keyed with public key PEM", hmacWith(pubPEM()), jwt.ErrTokenSignatureInvalid},
		{"HS256 keyed with modulus", hmacWith(rsaKey.priv.Public().(*rsa.PublicKey).N.Bytes()), jwt.ErrTokenSignatureInvalid},
		{"no kid, signed by no published key", forger.withKID("").sign(t, valid(nil)), jwt.ErrTokenSignatureInvalid},

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

// TestUnknownKidRefetchAfterRotation: a token signed by a key the cache
// does not hold yet makes the verifier refetch the JWKS once; both keys then
// verify from the cache.
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
	id, err := f.v.Verify(ctx, newKey.sign(t, iss.claims(f.clock.Now())))
	if err != nil || id.UserID != "user_123" {
		t.Fatalf("new key: %+v %v", id, err)
	}
	for _, k := range []signer{oldKey, newKey} {
		if _, err := f.v.Verify(ctx, k.sign(t, iss.claims(f.clock.Now()))); err != nil {
			t.Fatalf("kid %s: %v", k.kid, err)
		}
	}
	if got := iss.jwksHits.Load(); got != 2 {
		t.Fatalf("jwks hits = %d, want 2 (start and one refetch)", got)
	}
}

// TestUnknownKidFloodRateLimited: floods of tokens with forged kids cost
// the issuer at most one JWKS fetch per MinRefreshGap and are all refused;
// genuine tokens keep working throughout.
func TestUnknownKidFloodRateLimited(t *testing.T) {
	real := newECSigner(t, "real", elliptic.P256())
	iss := newTestIssuer(t, real)
	f := newFixture(t, iss, func(c *Config) { c.MinRefreshGap = time.Hour })
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
	}
	for round := range 3 {
		flood(round)
		if got := iss.jwksHits.Load(); got > 2 {
			t.Fatalf("after flood %d: jwks hits = %d, want at most 2 (start and one refetch per hour)", round, got)
		}
	}
	if _, err := f.v.Verify(ctx, real.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("real key: %v", err)
	}
}

// TestPeriodicRefresh: the key set is refetched every RefreshInterval in
// the background, so a key the issuer revoked stops verifying without any
// unknown kid.
func TestPeriodicRefresh(t *testing.T) {
	oldKey := newECSigner(t, "old", elliptic.P256())
	newKey := newECSigner(t, "new", elliptic.P256())
	iss := newTestIssuer(t, oldKey)
	f := newFixture(t, iss, func(c *Config) { c.RefreshInterval = 20 * time.Millisecond })
	ctx := context.Background()
	if _, err := f.v.Verify(ctx, oldKey.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatal(err)
	}
	iss.publish(newKey) // old key revoked
	poll.For(t, 30*time.Second, "revoked key refused", func() bool {
		_, err := f.v.Verify(ctx, oldKey.sign(t, iss.claims(f.clock.Now())))
		return errors.Is(err, session.ErrInvalid)
	})
	if _, err := f.v.Verify(ctx, newKey.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("new key: %v", err)
	}
}

// TestRefreshFailureKeepsCachedKeys: while the issuer is down the cached
// keys keep verifying and the failed refreshes are logged.
func TestRefreshFailureKeepsCachedKeys(t *testing.T) {
	k := newECSigner(t, "k", elliptic.P256())
	iss := newTestIssuer(t, k)
	f := newFixture(t, iss, func(c *Config) { c.RefreshInterval = 20 * time.Millisecond })
	iss.setDown(true)
	poll.For(t, 30*time.Second, "failed refreshes logged", func() bool {
		return iss.jwksHits.Load() >= 3 && strings.Contains(f.logs.String(), "keeping cached keys")
	})
	if _, err := f.v.Verify(context.Background(), k.sign(t, iss.claims(f.clock.Now()))); err != nil {
		t.Fatalf("Verify with the issuer down: %v", err)
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

// TestKeyTypesAndAlgorithms: RSA and EC keys verify the algorithms they
// can; a JWK's alg pins its key to that algorithm; symmetric keys in the
// JWKS never verify (HMAC is not an accepted algorithm).
func TestKeyTypesAndAlgorithms(t *testing.T) {
	rsaKey := newRSASigner(t, "r")
	ps := rsaKey.withKID("ps").with(jwt.SigningMethodPS384)
	pinned := newRSASigner(t, "pinned")
	ec384 := newECSigner(t, "e384", elliptic.P384())
	secret := []byte("0123456789abcdef0123456789abcdef")
	iss := newTestIssuer(t, rsaKey, ps, pinned, ec384)
	iss.mu.Lock()
	for _, j := range iss.keys {
		if j["kid"] == "pinned" {
			j["alg"] = "RS512"
		}
	}
	iss.keys = append(iss.keys, map[string]any{"kty": "oct", "kid": "sym", "k": b64u(secret)})
	iss.mu.Unlock()
	f := newFixture(t, iss)
	now := f.clock.Now()
	hmac := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, iss.claims(now))
		tok.Header["kid"] = "sym"
		s, err := tok.SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		token string
		ok    bool
	}{
		{"RS256", rsaKey.sign(t, iss.claims(now)), true},
		{"PS384 with an RSA key", ps.sign(t, iss.claims(now)), true},
		{"ES384", ec384.sign(t, iss.claims(now)), true},
		{"RS256 with a key pinned to RS512", pinned.sign(t, iss.claims(now)), false},
		{"RS512 with a key pinned to RS512", pinned.with(jwt.SigningMethodRS512).sign(t, iss.claims(now)), true},
		{"ES256 naming an RSA key", newECSigner(t, "r", elliptic.P256()).sign(t, iss.claims(now)), false},
		{"HS256 with a symmetric JWKS key", hmac(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.v.Verify(context.Background(), tc.token)
			if (err == nil) != tc.ok {
				t.Fatalf("Verify: %v; want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, session.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}
