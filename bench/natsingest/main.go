// Command natsingest measures trade ingest into PostgreSQL directly and
// through the NATS trade stream (internal/tradestream), side by side in
// one run, with the same synthetic trades, so the two figures share the
// machine's load (issue 34, item 5).
//
// Direct: batches go to internal/ingest's Ingester (validate, store, apply),
// as POST /v1/internal/trades does without --nats-url. Through NATS: the
// same batches go to the tradestream Publisher (validate, drop stored
// identities, publish, wait for the PubAcks: what a replica does before
// acknowledging a request) while a Worker on the stream stores them through
// an Ingester of its own; the clock stops when the worker has stored the
// last trade. Each path gets a fresh PostgreSQL schema and the NATS path a
// fresh stream (a random prefix); both are removed at the end.
//
// It prints, per path, the wall rate and this process's CPU time per trade
// (getrusage: steadier than wall rates on a busy machine), and, when their
// processes are visible in /proc, the CPU time the local nats-server and
// postgres processes spent meanwhile (shared with whatever else uses them:
// an approximation). The ratio lines compare the NATS path to the direct
// one. HTTP parsing is outside both paths (the same in both).
//
//	go run ./bench/natsingest -pg postgres://root@127.0.0.1:5432/test?sslmode=disable -nats nats://127.0.0.1:4222 -n 100000
//
// The trades are synthetic (signatures "synthetic-…", made-up addresses).
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mr-tron/base58"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/tradestream"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "natsingest:", err)
		os.Exit(1)
	}
}

