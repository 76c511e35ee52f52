// Command crash checks and measures durable trade ingest against the real
// assetd binary. It builds ./cmd/assetd, runs `assetd serve` on a fresh
// store (a temporary SQLite data directory, or a fresh schema of the
// PostgreSQL database given by -database-url), creates a trades:write key
// with `assetd keys create` and drives POST /v1/internal/trades with NDJSON
// batches. Run it from the repository root.
//
//	go run ./bench/crash -engine sqlite crash       # kill -9 test
//	go run ./bench/crash -engine postgres -database-url postgres://... crash
//	go run ./bench/crash -engine sqlite throughput  # ingest rate, then rebuild time
//
// crash: two senders post batches continuously while the server is
// killed with SIGKILL at random moments (-kills times) and restarted.
// Afterwards every acknowledged trade must be in the candle volumes and
// trade counts (GET /v1/assets/{id}/ohlcv, source analytics_trades);
// re-sending every batch must yield only duplicates for the acknowledged
// ones, and then (and after one more kill -9 right away) the candles must
// hold every batch exactly once.
//
// throughput: posts -trades trades (block times spread over the last
// 23 h) in batches of -batch with -c concurrent senders and reports
// trades/s; then restarts the server (after SIGTERM, and after SIGKILL)
// and reports the time until it answers, and the rebuild duration it
// logged.
//
// Every trade is synthetic: signatures "crash-…", synthetic wallets,
// USD amounts in quarter dollars at price 1, on four real mints of the
// seed registry.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mr-tron/base58"
)

// pair is an asset and one of its mints (seed registry).
type pair struct{ asset, mint string }

var pairs = []pair{
	{"jupiter", "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"},
	{"bonk", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"},
	{"jito", "jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL"},
	{"raydium", "4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R"},
}

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "crash:", err)
		os.Exit(1)
	}
}

type options struct {
	engine, databaseURL, bin string
	kills, batch, senders    int
	trades, spread           int
	keep                     bool
	profile                  string
	profileFor               time.Duration
}

func run(ctx context.Context, args []string) error {
	var o options
	fs := flag.NewFlagSet("crash", flag.ContinueOnError)
	fs.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	fs.StringVar(&o.databaseURL, "database-url", os.Getenv("ASSETD_TEST_DATABASE_URL"), "PostgreSQL URL (engine postgres); a fresh schema is created in it")
	fs.StringVar(&o.bin, "bin", "", "assetd binary (default: go build ./cmd/assetd)")
	fs.IntVar(&o.kills, "kills", 6, "crash: kill -9s")
	fs.IntVar(&o.batch, "batch", 0, "trades per batch (default 1000 for crash, 5000 for throughput)")
	fs.IntVar(&o.senders, "c", 0, "concurrent senders (default 2 for crash, 4 for throughput)")
	fs.IntVar(&o.trades, "trades", 1_000_000, "throughput: live trades to post over HTTP")
	fs.IntVar(&o.spread, "spread", 1_000_000, "throughput: trades over the last 23 h to store with assetd ingest replay before the rebuild")
	fs.StringVar(&o.profile, "cpuprofile", "", "throughput: write a CPU profile of the server during ingest to this file")
	fs.DurationVar(&o.profileFor, "cpuprofile-for", 5*time.Second, "throughput: length of the -cpuprofile profile (keep it below the ingest time)")
	fs.BoolVar(&o.keep, "keep", false, "keep the data directory or schema")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode := fs.Arg(0)
	if mode != "crash" && mode != "throughput" {
		return errors.New("want a mode: crash or throughput")
	}
	// Flags may also follow the mode.
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	h, err := newHarness(ctx, o)
	if err != nil {
		return err
	}
	defer h.close()
	if mode == "crash" {
		return crash(ctx, h, o)
	}
	return throughput(ctx, h, o)
}

// harness runs one assetd serve at a time on one store.
type harness struct {
	o        options
	bin, dir string
	store    []string // store flags
	schema   string
	addr     string
	admin    string
	key      string
	cmd      *exec.Cmd
	logPath  string
	client   *http.Client
	exited   chan struct{}
}

