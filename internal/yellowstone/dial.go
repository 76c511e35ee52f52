package yellowstone

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
)

// Target parses a --yellowstone-url: https://host[:port] (TLS, port 443 by
// default) or http://host[:port] (plaintext, port 80 by default). It
// returns the gRPC target and whether to use TLS.
func Target(raw string) (target string, useTLS bool, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", false, fmt.Errorf("yellowstone URL %q must be https://host[:port] or http://host[:port]", raw)
	}
	if u.Path != "" && u.Path != "/" {
		return "", false, fmt.Errorf("yellowstone URL %q must not have a path", raw)
	}
	useTLS = u.Scheme == "https"
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if useTLS {
			port = "443"
		}
	}
	return net.JoinHostPort(host, port), useTLS, nil
}

// Dial opens a client connection to a Yellowstone endpoint (lazily: the
// first Subscribe connects). Keepalive pings every 30 s notice a dead
// connection while the stream is idle; messages up to 64 MiB are accepted
// (a transaction update can exceed gRPC's 4 MiB default).
func Dial(rawURL string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	target, useTLS, err := Target(rawURL)
	if err != nil {
		return nil, err
	}
	creds := insecure.NewCredentials()
	if useTLS {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	all := append([]grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64 << 20)),
	}, opts...)
	conn, err := grpc.NewClient(target, all...)
	if err != nil {
		return nil, fmt.Errorf("yellowstone: dial %s: %w", target, err)
	}
	return conn, nil
}
