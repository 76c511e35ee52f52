// Command load drives a running assetd with concurrent GET requests and
// reports throughput, latency percentiles and status codes.
//
//	go run ./bench/load -url http://127.0.0.1:8080 -key "$KEY" -c 32 -d 10s \
//	    -scenario detail-includes
//
// Scenarios build their path list from the server itself (the curated
// list), so they work against any registry:
//
//	detail           GET /v1/assets/{id} for every curated asset
//	detail-includes  the same with include=profile,risk,ohlcv,markets
//	risk             GET /v1/assets/{id}/risk-summary
//	search           GET /v1/assets/search?q=<symbol>
//
// -paths FILE instead reads one path per line. Workers cycle through the
// paths; every response body is read to the end.
//
// -rate N is open-loop mode: request i is scheduled at start + i/N and
// its latency counts from that time, so a stalled server shows in the
// percentiles instead of slowing the load down (-c bounds the requests
// in flight; give it room, e.g. -c 256).
//
// Bodies are asked for without Accept-Encoding (as wrk and the nginx
// ceiling of bench/compare.sh serve them); -gzip asks for gzip and
// decompresses, as Go's default client does.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

type config struct {
	base, key, scenario, pathsFile string
	conc                           int
	dur                            time.Duration
	// rate > 0 is open-loop mode: requests scheduled at rate per second,
	// latency measured from the scheduled send time.
	rate float64
	// gzip sends Accept-Encoding: gzip and decompresses; off by default so
	// that assetd and the ceilings (wrk, nginx without gzip) send the same
	// bytes.
	gzip bool
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.StringVar(&cfg.base, "url", "http://127.0.0.1:8080", "server base URL")
	fs.StringVar(&cfg.key, "key", os.Getenv("ASSETD_KEY"), "API key (env ASSETD_KEY)")
	fs.StringVar(&cfg.scenario, "scenario", "detail", "detail, detail-includes, risk or search")
	fs.StringVar(&cfg.pathsFile, "paths", "", "file of request paths, one per line (overrides -scenario)")
	fs.IntVar(&cfg.conc, "c", 16, "concurrent workers")
	fs.DurationVar(&cfg.dur, "d", 10*time.Second, "how long to run")
	fs.BoolVar(&cfg.gzip, "gzip", false, "ask for gzip (Accept-Encoding: gzip) and decompress; off: bodies as sent to wrk and nginx")
	fs.Float64Var(&cfg.rate, "rate", 0, "open loop: requests per second on a fixed schedule, latency from the scheduled send time (-c bounds the requests in flight)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.conc < 1 || cfg.dur <= 0 || cfg.rate < 0 {
		return errors.New("-c must be at least 1, -d positive and -rate not negative")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.conc * 2, DisableCompression: !cfg.gzip}, Timeout: 30 * time.Second}
	paths, err := buildPaths(ctx, client, cfg)
	if err != nil {
		return err
	}
	drv := drive
	if cfg.rate > 0 {
		drv = driveOpen
	}
	res := drv(ctx, client, cfg, paths)
	res.report(out, cfg, len(paths))
	return nil
}

