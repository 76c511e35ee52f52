package main

import (
	"flag"
	"fmt"
	"github.com/assetd/assetd/internal/httpapi"
	"github.com/assetd/assetd/internal/lists"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// storeFlags are accepted by every command.
type storeFlags struct {
	dataDir     string
	databaseURL string
	logFormat   string
	logLevel    string
}

func (c *cli) env(name, def string) string {
	if v := c.getenv(name); v != "" {
		return v
	}
	return def
}

func (c *cli) envBool(name string) bool {
	b, _ := strconv.ParseBool(c.getenv(name))
	return b
}

func (c *cli) addStoreFlags(fs *flag.FlagSet, sf *storeFlags) {
	fs.StringVar(&sf.dataDir, "data-dir", c.env("ASSETD_DATA_DIR", "./data"), "directory of the embedded SQLite database (env ASSETD_DATA_DIR)")
	fs.StringVar(&sf.databaseURL, "database-url", c.env("ASSETD_DATABASE_URL", ""), "postgres:// URL; moves all persistent state to PostgreSQL (env ASSETD_DATABASE_URL)")
	fs.StringVar(&sf.logFormat, "log-format", c.env("ASSETD_LOG_FORMAT", "text"), "log format: text or json (env ASSETD_LOG_FORMAT)")
	fs.StringVar(&sf.logLevel, "log-level", c.env("ASSETD_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env ASSETD_LOG_LEVEL)")
}

func (sf storeFlags) validate() error {
	var errs []string
	if sf.databaseURL != "" {
		u, err := url.Parse(sf.databaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			errs = append(errs, "--database-url must be a postgres://user@host:port/db URL")
		}
	} else if strings.TrimSpace(sf.dataDir) == "" {
		errs = append(errs, "--data-dir must not be empty")
	}
	if sf.logFormat != "text" && sf.logFormat != "json" {
		errs = append(errs, fmt.Sprintf("--log-format must be text or json, not %q", sf.logFormat))
	}
	if _, err := parseLevel(sf.logLevel); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return usageError{strings.Join(errs, "; ")}
	}
	return nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level must be debug, info, warn or error, not %q", s)
	}
	return l, nil
}

// serveConfig is the validated configuration of `assetd serve`.
type serveConfig struct {
	storeFlags
	addr           string
	adminAddr      string
	demo           bool
	oidcIssuer     string
	oidcAudience   string
	rate           string
	quota          string
	shutdownGrace  time.Duration
	reloadInterval time.Duration
	market         marketFlags
	lists          lists.Limits
	listsHTTP      httpapi.ListsConfig
	execution      executionFlags
	// allowedDuplicates is the curator allow-list file ("" for none).
	allowedDuplicates string
	http              httpFlags
}

func validAddr(flagName, addr string) error {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return fmt.Errorf("%s must be host:port, not %q", flagName, addr)
	}
	return nil
}

// parseRate parses "N/DURATION" (e.g. 100/10s, 6000/1m).
func parseRate(s string) (int, time.Duration, error) {
	n, w, ok := strings.Cut(s, "/")
	req, err := strconv.Atoi(n)
	if !ok || err != nil || req <= 0 {
		return 0, 0, fmt.Errorf("rate %q must be N/WINDOW, e.g. 100/10s", s)
	}
	if w != "" && (w[0] < '0' || w[0] > '9') {
		w = "1" + w
	}
	d, err := time.ParseDuration(w)
	if err != nil || d < time.Second || d > time.Hour {
		return 0, 0, fmt.Errorf("rate %q: window must be a duration from 1s to 1h", s)
	}
	return req, d, nil
}

// parseQuota parses "N/month" (or a bare N).
func parseQuota(s string) (int64, error) {
	n, unit, ok := strings.Cut(s, "/")
	q, err := strconv.ParseInt(n, 10, 64)
	if err != nil || q <= 0 || (ok && unit != "month") {
		return 0, fmt.Errorf("quota %q must be N/month, e.g. 1000000/month", s)
	}
	return q, nil
}

// httpFlags tune the read path's HTTP behaviour (docs/http.md).
type httpFlags struct {
	corsOrigins string
	accessLog   string
}

func (c *cli) addHTTPFlags(fs *flag.FlagSet, hf *httpFlags) {
	fs.StringVar(&hf.corsOrigins, "cors-origins", c.env("ASSETD_CORS_ORIGINS", ""), "comma-separated browser origins allowed cross-origin, * for any; empty turns CORS off (env ASSETD_CORS_ORIGINS)")
	fs.StringVar(&hf.accessLog, "access-log", c.env("ASSETD_ACCESS_LOG", httpapi.AccessLogSampled), "access log: off, sampled (errors, slow requests and 1 in 100 others) or all (env ASSETD_ACCESS_LOG)")
}

func (hf httpFlags) validate() error {
	switch hf.accessLog {
	case httpapi.AccessLogOff, httpapi.AccessLogSampled, httpapi.AccessLogAll:
	default:
		return fmt.Errorf("--access-log must be off, sampled or all, not %q", hf.accessLog)
	}
	for _, o := range hf.origins() {
		if o == "*" {
			continue
		}
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("--cors-origins: %q is not an origin like https://app.example", o)
		}
	}
	return nil
}

func (hf httpFlags) origins() []string {
	var out []string
	for _, o := range strings.Split(hf.corsOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}
