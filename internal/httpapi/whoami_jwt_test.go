package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/oidc"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/session"
	"github.com/golang-jwt/jwt/v5"
)

// testIssuer is an OIDC issuer serving discovery and a JWKS with one RSA key.
func testIssuer(t *testing.T, key *rsa.PrivateKey) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": srv.URL, "jwks_uri": srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		enc := base64.RawURLEncoding.EncodeToString
		json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
			"n": enc(key.N.Bytes()), "e": enc(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func sign(t *testing.T, key *rsa.PrivateKey, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWhoamiJWT runs /v1/whoami through the real OIDC verifier against a
// test issuer: valid (bearer and cookie), expired, forged, wrong audience.
func TestWhoamiJWT(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	iss := testIssuer(t, key)
	v, err := oidc.New(context.Background(), oidc.Config{Issuer: iss.URL, Audience: "assetd", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, ratelimit.Policy{})
	h.srv.d.Sessions = session.Router{JWT: v}
	now := time.Now()
	claims := func(exp time.Time, aud string) jwt.MapClaims {
		return jwt.MapClaims{"iss": iss.URL, "aud": aud, "sub": "user_9", "sid": "sess_9", "email": "nine@example.com",
			"iat": now.Add(-time.Minute).Unix(), "exp": exp.Unix()}
	}
	good := sign(t, key, claims(now.Add(time.Hour), "assetd"))
	cases := []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{"bearer", map[string]string{"Authorization": "Bearer " + good}, 200},
		{"cookie", map[string]string{"Cookie": "__session=" + good}, 200},
		{"expired", map[string]string{"Authorization": "Bearer " + sign(t, key, claims(now.Add(-time.Hour), "assetd"))}, 401},
		{"forged", map[string]string{"Authorization": "Bearer " + sign(t, other, claims(now.Add(time.Hour), "assetd"))}, 401},
		{"wrong audience", map[string]string{"Authorization": "Bearer " + sign(t, key, claims(now.Add(time.Hour), "other"))}, 401},
		{"garbage", map[string]string{"Authorization": "Bearer not.a.jwt"}, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(t, "GET", "/v1/whoami", tc.hdr, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if tc.status == 200 && (r.body["userId"] != "user_9" || r.body["sessionId"] != "sess_9" || r.body["primaryEmail"] != "nine@example.com") {
				t.Fatalf("identity: %s", r.raw)
			}
			if tc.status == 401 && errTag(r) != "Unauthorized" {
				t.Fatalf("tag %q", errTag(r))
			}
		})
	}
}
