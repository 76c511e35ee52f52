package httpapi

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/registry"
)

// Query parameter parsing. Every bad value is a 400 BadRequestError whose
// details name the parameter (`param`) with a stable `code`:
// invalid_param for malformed or out-of-range values, missing_param for a
// required one, plus `allowed` for enumerations.

func badParam(param, msg string, extra apierr.Details) *apierr.Error {
	d := apierr.Details{"code": "invalid_param", "param": param}
	for k, v := range extra {
		d[k] = v
	}
	return apierr.New(apierr.BadRequest, msg).WithDetails(d)
}

func missingParam(param, msg string) *apierr.Error {
	return apierr.New(apierr.BadRequest, msg).WithDetails(apierr.Details{"code": "missing_param", "param": param})
}

// intParam parses an optional integer in [lo, hi]; absent gives def.
// clamp lowers values above hi to hi instead of refusing them (the spec
// says "clamped" for those limits).
func intParam(q url.Values, name string, def, lo, hi int, clamp bool) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || (!clamp && n > hi) {
		return 0, badParam(name, "Invalid "+name+": must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi), nil)
	}
	return min(n, hi), nil
}

// enumParam parses an optional value from allowed; absent gives def.
func enumParam(q url.Values, name, def string, allowed []string) (string, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	if !slices.Contains(allowed, s) {
		return "", badParam(name, "Invalid "+name+": "+strconv.Quote(s)+" (allowed: "+strings.Join(allowed, ", ")+")",
			apierr.Details{"allowed": allowed})
	}
	return s, nil
}

// allParam parses a parameter whose only value is "all".
func allParam(q url.Values, name string) (bool, error) {
	v, err := enumParam(q, name, "", []string{"all"})
	return v == "all", err
}

// mintParam parses an optional mint.
func mintParam(q url.Values, name string) (string, error) {
	s := strings.TrimSpace(q.Get(name))
	if s == "" {
		return "", nil
	}
	if !registry.ValidMint(s) {
		return "", apierr.Newf(apierr.BadRequest, "Invalid mint: %q is not a base58 32-byte address", s).
			WithDetails(apierr.Details{"code": "invalid_mint", "param": name, "mint": s})
	}
	return s, nil
}