// buildPaths returns the request paths of the scenario.
func buildPaths(ctx context.Context, client *http.Client, cfg config) ([]string, error) {
	if cfg.pathsFile != "" {
		f, err := os.Open(cfg.pathsFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var out []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if p := strings.TrimSpace(sc.Text()); p != "" && !strings.HasPrefix(p, "#") {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no paths", cfg.pathsFile)
		}
		return out, sc.Err()
	}
	var cur struct {
		Assets []struct {
			AssetID string `json:"assetId"`
			Symbol  string `json:"symbol"`
		} `json:"assets"`
	}
	if err := getJSON(ctx, client, cfg, "/v1/assets/curated?list=all", &cur); err != nil {
		return nil, fmt.Errorf("listing curated assets: %w", err)
	}
	if len(cur.Assets) == 0 {
		return nil, errors.New("the curated list is empty")
	}
	var out []string
	for _, a := range cur.Assets {
		id := url.PathEscape(a.AssetID)
		switch cfg.scenario {
		case "detail":
			out = append(out, "/v1/assets/"+id)
		case "detail-includes":
			out = append(out, "/v1/assets/"+id+"?include=profile,risk,ohlcv,markets")
		case "risk":
			out = append(out, "/v1/assets/"+id+"/risk-summary")
		case "search":
			if a.Symbol != "" {
				out = append(out, "/v1/assets/search?q="+url.QueryEscape(a.Symbol))
			}
		default:
			return nil, fmt.Errorf("unknown scenario %q", cfg.scenario)
		}
	}
	return out, nil
}

func getJSON(ctx context.Context, client *http.Client, cfg config, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Api-Key", cfg.key)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// result aggregates the workers' observations.
type result struct {
	elapsed   time.Duration
	latencies []time.Duration
	codes     map[int]int
	errors    int
	bytes     int64
}

func drive(ctx context.Context, client *http.Client, cfg config, paths []string) result {
	ctx, cancel := context.WithTimeout(ctx, cfg.dur)
	defer cancel()
	var next atomic.Int64
	locals := make([]local, cfg.conc)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range cfg.conc {
		wg.Go(func() {
			l := &locals[w]
			l.codes = map[int]int{}
			for ctx.Err() == nil {
				l.do(ctx, client, cfg, paths[int(next.Add(1)-1)%len(paths)], time.Time{})
			}
		})
	}
	wg.Wait()
	return merge(locals, time.Since(start))
}

// local is one worker's observations.
type local struct {
	lat    []time.Duration
	codes  map[int]int
	errors int
	bytes  int64
}

// do sends one GET of path; latency counts from scheduled (open loop) or
// from the send (zero scheduled).
func (l *local) do(ctx context.Context, client *http.Client, cfg config, path string, scheduled time.Time) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.base+path, nil)
	if err != nil {
		l.errors++
		return
	}
	req.Header.Set("X-Api-Key", cfg.key)
	t0 := time.Now()
	if !scheduled.IsZero() {
		t0 = scheduled
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			l.errors++
		}
		return
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		if ctx.Err() == nil {
			l.errors++
		}
		return
	}
	l.lat = append(l.lat, time.Since(t0))
	l.codes[resp.StatusCode]++
	l.bytes += n
}

// driveOpen schedules request i at start + i/rate and hands it to the
// first free worker: a slow server delays the requests behind it, and
// that delay counts in their latency (no coordinated omission). Requests
// that cannot start because -c are in flight wait in the schedule.
func driveOpen(ctx context.Context, client *http.Client, cfg config, paths []string) result {
	ctx, cancel := context.WithTimeout(ctx, cfg.dur)
	defer cancel()
	sched := make(chan time.Time, 1<<16)
	start := time.Now()
	go func() {
		defer close(sched)
		interval := time.Duration(float64(time.Second) / cfg.rate)
		for i := 0; ; i++ {
			at := start.Add(time.Duration(i) * interval)
			if d := time.Until(at); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
			select {
			case <-ctx.Done():
				return
			case sched <- at:
			}
		}
	}()
	locals := make([]local, cfg.conc)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range cfg.conc {
		wg.Go(func() {
			l := &locals[w]
			l.codes = map[int]int{}
			for at := range sched {
				l.do(ctx, client, cfg, paths[int(next.Add(1)-1)%len(paths)], at)
			}
		})
	}
	wg.Wait()
	return merge(locals, time.Since(start))
}

func merge(locals []local, elapsed time.Duration) result {
	r := result{elapsed: elapsed, codes: map[int]int{}}
	for _, l := range locals {
		r.latencies = append(r.latencies, l.lat...)
		for c, n := range l.codes {
			r.codes[c] += n
		}
		r.errors += l.errors
		r.bytes += l.bytes
	}
	slices.Sort(r.latencies)
	return r
}

// percentile of sorted latencies (nearest rank); 0 when empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func (r result) report(w io.Writer, cfg config, npaths int) {
	n := len(r.latencies)
	fmt.Fprintf(w, "scenario %s: %d paths, %d workers, %s\n", cmpStr(cfg.pathsFile, cfg.scenario), npaths, cfg.conc, r.elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "requests %d (%.0f/s), %.1f MB read, %d transport errors\n", n, float64(n)/r.elapsed.Seconds(), float64(r.bytes)/1e6, r.errors)
	if cfg.rate > 0 {
		fmt.Fprintf(w, "open loop at %.0f/s: latency from the scheduled send time\n", cfg.rate)
	}
	fmt.Fprintf(w, "latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", percentile(r.latencies, 50), percentile(r.latencies, 90),
		percentile(r.latencies, 99), percentile(r.latencies, 99.9), percentile(r.latencies, 100))
	codes := make([]int, 0, len(r.codes))
	for c := range r.codes {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		fmt.Fprintf(w, "status %d: %d\n", c, r.codes[c])
	}
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
