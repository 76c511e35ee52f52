package oidc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// RSA modulus bounds accepted from a JWKS. Below 2048 bits is too weak; the
// upper bound keeps a hostile JWKS from making every verification expensive.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// rsaAlgs returns the algorithms an RSA key may verify when its JWK names
// none.
func rsaAlgs() []string {
	return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
}

// supportedAlgs returns every algorithm the parser accepts before a key is
// chosen; the chosen key then narrows it further (see key.algs). "none" and
// the HMAC algorithms are deliberately absent.
func supportedAlgs() []string {
	return append(rsaAlgs(), "ES256", "ES384", "ES512")
}

// key is a usable verification key from the JWKS.
type key struct {
	kid  string
	pub  crypto.PublicKey // *rsa.PublicKey or *ecdsa.PublicKey
	algs []string         // token algorithms this key may verify
}

// keySet is an immutable snapshot of the issuer's keys.
type keySet struct {
	byKID map[string]*key
	all   []*key
}

// find returns the key for kid. A token without a kid may only use the set's
// key when the set holds exactly one.
func (s *keySet) find(kid string) *key {
	if s == nil {
		return nil
	}
	if kid == "" {
		if len(s.all) == 1 {
			return s.all[0]
		}
		return nil
	}
	return s.byKID[kid]
}

// jwk is the subset of RFC 7517/7518 members this package reads.
type jwk struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Alg    string   `json:"alg"`
	N      string   `json:"n"`
	E      string   `json:"e"`
	Crv    string   `json:"crv"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
}

// parseJWKS parses a JWKS document. Keys that are not usable for signature
// verification (encryption keys, symmetric or unsupported key types, weak or
// malformed keys) are skipped and reported in skipped; a set without any
// usable key is an error.
func parseJWKS(data []byte) (ks *keySet, skipped []string, err error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("decode jwks: %w", err)
	}
	ks = &keySet{byKID: map[string]*key{}}
	for i, raw := range doc.Keys {
		var j jwk
		if err := json.Unmarshal(raw, &j); err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d: %v", i, err))
			continue
		}
		k, err := j.key()
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d (kid %q): %v", i, j.Kid, err))
			continue
		}
		if k.kid != "" {
			if _, dup := ks.byKID[k.kid]; dup {
				skipped = append(skipped, fmt.Sprintf("key %d: duplicate kid %q", i, k.kid))
				continue
			}
			ks.byKID[k.kid] = k
		}
		ks.all = append(ks.all, k)
	}
	if len(ks.all) == 0 {
		return nil, skipped, fmt.Errorf("jwks has no usable signing key (%d keys, %d skipped)", len(doc.Keys), len(skipped))
	}
	return ks, skipped, nil
}

// key converts the JWK to a verification key.
func (j jwk) key() (*key, error) {
	if j.Use != "" && j.Use != "sig" {
		return nil, fmt.Errorf("use %q is not sig", j.Use)
	}
	if len(j.KeyOps) > 0 && !slices.Contains(j.KeyOps, "verify") {
		return nil, errors.New("key_ops does not include verify")
	}
	switch j.Kty {
	case "RSA":
		pub, err := parseRSA(j.N, j.E)
		if err != nil {
			return nil, err
		}
		algs := rsaAlgs()
		if j.Alg != "" {
			if !slices.Contains(algs, j.Alg) {
				return nil, fmt.Errorf("alg %q is not an RSA signature algorithm", j.Alg)
			}
			algs = []string{j.Alg}
		}
		return &key{kid: j.Kid, pub: pub, algs: algs}, nil
	case "EC":
		pub, alg, err := parseEC(j.Crv, j.X, j.Y)
		if err != nil {
			return nil, err
		}
		if j.Alg != "" && j.Alg != alg {
			return nil, fmt.Errorf("alg %q does not match curve %s", j.Alg, j.Crv)
		}
		return &key{kid: j.Kid, pub: pub, algs: []string{alg}}, nil
	default:
		return nil, fmt.Errorf("unsupported kty %q", j.Kty)
	}
}

func parseRSA(n, e string) (*rsa.PublicKey, error) {
	nb, err := b64(n)
	if err != nil {
		return nil, fmt.Errorf("rsa n: %w", err)
	}
	eb, err := b64(e)
	if err != nil {
		return nil, fmt.Errorf("rsa e: %w", err)
	}
	mod := new(big.Int).SetBytes(nb)
	if bits := mod.BitLen(); bits < minRSABits || bits > maxRSABits {
		return nil, fmt.Errorf("rsa modulus of %d bits outside [%d, %d]", bits, minRSABits, maxRSABits)
	}
	exp := new(big.Int).SetBytes(eb)
	if exp.BitLen() > 31 || exp.Int64() < 3 || exp.Bit(0) == 0 {
		return nil, fmt.Errorf("rsa exponent %s is not an odd integer in [3, 2^31)", exp)
	}
	return &rsa.PublicKey{N: mod, E: int(exp.Int64())}, nil
}

func parseEC(crv, x, y string) (*ecdsa.PublicKey, string, error) {
	var (
		curve elliptic.Curve
		alg   string
	)
	switch crv {
	case "P-256":
		curve, alg = elliptic.P256(), "ES256"
	case "P-384":
		curve, alg = elliptic.P384(), "ES384"
	case "P-521":
		curve, alg = elliptic.P521(), "ES512"
	default:
		return nil, "", fmt.Errorf("unsupported crv %q", crv)
	}
	size := (curve.Params().BitSize + 7) / 8
	xb, err := b64(x)
	if err != nil {
		return nil, "", fmt.Errorf("ec x: %w", err)
	}
	yb, err := b64(y)
	if err != nil {
		return nil, "", fmt.Errorf("ec y: %w", err)
	}
	if len(xb) == 0 || len(xb) > size || len(yb) == 0 || len(yb) > size {
		return nil, "", fmt.Errorf("ec coordinates must be at most %d bytes for %s", size, crv)
	}
	// Uncompressed SEC 1 point: 0x04 || X || Y, coordinates left-padded
	// (RFC 7518 requires full length; some issuers drop leading zeros).
	pt := make([]byte, 1+2*size)
	pt[0] = 4
	copy(pt[1+size-len(xb):1+size], xb)
	copy(pt[1+2*size-len(yb):], yb)
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, pt)
	if err != nil {
		return nil, "", fmt.Errorf("ec point: %w", err)
	}
	return pub, alg, nil
}

// b64 decodes base64url, tolerating the padding some issuers emit.
func b64(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("missing")
	}
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}
