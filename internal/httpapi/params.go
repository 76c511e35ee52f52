package httpapi

import (
	"errors"
	"net/http"
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

// query is the request's query parameters, parsed per call as
// URL.Query does; a request without a query string gets a nil map (every
// Get answers "") and parses nothing. Read it, never write it.
func query(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}

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

// maxOffset bounds every offset parameter (larger values are lowered to
// it: the page is empty either way).
const maxOffset = 1 << 30

// limitParam parses an optional page-size parameter; absent gives def.
// The rule for every limit (docs/errors.md): a value that is not an
// integer is a 400; an integer outside [lo, hi] is clamped into it (the
// spec's "clamped", and what the public reference's clients rely on).
func limitParam(q url.Values, name string, def, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange): // an integer too long for int
		if strings.HasPrefix(s, "-") {
			return lo, nil
		}
		return hi, nil
	case err != nil:
		return 0, badParam(name, "Invalid "+name+": must be an integer (values outside "+strconv.Itoa(lo)+".."+strconv.Itoa(hi)+" are clamped)", nil)
	}
	return min(max(n, lo), hi), nil
}

// offsetParam parses an optional zero-based offset (default 0): a
// non-negative integer, else 400; values above maxOffset are lowered to it.
func offsetParam(q url.Values, name string) (int, error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-"):
		return maxOffset, nil
	case err != nil || n < 0:
		return 0, badParam(name, "Invalid "+name+": must be a non-negative integer", nil)
	}
	return min(n, maxOffset), nil
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

var allValues = []string{"all"}

// allParam parses a parameter whose only value is "all".
func allParam(q url.Values, name string) (bool, error) {
	v, err := enumParam(q, name, "", allValues)
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