func newHarness(ctx context.Context, o options) (*harness, error) {
	dir, err := os.MkdirTemp("", "assetd-crash-")
	if err != nil {
		return nil, err
	}
	h := &harness{o: o, dir: dir, bin: o.bin, logPath: filepath.Join(dir, "server.log"),
		client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	if h.bin == "" {
		h.bin = filepath.Join(dir, "assetd")
		build := exec.CommandContext(ctx, "go", "build", "-o", h.bin, "./cmd/assetd")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("build assetd (run from the repository root): %w", err)
		}
	}
	switch o.engine {
	case "sqlite":
		h.store = []string{"--data-dir", filepath.Join(dir, "data")}
	case "postgres":
		if o.databaseURL == "" {
			return nil, errors.New("engine postgres needs -database-url or ASSETD_TEST_DATABASE_URL")
		}
		var b [6]byte
		_, _ = rand.Read(b[:])
		h.schema = "assetd_crash_" + hex.EncodeToString(b[:])
		conn, err := pgx.Connect(ctx, o.databaseURL)
		if err != nil {
			return nil, err
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `CREATE SCHEMA `+h.schema); err != nil {
			return nil, err
		}
		u, err := url.Parse(o.databaseURL)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("search_path", h.schema)
		u.RawQuery = q.Encode()
		h.store = []string{"--database-url", u.String()}
	default:
		return nil, fmt.Errorf("unknown engine %q", o.engine)
	}
	out, err := h.cli(ctx, "keys", "create", "--project", "crash", "--scopes", "assets:read,assets:ohlcv:read,trades:write")
	if err != nil {
		return nil, fmt.Errorf("keys create: %w: %s", err, out)
	}
	h.key = strings.TrimSpace(out)
	fmt.Printf("engine %s, store %s, server log %s\n", o.engine, strings.Join(h.store, " "), h.logPath)
	return h, nil
}

func (h *harness) cli(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, h.bin, append(args, h.store...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return errb.String(), err
	}
	return out.String(), nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// start runs assetd serve and waits until /v1/health answers; it returns
// the time that took.
func (h *harness) start(ctx context.Context) (time.Duration, error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, err
	}
	h.addr = addr
	logf, err := os.OpenFile(h.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	if h.admin, err = freeAddr(); err != nil {
		return 0, err
	}
	args := append([]string{"serve", "--addr", addr, "--admin-addr", h.admin, "--marketdata-b=false", "--startup-warmup", "0", "--log-format", "json"}, h.store...)
	cmd := exec.Command(h.bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return 0, err
	}
	h.cmd = cmd
	h.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(h.exited) }()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-h.exited:
			return 0, fmt.Errorf("assetd serve exited during start (see %s)", h.logPath)
		default:
		}
		resp, err := h.client.Get("http://" + addr + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(start), nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, errors.New("assetd serve did not become ready in 5 minutes")
}

// kill sends sig and waits for the process to end.
func (h *harness) kill(sig syscall.Signal) {
	if h.cmd == nil {
		return
	}
	_ = h.cmd.Process.Signal(sig)
	<-h.exited
	h.cmd = nil
}

func (h *harness) close() {
	h.kill(syscall.SIGKILL)
	if h.o.keep {
		fmt.Println("kept", h.dir, h.schema)
		return
	}
	if h.schema != "" {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, h.o.databaseURL); err == nil {
			_, _ = conn.Exec(ctx, `DROP SCHEMA `+h.schema+` CASCADE`)
			conn.Close(ctx)
		}
	}
	_ = os.RemoveAll(h.dir)
}

// batch is one request's trades.
type batch struct {
	id     int
	body   []byte
	n      int
	vol    [4]float64 // USD volume per pair
	count  [4]int64
	acked  bool
	tried  bool
	accept int
}

// synthetic is a well-formed address that is visibly no real account.
func synthetic(kind string, i int) string {
	sum := sha256.Sum256([]byte("assetd crash test " + kind + " " + strconv.Itoa(i)))
	return base58.Encode(sum[:])
}

