package oidc

import (
	"context"
	"crypto/elliptic"
	"errors"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/assetd/assetd/internal/session"
)

// FuzzVerify asserts that Verify never panics and that every failure wraps
// session.ErrInvalid. The clock never moves, so no input can trigger a
// refetch after the initial one.
func FuzzVerify(f *testing.F) {
	rsaKey := newRSASigner(f, "rsa-1")
	ecKey := newECSigner(f, "ec-1", elliptic.P256())
	iss := newTestIssuer(f, rsaKey, ecKey)
	fx := newFixture(f, iss)
	c := iss.claims(fx.clock.Now())

	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, c).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		f.Fatal(err)
	}
	hs, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte("secret"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		rsaKey.sign(f, c),
		rsaKey.with(jwt.SigningMethodPS512).sign(f, c),
		ecKey.sign(f, c),
		ecKey.withKID("").sign(f, c),
		none,
		hs,
		"",
		"a.b.c",
		"eyJhbGciOiJSUzI1NiIsImtpZCI6InJzYS0xIn0.e30.",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		id, err := fx.v.Verify(context.Background(), token)
		if err != nil {
			if !errors.Is(err, session.ErrInvalid) {
				t.Fatalf("error does not wrap session.ErrInvalid: %v", err)
			}
			return
		}
		if id.UserID == "" {
			t.Fatalf("accepted token without a user: %q", token)
		}
	})
}
