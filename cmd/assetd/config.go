package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/httpapi"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/peterbourgon/ff/v3"
)

// envPrefix names the environment equivalent of a flag: --rate-limit is
// ASSETD_RATE_LIMIT. Every serve flag has one; the other commands read only
// the store flags from the environment (their own flags, such as keys
// limits --quota, would otherwise collide with serve's).
const envPrefix = "ASSETD"

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseFlags parses args and then, for flags the command line did not set,
// the ASSETD_* environment (when env is true), strictly: a value the flag
// cannot parse (ASSETD_DEMO=yes) is an error naming the variable. -h is
// returned as flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, env bool) error {
	var opts []ff.Option
	if env {
		opts = append(opts, ff.WithEnvVarPrefix(envPrefix))
	}
	if err := ff.Parse(fs, args, opts...); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return usageError{fs.Name() + ": " + err.Error()}
	}
	return nil
}

// provided reports the flags set on the command line or by the environment.
func provided(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// storeFlags are accepted by every command.
type storeFlags struct {
	dataDir     string
	databaseURL string
	logFormat   string
	logLevel    string
	// natsURL connects the change bus and the trade stream (docs/nats.md);
	// natsPrefix starts their subjects and stream names.
	natsURL    string
	natsPrefix string
	// demo: the store of `serve --demo` (data dir demoDataDir unless one
	// is given); serve also swaps in the simulated market feed.
	demo bool
}

// defaultDataDir holds the embedded store of real mode; demoDataDir that of
// --demo, so simulated data never lands in a store real mode serves.
const (
	defaultDataDir = "./data"
	demoDataDir    = "./data-demo"
)

var defaultStoreFlags = storeFlags{dataDir: defaultDataDir, logFormat: "text", logLevel: "info", natsPrefix: natsbus.DefaultPrefix}

// storeFlagNames are the flags addStoreFlags defines.
var storeFlagNames = map[string]bool{"data-dir": true, "database-url": true, "log-format": true, "log-level": true,
	"nats-url": true, "nats-prefix": true, "demo": true}

func addStoreFlags(fs *flag.FlagSet, sf *storeFlags, def storeFlags) {
	fs.StringVar(&sf.dataDir, "data-dir", def.dataDir, "directory of the embedded SQLite database (--demo: "+demoDataDir+")")
	fs.StringVar(&sf.databaseURL, "database-url", def.databaseURL, "postgres:// URL; moves all persistent state to PostgreSQL")
	fs.StringVar(&sf.logFormat, "log-format", def.logFormat, "log format: text or json")
	fs.StringVar(&sf.logLevel, "log-level", def.logLevel, "log level: debug, info, warn, error")
	fs.StringVar(&sf.natsURL, "nats-url", def.natsURL, "nats:// URL of NATS with JetStream: store changes reach every replica at once and trade ingest goes through a durable stream (docs/nats.md)")
	fs.StringVar(&sf.natsPrefix, "nats-prefix", def.natsPrefix, "first token of every NATS subject and stream name, so deployments can share a NATS server")
	fs.BoolVar(&sf.demo, "demo", def.demo, "use the store of serve --demo (data dir "+demoDataDir+" unless --data-dir or --database-url is given)")
}

// resolveDemo points a --demo command without --data-dir or --database-url
// (set flags: command line or environment) at the demo store.
func (sf *storeFlags) resolveDemo(set map[string]bool) {
	if sf.demo && sf.databaseURL == "" && !set["data-dir"] {
		sf.dataDir = demoDataDir
	}
}

// describe names the store for people (a 401 or a failed sign-in says
// which store the server reads): the SQLite data directory as configured,
// or the PostgreSQL database name only (no host, user or password).
func (sf storeFlags) describe() string {
	if sf.databaseURL != "" {
		name := "(default)"
		if u, err := url.Parse(sf.databaseURL); err == nil && strings.Trim(u.Path, "/") != "" {
			name = strings.Trim(u.Path, "/")
		}
		return fmt.Sprintf("PostgreSQL database %q", name)
	}
	return "SQLite in " + sf.dataDir
}

// storeHint is describe plus the CLI flags that reach the same store, for
// the messages of a 401 and of a failed dashboard sign-in.
func (sf storeFlags) storeHint() string {
	var flags string
	switch {
	case sf.databaseURL != "":
		flags = "--database-url with the same URL"
	case sf.demo && sf.dataDir == demoDataDir:
		flags = "--demo"
	case sf.dataDir == defaultDataDir:
		return sf.describe() + "; CLI commands use it by default"
	default:
		flags = "--data-dir " + sf.dataDir
	}
	return sf.describe() + "; CLI commands reach it with " + flags
}

// storeFlagsFromEnv reads the store flags' ASSETD_* variables over the
// defaults, for the commands whose other flags have no environment form.
// It also reports which of them the environment set.
func storeFlagsFromEnv(name string) (storeFlags, map[string]bool, error) {
	var sf storeFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	addStoreFlags(fs, &sf, defaultStoreFlags)
	err := parseFlags(fs, nil, true)
	return sf, provided(fs), err
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
	if sf.natsURL != "" {
		for _, raw := range strings.Split(sf.natsURL, ",") {
			u, err := url.Parse(strings.TrimSpace(raw))
			if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
				errs = append(errs, "--nats-url must be a nats://host:port URL (or a comma list of them)")
				break
			}
		}
	}
	if err := natsbus.ValidPrefix(sf.natsPrefix); err != nil {
		errs = append(errs, "--nats-prefix: "+err.Error())
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
	addr      string
	adminAddr string
	// demoTrades is how often the demo world's live trades are ingested
	// (0: none after the backfill; bench/instr.sh keeps the server idle).
	demoTrades     time.Duration
	oidcIssuer     string
	oidcAudience   string
	rate           string
	quota          string
	shutdownGrace  time.Duration
	reloadInterval time.Duration
	// depegPegUSD: USD values of non-USD peg currencies (--depeg-peg-usd).
	depegPegUSD string
	// readyMinCoverage: share of curated mints priced before /readyz is 200.
	readyMinCoverage float64
	// usageRetention: how long usage aggregates are kept (negative: forever).
	usageRetention time.Duration
	market         marketFlags
	// dustUSD and outlierFactor are the trade admission rules (docs/prices.md).
	dustUSD, outlierFactor float64
	news                   newsFlags
	lists                  lists.Limits
	listsHTTP              httpapi.ListsConfig
	listLookups            listLookupFlags
	execution              executionFlags
	// allowedDuplicates is the curator allow-list file ("" for none).
	allowedDuplicates string
	// providerSearches and providerSearchQueue bound curator search's
	// background provider searches (running, waiting).
	providerSearches    int
	providerSearchQueue int
	http                httpFlags
	redis               redisFlags
	refresh             refreshFlags
	yellowstone         yellowstoneFlags
	tradeSource         tradeSourceFlags
	webhooks            webhookFlags
	events              eventFlags
}

// listLookupFlags bound the live member lookups of lists.Reader.
type listLookupFlags struct {
	perBatch int
	timeout  time.Duration
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
	// maxConns caps the API server's open connections; idleTimeout and
	// readHeaderTimeout end idle keep-alive connections and connections
	// that do not send their request headers (docs/http.md).
	maxConns          int
	idleTimeout       time.Duration
	readHeaderTimeout time.Duration
}

func addHTTPFlags(fs *flag.FlagSet, hf *httpFlags) {
	fs.StringVar(&hf.corsOrigins, "cors-origins", "", "comma-separated browser origins allowed cross-origin, * for any; empty turns CORS off")
	fs.StringVar(&hf.accessLog, "access-log", httpapi.AccessLogSampled, "access log: off, sampled (errors, slow requests and 1 in 100 others) or all")
	fs.IntVar(&hf.maxConns, "max-conns", defaultMaxConns(openFileLimit()), "most API connections open at once (the default is half the process's open-file limit, 64..65536); "+
		"further ones wait, and an idle keep-alive connection is closed to make room for them")
	fs.DurationVar(&hf.idleTimeout, "idle-timeout", 120*time.Second, "how long an idle keep-alive API connection stays open")
	fs.DurationVar(&hf.readHeaderTimeout, "read-header-timeout", 10*time.Second, "how long a new API connection may take to send its request headers")
}

// defaultMaxConns is half of the open-file limit nofile (Go raises the
// soft limit to the hard one at start), within 64..65536: the other half
// is left to the store, provider connections and the rest.
func defaultMaxConns(nofile uint64) int {
	return int(min(max(nofile/2, 64), 65536))
}

func (hf httpFlags) validate() error {
	if hf.maxConns < 1 {
		return fmt.Errorf("--max-conns must be at least 1, not %d", hf.maxConns)
	}
	if hf.idleTimeout <= 0 || hf.readHeaderTimeout <= 0 {
		return errors.New("--idle-timeout and --read-header-timeout must be positive")
	}
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