func synthetics(kind string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = synthetic(kind, i)
	}
	return out
}

// makeBatch builds batch id of n trades on mints (the first four count in
// vol and count: pairs), with block times in [end-spread, end].
func makeBatch(run string, id, n int, end time.Time, spread time.Duration, mints, wallets []string, skewed bool) *batch {
	b := &batch{id: id, n: n}
	rng := mrand.New(mrand.NewPCG(uint64(id), 7))
	buf := make([]byte, 0, n*300)
	for i := range n {
		p := rng.IntN(len(mints))
		if skewed {
			// The busiest mints see most trades: mint k with density ~ k^(-2/3).
			f := rng.Float64()
			p = int(float64(len(mints)) * f * f * f)
		}
		usd := float64(1+rng.IntN(40)) * 0.25
		bt := end.Unix() - rng.Int64N(int64(spread/time.Second)+1)
		if p < len(pairs) {
			b.vol[p] += usd
			b.count[p]++
		}
		side := "buy"
		if rng.IntN(2) == 0 {
			side = "sell"
		}
		buf = append(buf, `{"signature":"crash-`...)
		buf = append(buf, run...)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, `","slot":`...)
		buf = strconv.AppendInt(buf, int64(id)*100_000+int64(i), 10)
		buf = append(buf, `,"blockTime":`...)
		buf = strconv.AppendInt(buf, bt, 10)
		buf = append(buf, `,"mint":"`...)
		buf = append(buf, mints[p]...)
		buf = append(buf, `","side":"`...)
		buf = append(buf, side...)
		buf = append(buf, `","tokenAmount":`...)
		buf = strconv.AppendFloat(buf, usd, 'g', -1, 64)
		buf = append(buf, `,"usdAmount":`...)
		buf = strconv.AppendFloat(buf, usd, 'g', -1, 64)
		buf = append(buf, `,"priceUsd":1,"wallet":"`...)
		buf = append(buf, wallets[rng.IntN(len(wallets))]...)
		buf = append(buf, `","venue":"CrashTestVenue","feeUsd":0.01}`+"\n"...)
	}
	b.body = buf
	return b
}

type ingestReply struct {
	Accepted   int            `json:"accepted"`
	Duplicates int            `json:"duplicates"`
	Rejected   int            `json:"rejected"`
	Reasons    map[string]int `json:"reasons"`
}

// post sends one batch; an error means it was not acknowledged.
func (h *harness) post(b *batch) (ingestReply, error) {
	var r ingestReply
	req, _ := http.NewRequest("POST", "http://"+h.addr+"/v1/internal/trades", bytes.NewReader(b.body))
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("X-Api-Key", h.key)
	resp, err := h.client.Do(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return r, err
	}
	if resp.StatusCode != 200 {
		return r, fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return r, err
	}
	if r.Rejected > 0 || r.Accepted+r.Duplicates != b.n {
		return r, fmt.Errorf("unexpected reply %+v for %d trades", r, b.n)
	}
	return r, nil
}

