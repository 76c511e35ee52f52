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
	trades                   int
	keep                     bool
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
	fs.IntVar(&o.trades, "trades", 2_000_000, "throughput: trades to post")
	fs.BoolVar(&o.keep, "keep", false, "keep the data directory or schema")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode := fs.Arg(0)
	if mode != "crash" && mode != "throughput" {
		return errors.New("want a mode: crash or throughput")
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
	args := append([]string{"serve", "--addr", addr, "--marketdata-b=false", "--startup-warmup", "0", "--log-format", "json"}, h.store...)
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

func wallet(i int) string {
	sum := sha256.Sum256([]byte("assetd crash test wallet " + strconv.Itoa(i)))
	return base58.Encode(sum[:])
}

// makeBatch builds batch id of n trades with block times in [now-spread,
// now].
func makeBatch(run string, id, n int, now time.Time, spread time.Duration, wallets []string) *batch {
	b := &batch{id: id, n: n}
	rng := mrand.New(mrand.NewPCG(uint64(id), 7))
	buf := make([]byte, 0, n*300)
	for i := range n {
		p := rng.IntN(len(pairs))
		usd := float64(1+rng.IntN(40)) * 0.25
		bt := now.Unix() - rng.Int64N(int64(spread/time.Second)+1)
		b.vol[p] += usd
		b.count[p]++
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
		buf = append(buf, pairs[p].mint...)
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
	wallets := make([]string, 500)
	for i := range wallets {
		wallets[i] = wallet(i)
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
				b := makeBatch(runID, id, o.batch, time.Now(), 10*time.Minute, wallets)
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

func throughput(ctx context.Context, h *harness, o options) error {
	if o.batch == 0 {
		o.batch = 5000
	}
	if o.senders == 0 {
		o.senders = 4
	}
	wallets := make([]string, 20_000)
	for i := range wallets {
		wallets[i] = wallet(i)
	}
	nb := (o.trades + o.batch - 1) / o.batch
	fmt.Printf("generating %d batches of %d trades...\n", nb, o.batch)
	now := time.Now()
	runID := strconv.FormatInt(now.UnixNano(), 36)
	bs := make([]*batch, nb)
	for i := range bs {
		bs[i] = makeBatch(runID, i, o.batch, now, 23*time.Hour, wallets)
	}
	if _, err := h.start(ctx); err != nil {
		return err
	}
	fmt.Printf("load average before: %s\n", loadavg())
	var next atomic.Int64
	var accepted atomic.Int64
	var firstErr error
	var emu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	lastReport := atomic.Int64{}
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
				n := accepted.Add(int64(r.Accepted))
				if el := time.Since(start); int64(el/(10*time.Second)) > lastReport.Load() {
					lastReport.Store(int64(el / (10 * time.Second)))
					fmt.Printf("  %d trades accepted, %.0f trades/s so far, load %s\n", n, float64(n)/el.Seconds(), loadavg())
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	fmt.Printf("durable ingest: %d trades in %s = %.0f trades/s (%d senders, batches of %d), load average after: %s\n",
		accepted.Load(), el.Round(time.Millisecond), float64(accepted.Load())/el.Seconds(), o.senders, o.batch, loadavg())

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		h.kill(sig)
		d, err := h.start(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("restart after %s: ready in %s; %s\n", sig, d.Round(time.Millisecond), lastRebuild(h.logPath))
	}
	return nil
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
