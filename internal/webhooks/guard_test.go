package webhooks

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
)

// fakeResolver answers from a table (names not in it do not resolve).
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, s := range ips {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

var testResolver = fakeResolver{
	"hooks.example.com":    {"93.184.215.14"},                // public (synthetic)
	"loopback.example.com": {"127.0.0.1"},                    // loopback
	"private.example.com":  {"10.0.0.1"},                     // RFC 1918
	"metadata.example.com": {"169.254.169.254"},              // cloud metadata
	"mixed.example.com":    {"93.184.215.14", "192.168.1.1"}, // one private answer is enough to refuse
	"v6local.example.com":  {"fd00::1"},                      // unique local
}

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"93.184.215.14", true},
		{"2606:4700::6810:84e5", true},
		{"127.0.0.1", false},
		{"127.8.8.8", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"172.16.5.4", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"169.254.1.1", false},
		{"100.64.0.1", false},    // CGNAT
		{"0.0.0.0", false},       // unspecified
		{"::", false},            // unspecified
		{"224.0.0.1", false},     // multicast
		{"ff02::1", false},       // multicast
		{"fe80::1", false},       // link-local
		{"fd00::1", false},       // unique local
		{"fd00:ec2::254", false}, // AWS IPv6 metadata
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
		{"255.255.255.255", false},
		{"198.18.0.1", false},
		{"192.0.2.1", false},
	} {
		if got := Public(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Public(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	g := &Guard{Resolver: testResolver}
	for _, tc := range []struct {
		url, code string // code "": accepted
	}{
		{"https://hooks.example.com/assetd", ""},
		{"https://93.184.215.14:8443/x", ""},
		{"http://hooks.example.com/assetd", "url_not_https"},
		{"ftp://hooks.example.com/", "url_not_https"},
		{"hooks.example.com/assetd", "invalid_url"},
		{"https://", "invalid_url"},
		{"https://user:pw@hooks.example.com/", "invalid_url"},
		{"https://127.0.0.1/hook", "url_not_public"},
		{"https://[::1]/hook", "url_not_public"},
		{"https://10.0.0.1/hook", "url_not_public"},
		{"https://169.254.169.254/latest/meta-data", "url_not_public"},
		{"https://loopback.example.com/hook", "url_not_public"},
		{"https://private.example.com/hook", "url_not_public"},
		{"https://metadata.example.com/hook", "url_not_public"},
		{"https://mixed.example.com/hook", "url_not_public"},
		{"https://v6local.example.com/hook", "url_not_public"},
		{"https://nowhere.example.com/hook", "url_unresolvable"},
	} {
		err := g.CheckURL(context.Background(), tc.url)
		var ie *InputError
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("CheckURL(%s) = %v, want accepted", tc.url, err)
		case tc.code != "" && (!errors.As(err, &ie) || ie.Code != tc.code || ie.Param != "url"):
			t.Errorf("CheckURL(%s) = %v, want code %s", tc.url, err, tc.code)
		}
	}
	open := &Guard{AllowPrivate: true, Resolver: testResolver}
	for _, u := range []string{"https://127.0.0.1/hook", "http://loopback.example.com/hook", "https://10.0.0.1/"} {
		if err := open.CheckURL(context.Background(), u); err != nil {
			t.Errorf("allow-private CheckURL(%s) = %v", u, err)
		}
	}
}

// The dialer refuses a name that resolves to a private address at
// connection time (a DNS answer that changed after creation), before any
// packet is sent.
func TestDialRefusesPrivateAnswers(t *testing.T) {
	g := &Guard{Resolver: testResolver}
	for _, addr := range []string{"loopback.example.com:443", "private.example.com:443", "metadata.example.com:80", "127.0.0.1:443", "[::1]:443", "169.254.169.254:80"} {
		c, err := g.DialContext(context.Background(), "tcp", addr)
		if err == nil {
			c.Close()
		}
		if !errors.Is(err, ErrNotPublic) {
			t.Errorf("dial %s: err = %v, want ErrNotPublic", addr, err)
		}
	}
	// The Control func is the last check on the address actually dialled.
	if err := g.control("tcp4", "10.1.2.3:443", nil); !errors.Is(err, ErrNotPublic) {
		t.Errorf("control(10.1.2.3) = %v, want ErrNotPublic", err)
	}
	if err := g.control("tcp4", "93.184.215.14:443", nil); err != nil {
		t.Errorf("control(public) = %v", err)
	}
}
