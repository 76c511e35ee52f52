package webhooks

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Resolver looks host names up (net.DefaultResolver; tests inject one).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard keeps webhook targets on public addresses: the URL must be https
// and every address its host resolves to public, checked when an endpoint
// is created or changed and again on every connection (the dialer resolves
// through the guard and re-checks the address it connects to, so a DNS
// answer that changes after creation is caught).
type Guard struct {
	// AllowPrivate admits any address and plain http (--webhook-allow-private,
	// for tests and closed networks).
	AllowPrivate bool
	// Resolver (nil: net.DefaultResolver).
	Resolver Resolver
}

func (g *Guard) resolver() Resolver {
	if g.Resolver != nil {
		return g.Resolver
	}
	return net.DefaultResolver
}

// ErrNotPublic is wrapped by refusals of a non-public address.
var ErrNotPublic = errors.New("address is not public")

// nonPublic are the ranges no webhook may reach besides what netip's
// predicates cover (loopback, private, link-local, multicast, unspecified).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // CGNAT
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),       // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),    // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),     // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),       // NAT64 (embeds IPv4)
	netip.MustParsePrefix("64:ff9b:1::/48"),     // local-use NAT64
	netip.MustParsePrefix("100::/64"),           // discard
	netip.MustParsePrefix("2001:db8::/32"),      // documentation
	netip.MustParsePrefix("2002::/16"),          // 6to4 (embeds IPv4)
	netip.MustParsePrefix("2001::/32"),          // Teredo
	netip.MustParsePrefix("fc00::/7"),           // unique local
	netip.MustParsePrefix("fec0::/10"),          // site-local (deprecated)
	netip.MustParsePrefix("169.254.169.254/32"), // cloud metadata (also link-local)
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS IPv6 metadata (also unique local)
}

// Public reports whether a is a public unicast address.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// CheckURL validates a target URL and, unless AllowPrivate, resolves its
// host and refuses it when any address is not public. Refusals are
// *InputError (codes invalid_url, url_not_https, url_not_public,
// url_unresolvable).
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLLength {
		return inputErr("invalid_url", "url", "url is longer than %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" {
		return inputErr("invalid_url", "url", "url must be an absolute https URL")
	}
	if u.User != nil {
		return inputErr("invalid_url", "url", "url must not carry credentials")
	}
	if u.Fragment != "" {
		return inputErr("invalid_url", "url", "url must not carry a fragment")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowPrivate:
	default:
		return inputErr("url_not_https", "url", "url must use https")
	}
	if g.AllowPrivate {
		return nil
	}
	if _, err := g.resolve(ctx, u.Hostname()); err != nil {
		if errors.Is(err, ErrNotPublic) {
			return inputErr("url_not_public", "url", "url must resolve to public addresses only (%v)", err)
		}
		return inputErr("url_unresolvable", "url", "url host does not resolve: %v", err)
	}
	return nil
}

// resolve returns host's addresses, all public (else ErrNotPublic).
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(host, ".")
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err = g.resolver().LookupNetIP(lctx, "ip", host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("no address for %s", host)
		}
	}
	if g.AllowPrivate {
		return addrs, nil
	}
	for _, a := range addrs {
		if !Public(a) {
			return nil, fmt.Errorf("%s resolves to %s: %w", host, a.Unmap(), ErrNotPublic)
		}
	}
	return addrs, nil
}

// control refuses a connection to a non-public address: the last check,
// on the address the socket is about to connect to.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhooks: dial %s: %w", address, err)
	}
	if !Public(ap.Addr()) {
		return fmt.Errorf("webhooks: dial %s: %w", address, ErrNotPublic)
	}
	return nil
}

// DialContext connects to addr (host:port) through the guard: the host is
// resolved by the guard's resolver, every answer must be public, and the
// dialer's Control re-checks the address it connects to.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 10 * time.Second, Control: g.control}
	var first error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// Client returns the HTTP client deliveries use: the guard's dialer, no
// proxy (an environment proxy would reach what the guard refuses), no
// redirects (a redirect could leave the checked host), timeout per attempt.
// tlsConfig may be nil (system roots).
func (g *Guard) Client(timeout time.Duration, tlsConfig *tls.Config) *http.Client {
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: t,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// checkScheme refuses a non-https target at delivery time (the stored URL
// was checked at creation; this keeps a plain-http row from a private
// setup from being sent when the guard is on).
func (g *Guard) checkScheme(raw string) error {
	if g.AllowPrivate || strings.HasPrefix(raw, "https://") {
		return nil
	}
	return fmt.Errorf("webhooks: %s: url must use https: %w", raw, ErrNotPublic)
}