type config struct {
	pg, nats       string
	n, batch, mint int
	senders        int
	cpuprofile     string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("natsingest", flag.ContinueOnError)
	fs.StringVar(&cfg.pg, "pg", "postgres://root@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL URL (a fresh schema per path)")
	fs.StringVar(&cfg.nats, "nats", "nats://127.0.0.1:4222", "NATS URL with JetStream (a fresh stream)")
	fs.IntVar(&cfg.n, "n", 100_000, "trades per path")
	fs.IntVar(&cfg.batch, "batch", 5000, "trades per ingest batch (one POST /v1/internal/trades)")
	fs.IntVar(&cfg.mint, "mints", 50, "distinct mints")
	fs.IntVar(&cfg.senders, "senders", 4, "concurrent batches")
	fs.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of the NATS path to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.n <= 0 || cfg.batch <= 0 || cfg.mint <= 0 || cfg.senders <= 0 {
		return errors.New("-n, -batch, -mints and -senders must be positive")
	}
	batches := synthetic(cfg)
	fmt.Fprintf(out, "natsingest: %d synthetic trades per path, %d per batch, %d senders, load average %s\n", cfg.n, cfg.batch, cfg.senders, loadavg())

	direct, err := measure(ctx, cfg, "direct", batches, runDirect)
	if err != nil {
		return fmt.Errorf("direct: %w", err)
	}
	direct.print(out)
	if cfg.cpuprofile != "" {
		f, err := os.Create(cfg.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	viaNATS, err := measure(ctx, cfg, "nats", batches, runNATS)
	if cfg.cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return fmt.Errorf("through NATS: %w", err)
	}
	viaNATS.print(out)
	fmt.Fprintf(out, "ratio nats/direct: wall rate %.2f×, trades per assetd CPU-second %.2f×", viaNATS.rate()/direct.rate(), direct.cpuPer()/viaNATS.cpuPer())
	if direct.others >= 0 && viaNATS.others >= 0 {
		fmt.Fprintf(out, ", trades per CPU-second with nats-server and postgres %.2f×", (direct.cpuPer()+direct.othersPer())/(viaNATS.cpuPer()+viaNATS.othersPer()))
	}
	fmt.Fprintf(out, " (load average %s)\n", loadavg())
	return nil
}

// synthetic makes cfg.n valid synthetic trades in batches.
func synthetic(cfg config) [][]analytics.Trade {
	var run [6]byte
	_, _ = rand.Read(run[:])
	tag := hex.EncodeToString(run[:])
	mints := make([]string, cfg.mint)
	for i := range mints {
		mints[i] = addr("synthetic mint", i)
	}
	wallets := make([]string, 64)
	for i := range wallets {
		wallets[i] = addr("synthetic wallet", i)
	}
	now := time.Now().Unix()
	var out [][]analytics.Trade
	var b []analytics.Trade
	for i := range cfg.n {
		side := analytics.SideBuy
		if i%2 == 1 {
			side = analytics.SideSell
		}
		price := 1 + float64(i%100)/100
		b = append(b, analytics.Trade{Signature: fmt.Sprintf("synthetic-%s-%d", tag, i), Slot: int64(1000 + i/50), BlockTime: now - int64(i%600),
			Mint: mints[i%len(mints)], Side: side, TokenAmount: 10, USDAmount: 10 * price, PriceUSD: price, Wallet: wallets[i%len(wallets)],
			Venue: "synthetic", FeeUSD: 0.01})
		if len(b) == cfg.batch {
			out = append(out, b)
			b = nil
		}
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}

func addr(kind string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", kind, i))
	return base58.Encode(sum[:])
}

type result struct {
	name   string
	n      int
	wall   time.Duration
	cpu    time.Duration // this process
	others time.Duration // nats-server + postgres processes (-1: not visible)
	acked  time.Duration // every batch acknowledged (0: the same as wall)
}

func (r result) rate() float64 { return float64(r.n) / r.wall.Seconds() }

// cpuPer and othersPer are CPU seconds per trade.
func (r result) cpuPer() float64    { return r.cpu.Seconds() / float64(r.n) }
func (r result) othersPer() float64 { return r.others.Seconds() / float64(r.n) }

func (r result) print(w io.Writer) {
	fmt.Fprintf(w, "%-7s %8d trades in %7.2fs wall: %8.0f trades/s; assetd CPU %6.2f µs/trade (%.0f trades per CPU-second)", r.name, r.n, r.wall.Seconds(), r.rate(),
		float64(r.cpu.Nanoseconds())/float64(r.n)/1e3, float64(r.n)/r.cpu.Seconds())
	if r.acked > 0 {
		fmt.Fprintf(w, "; every batch acknowledged after %.2fs", r.acked.Seconds())
	}
	if r.others >= 0 {
		fmt.Fprintf(w, "; nats-server+postgres CPU %6.2f µs/trade (shared, approximate)", float64(r.others.Nanoseconds())/float64(r.n)/1e3)
	}
	fmt.Fprintln(w)
}

// clock measures a path from start (set-up done) to stop (every trade
// stored, before tear-down, whose exiting connections would take their
// CPU time with them).
type clock struct {
	t0, t1         time.Time
	cpu0, cpu1     time.Duration
	other0, other1 map[int]time.Duration
	acked          time.Time // every batch acknowledged (NATS path)
}

func (c *clock) start() { c.cpu0, c.other0, c.t0 = rusage(), otherCPU(), time.Now() }
func (c *clock) stop()  { c.t1, c.cpu1, c.other1 = time.Now(), rusage(), otherCPU() }

// path ingests batches into a store on schema, calling c.start after its
// set-up and c.stop once every trade is stored.
type path func(ctx context.Context, cfg config, schema string, batches [][]analytics.Trade, c *clock) error

// measure runs p on a fresh schema.
func measure(ctx context.Context, cfg config, name string, batches [][]analytics.Trade, p path) (result, error) {
	schema := "assetd_bench_" + name + "_" + randomHex(6)
	defer dropSchema(cfg.pg, schema)
	var c clock
	if err := p(ctx, cfg, schema, batches, &c); err != nil {
		return result{}, err
	}
	r := result{name: name, n: cfg.n, wall: c.t1.Sub(c.t0), cpu: c.cpu1 - c.cpu0, others: -1}
	if !c.acked.IsZero() {
		r.acked = c.acked.Sub(c.t0)
	}
	if o, ok := otherDelta(c.other0, c.other1); ok {
		r.others = o
	}
	return r, nil
}

func openIngester(ctx context.Context, cfg config, schema string) (*postgres.Store, *analytics.Engine, *ingest.Ingester, error) {
	st, err := postgres.OpenSchema(ctx, cfg.pg, schema)
	if err != nil {
		return nil, nil, nil, err
	}
	if _, err := st.Migrate(ctx); err != nil {
		_ = st.Close()
		return nil, nil, nil, err
	}
	eng, err := analytics.New(analytics.Config{})
	if err != nil {
		_ = st.Close()
		return nil, nil, nil, err
	}
	in, err := ingest.New(eng, st, ingest.Config{})
	if err != nil {
		_ = st.Close()
		return nil, nil, nil, err
	}
	return st, eng, in, nil
}

// send ingests batches from cfg.senders goroutines.
func send(ctx context.Context, cfg config, batches [][]analytics.Trade, ingestFn func(context.Context, []analytics.Trade) (analytics.IngestResult, error)) error {
	next := make(chan []analytics.Trade)
	errs := make(chan error, cfg.senders)
	var wg sync.WaitGroup
	for range cfg.senders {
		wg.Go(func() {
			for b := range next {
				res, err := ingestFn(ctx, b)
				if err == nil && res.Accepted != len(b) {
					err = fmt.Errorf("batch: %d of %d accepted (%+v)", res.Accepted, len(b), res)
				}
				if err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		})
	}
	for _, b := range batches {
		next <- b
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func runDirect(ctx context.Context, cfg config, schema string, batches [][]analytics.Trade, c *clock) error {
	st, _, in, err := openIngester(ctx, cfg, schema)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	c.start()
	if err := send(ctx, cfg, batches, in.Ingest); err != nil {
		return err
	}
	c.stop()
	return nil
}

// countingSink counts what the worker stored and closes done at want.
type countingSink struct {
	in   *ingest.Ingester
	mu   sync.Mutex
	n    int
	want int
	done chan struct{}
}

func (s *countingSink) Ingest(ctx context.Context, trades []analytics.Trade) (analytics.IngestResult, error) {
	res, err := s.in.Ingest(ctx, trades)
	if err != nil {
		return res, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.n
	s.n += res.Accepted
	if before < s.want && s.n >= s.want {
		close(s.done)
	}
	return res, nil
}

func runNATS(ctx context.Context, cfg config, schema string, batches [][]analytics.Trade, c *clock) error {
	st, eng, in, err := openIngester(ctx, cfg, schema)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	prefix := "bench" + randomHex(6)
	bus, err := natsbus.Connect(ctx, natsbus.Config{URL: cfg.nats, Prefix: prefix, Name: "natsingest"})
	if err != nil {
		return err
	}
	defer func() { _ = bus.Close(context.Background()) }()
	if !bus.Connected() {
		return fmt.Errorf("NATS at %s not reachable", cfg.nats)
	}
	stream, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: prefix})
	if err != nil {
		return err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, name := range streamNames(prefix) {
			_ = bus.JetStream().DeleteStream(dctx, name)
		}
	}()
	// The publisher admits through the serving engine, as serve's does.
	pub := tradestream.NewPublisher(bus.JetStream(), bus.Connected, prefix, eng, st)
	sink := &countingSink{in: in, want: cfg.n, done: make(chan struct{})}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	w := tradestream.NewWorker(stream, sink, st, slog.New(slog.DiscardHandler))
	wg.Go(func() { w.Run(wctx) })
	defer func() { stop(); wg.Wait() }()
	c.start()
	if err := send(ctx, cfg, batches, pub.Ingest); err != nil {
		return err
	}
	c.acked = time.Now()
	select {
	case <-sink.done:
		c.stop()
		return nil
	case <-time.After(5 * time.Minute):
		return fmt.Errorf("worker stored %d of %d trades after 5 minutes", sink.stored(), cfg.n)
	}
}

func (s *countingSink) stored() int { s.mu.Lock(); defer s.mu.Unlock(); return s.n }

// streamNames are the trade streams' names: the legacy stream's, and the
// batch stream's where there is one.
func streamNames(prefix string) []string {
	return []string{tradestream.StreamName(prefix), tradestream.BatchStreamName(prefix)}
}

func rusage() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// otherCPU is the CPU time (utime+stime, /proc/<pid>/stat) of each visible
// nats-server and postgres process.
func otherCPU() map[int]time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	out := map[int]time.Duration{}
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		comm := s[open+1 : end]
		if comm != "nats-server" && comm != "postgres" {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		out[pid] = time.Duration(u+k) * (time.Second / 100) // USER_HZ
	}
	return out
}

// otherDelta is the CPU the processes of after spent since before (a
// process gone meanwhile loses its last part; a new one counts whole).
func otherDelta(before, after map[int]time.Duration) (time.Duration, bool) {
	if len(after) == 0 {
		return 0, false
	}
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d, true
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func dropSchema(url, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
}