// totals reads the summed 1H candle volume and trade count of every pair
// over [from, to).
func (h *harness) totals(from, to int64) ([4]float64, [4]int64, error) {
	var vol [4]float64
	var cnt [4]int64
	for p, pr := range pairs {
		u := fmt.Sprintf("http://%s/v1/assets/%s/ohlcv?mint=%s&interval=1H&from=%d&to=%d", h.addr, pr.asset, pr.mint, from, to)
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("X-Api-Key", h.key)
		resp, err := h.client.Do(req)
		if err != nil {
			return vol, cnt, err
		}
		var body struct {
			Source  string `json:"source"`
			Candles []struct {
				Volume float64 `json:"volume"`
				Trades int64   `json:"trades"`
			} `json:"candles"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			return vol, cnt, fmt.Errorf("ohlcv %s: status %d, %v", pr.asset, resp.StatusCode, err)
		}
		if len(body.Candles) > 0 && body.Source != "analytics_trades" {
			return vol, cnt, fmt.Errorf("ohlcv %s: source %q", pr.asset, body.Source)
		}
		for _, c := range body.Candles {
			vol[p] += c.Volume
			cnt[p] += c.Trades
		}
	}
	return vol, cnt, nil
}

func sum(bs []*batch, pick func(*batch) bool) ([4]float64, [4]int64, int) {
	var vol [4]float64
	var cnt [4]int64
	n := 0
	for _, b := range bs {
		if !pick(b) {
			continue
		}
		for p := range pairs {
			vol[p] += b.vol[p]
			cnt[p] += b.count[p]
		}
		n += b.n
	}
	return vol, cnt, n
}

func crash(ctx context.Context, h *harness, o options) error {
	if o.batch == 0 {
		o.batch = 1000
	}
	if o.senders == 0 {
		o.senders = 2
	}
	wallets := synthetics("wallet", 500)
	mints := make([]string, len(pairs))
	for i, p := range pairs {
		mints[i] = p.mint
	}
	if _, err := h.start(ctx); err != nil {
		return err
	}
	runID := strconv.FormatInt(time.Now().UnixNano(), 36)
	t0 := time.Now()
	var (
		mu      sync.Mutex
		batches []*batch
		nextID  atomic.Int64
		stop    atomic.Bool
		up      atomic.Bool
		wg      sync.WaitGroup
		failed  atomic.Int64
	)
	up.Store(true)
	for range o.senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if !up.Load() {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				id := int(nextID.Add(1))
				b := makeBatch(runID, id, o.batch, time.Now(), 10*time.Minute, mints, wallets, false)
				b.tried = true
				mu.Lock()
				batches = append(batches, b)
				mu.Unlock()
				r, err := h.post(b)
				if err != nil {
					failed.Add(1)
					continue
				}
				mu.Lock()
				b.acked, b.accept = true, r.Accepted
				mu.Unlock()
			}
		}()
	}
	rng := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var readies []time.Duration
	for k := 1; k <= o.kills; k++ {
		time.Sleep(time.Duration(300+rng.IntN(2700)) * time.Millisecond)
		up.Store(rng.IntN(3) != 0) // sometimes stop sending first, usually kill mid-request
		h.kill(syscall.SIGKILL)
		up.Store(false)
		mu.Lock()
		_, _, acked := sum(batches, func(b *batch) bool { return b.acked })
		mu.Unlock()
		d, err := h.start(ctx)
		if err != nil {
			stop.Store(true)
			wg.Wait()
			return err
		}
		readies = append(readies, d)
		fmt.Printf("kill -9 #%d after %d acknowledged trades; restarted, ready in %s\n", k, acked, d.Round(time.Millisecond))
		up.Store(true)
	}
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()

	from := t0.Add(-time.Hour).Truncate(time.Hour).Unix()
	to := time.Now().Add(2 * time.Hour).Unix()
	ackVol, ackCnt, ackN := sum(batches, func(b *batch) bool { return b.acked })
	allVol, allCnt, allN := sum(batches, func(*batch) bool { return true })
	gotVol, gotCnt, err := h.totals(from, to)
	if err != nil {
		return err
	}
	fmt.Printf("batches %d (%d acknowledged, %d failed: sent while killed or down), trades sent %d, acknowledged %d\n",
		len(batches), len(batches)-int(failed.Load()), failed.Load(), allN, ackN)
	var problems []string
	for p := range pairs {
		if gotCnt[p] < ackCnt[p] || gotVol[p] < ackVol[p] {
			problems = append(problems, fmt.Sprintf("%s: candles hold %d trades / $%.2f, acknowledged %d / $%.2f", pairs[p].asset, gotCnt[p], gotVol[p], ackCnt[p], ackVol[p]))
		}
		if gotCnt[p] > allCnt[p] || gotVol[p] > allVol[p] {
			problems = append(problems, fmt.Sprintf("%s: candles hold %d trades / $%.2f, more than sent %d / $%.2f", pairs[p].asset, gotCnt[p], gotVol[p], allCnt[p], allVol[p]))
		}
		fmt.Printf("  %-8s candles %7d trades $%12.2f | acknowledged %7d $%12.2f | sent %7d $%12.2f\n", pairs[p].asset, gotCnt[p], gotVol[p], ackCnt[p], ackVol[p], allCnt[p], allVol[p])
	}
	// Re-send everything: acknowledged batches must be duplicates only.
	var dupOnly, reAccepted, ackReAccepted int
	for _, b := range batches {
		r, err := h.post(b)
		if err != nil {
			return fmt.Errorf("re-send batch %d: %w", b.id, err)
		}
		reAccepted += r.Accepted
		if b.acked {
			if r.Accepted != 0 {
				ackReAccepted += r.Accepted
			} else {
				dupOnly++
			}
		}
	}
	fmt.Printf("re-sent %d batches: %d acknowledged batches all duplicates, %d trades of acknowledged batches accepted again (want 0), %d trades of unacknowledged batches stored now\n",
		len(batches), dupOnly, ackReAccepted, reAccepted-ackReAccepted)
	if ackReAccepted > 0 {
		problems = append(problems, fmt.Sprintf("%d acknowledged trades were accepted again", ackReAccepted))
	}
	check := func(when string) error {
		gotVol, gotCnt, err := h.totals(from, to)
		if err != nil {
			return err
		}
		for p := range pairs {
			if gotCnt[p] != allCnt[p] || gotVol[p] != allVol[p] {
				problems = append(problems, fmt.Sprintf("%s %s: candles hold %d trades / $%.2f; want every batch once: %d / $%.2f", when, pairs[p].asset, gotCnt[p], gotVol[p], allCnt[p], allVol[p]))
			}
		}
		return nil
	}
	if err := check("after re-send"); err != nil {
		return err
	}
	// Once more, killed right after (within the candle save interval).
	h.kill(syscall.SIGKILL)
	if _, err := h.start(ctx); err != nil {
		return err
	}
	if err := check("after re-send and kill -9"); err != nil {
		return err
	}
	fmt.Printf("ready after restart: %v\n", readies)
	if len(problems) > 0 {
		return fmt.Errorf("FAILED:\n  %s", strings.Join(problems, "\n  "))
	}
	fmt.Printf("OK: %d kill -9s; every acknowledged trade (%d) is in the candles; re-sending gave only duplicates for them; after re-sending all %d trades the candles hold each exactly once, also after another kill -9\n",
		o.kills+1, ackN, allN)
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// postgresCPU is the user+system CPU time of every local process named
// postgres (0 when PostgreSQL runs elsewhere).
func postgresCPU() float64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var total float64
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSpace(string(comm)) == "postgres" {
			total += cpuSeconds(pid)
		}
	}
	return total
}

// cpuSeconds is the user+system CPU time the process pid has used.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // clock ticks (USER_HZ 100)
}

func throughput(ctx context.Context, h *harness, o options) error {
	if o.batch == 0 {
		o.batch = 5000
	}
	if o.senders == 0 {
		o.senders = 4
	}
	wallets := synthetics("wallet", 20_000)
	mints := synthetics("mint", 1000)
	nb := (o.trades + o.batch - 1) / o.batch
	fmt.Printf("generating %d live batches of %d trades (1,000 mints, skewed: the busiest 10%% see 46%% of the trades; 20,000 wallets; block times in the last 2 minutes)...\n", nb, o.batch)
	now := time.Now()
	runID := strconv.FormatInt(now.UnixNano(), 36)
	bs := make([]*batch, nb)
	for i := range bs {
		bs[i] = makeBatch(runID, i, o.batch, now, 2*time.Minute, mints, wallets, true)
	}
	if _, err := h.start(ctx); err != nil {
		return err
	}
	fmt.Printf("load average before: %s\n", loadavg())
	if o.profile != "" {
		go func() {
			resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", h.admin, max(1, int(o.profileFor.Seconds()))))
			if err != nil {
				fmt.Fprintln(os.Stderr, "cpu profile:", err)
				return
			}
			defer resp.Body.Close()
			f, err := os.Create(o.profile)
			if err == nil {
				_, err = io.Copy(f, resp.Body)
				f.Close()
			}
			if err != nil || resp.StatusCode != 200 {
				fmt.Fprintln(os.Stderr, "cpu profile:", resp.Status, err)
			}
		}()
	}
	var next, accepted atomic.Int64
	var firstErr error
	var emu sync.Mutex
	var wg sync.WaitGroup
	pid := h.cmd.Process.Pid
	cpu0, pg0 := cpuSeconds(pid), postgresCPU()
	start := time.Now()
	for range o.senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bs) {
					return
				}
				r, err := h.post(bs[i])
				if err != nil {
					emu.Lock()
					firstErr = errors.Join(firstErr, err)
					emu.Unlock()
					return
				}
				accepted.Add(int64(r.Accepted))
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	cpu := cpuSeconds(pid) - cpu0
	pg := postgresCPU() - pg0
	if firstErr != nil {
		return firstErr
	}
	n := float64(accepted.Load())
	fmt.Printf("durable ingest: %d trades in %s = %.0f trades/s (%d senders, batches of %d); server CPU %.1f s = %.0f trades per CPU-second; load average after: %s\n",
		accepted.Load(), el.Round(time.Millisecond), n/el.Seconds(), o.senders, o.batch, cpu, n/cpu, loadavg())
	if o.engine == "postgres" && pg > 0 {
		fmt.Printf("local PostgreSQL CPU %.1f s; assetd + PostgreSQL: %.0f trades per CPU-second\n", pg, n/(cpu+pg))
	}

	// Rebuild: the live trades plus o.spread trades over the last 23 h,
	// stored with ingest replay while the server is down.
	h.kill(syscall.SIGTERM)
	file := filepath.Join(h.dir, "spread.ndjson")
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	snb := (o.spread + o.batch - 1) / o.batch
	step := 23 * time.Hour / time.Duration(max(snb, 1))
	for i := range snb {
		end := now.Add(-23 * time.Hour).Add(time.Duration(i+1) * step)
		b := makeBatch(runID+"s", i, o.batch, end, step+2*time.Minute, mints, wallets, true)
		if _, err := f.Write(b.body); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	t := time.Now()
	out, err := h.cli(ctx, "ingest", "replay", "--batch", "5000", file)
	if err != nil {
		return fmt.Errorf("ingest replay: %w: %s", err, out)
	}
	fmt.Printf("stored %d trades over the last 23 h with ingest replay in %s: %s", o.spread, time.Since(t).Round(time.Millisecond), out)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM, syscall.SIGKILL} {
		saves := countLog(h.logPath, "candles saved")
		d, err := h.start(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("start: ready in %s; %s; server CPU %.1f s; load %s\n", d.Round(time.Millisecond), lastRebuild(h.logPath), cpuSeconds(h.cmd.Process.Pid), loadavg())
		if i == 0 {
			// Let the first start save the candles it re-derived (the
			// shutdown save has a deadline), so the next starts load them.
			t := time.Now()
			for countLog(h.logPath, "candles saved") == saves && time.Since(t) < 10*time.Minute {
				time.Sleep(time.Second)
			}
			fmt.Printf("candles saved %s after ready\n", time.Since(t).Round(time.Second))
		}
		h.kill(sig)
		fmt.Printf("stopped with %s\n", sig)
	}
	return nil
}

// countLog counts the server log lines with message msg.
func countLog(path, msg string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte(`"msg":"`+msg+`"`))
}

// lastRebuild returns the last rebuild summary of the server log.
func lastRebuild(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "?"
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "analytics state rebuilt from stored trades" {
			took, _ := m["took"].(float64)
			last = fmt.Sprintf("rebuilt %v trades (%v re-applied to candles, %v candles loaded) in %s",
				m["trades"], m["recandled"], m["candles"], time.Duration(took).Round(time.Millisecond))
		}
	}
	return last
}
