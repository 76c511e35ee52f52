package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/clustertest"
	"github.com/assetd/assetd/internal/ratelimit"
)

// proc is one `assetd serve` of the real binary.
type proc struct {
	cmd    *exec.Cmd
	base   string
	exited chan struct{}
}

// startBinary runs `bin serve args...`, reads its address from the
// "assetd listening" log line and waits until it answers /v1/health.
func startBinary(t *testing.T, bin, logPath string, args ...string) *proc {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json",
		"--marketdata-b=false", "--news-feed", "none", "--startup-warmup", "0s"}, args...)...)
	pr, pw := io.Pipe()
	cmd.Stdout = logf
	cmd.Stderr = io.MultiWriter(logf, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); pw.Close(); logf.Close(); close(p.exited) }()
	t.Cleanup(func() { p.signal(syscall.SIGKILL) })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "assetd listening" {
				addr <- line.Addr
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr) // the process never blocks on its stderr
	}()
	select {
	case a := <-addr:
		p.base = "http://" + a
	case <-p.exited:
		b, _ := os.ReadFile(logPath)
		t.Fatalf("assetd serve exited during start:\n%s", b)
	}
	eventually(t, 30*time.Second, "the server answers /v1/health", func() bool {
		resp, err := http.Get(p.base + "/v1/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return p
}

// signal sends sig and waits for the process to end.
func (p *proc) signal(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
	<-p.exited
}

// TestQuotaSurvivesKill9 runs the real binary with a 400/month quota and
// kills it with SIGKILL six times while four clients keep requesting (each
// time once this run has served 50), restarting it each time, then drains
// what is left. The key is never served more than its quota: units are
// reserved in the store before they are granted (docs/ratelimits.md,
// "Quotas and crashes"). What each crash may cost the key is bounded too:
// the units reserved and not yet granted (at most 1.5 blocks) and the
// requests granted whose answer the kill cut off (at most one per client).
// It runs on SQLite always, on PostgreSQL with ASSETD_TEST_DATABASE_URL and
// on PostgreSQL with Redis when ASSETD_TEST_REDIS_URL is set as well.
// Before the ledger the quota was restored from usage flushed every 10 s,
// so each kill forgot up to 10 s of requests (989 served on SQLite, 1,064
// on PostgreSQL in the measurement).
func TestQuotaSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary: skipped in -short mode")
	}
	const (
		quota   = 400
		kills   = 6
		perRun  = 50
		clients = 4
	)
	bin, err := clustertest.Build(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		engine
		serve []string // serve's own flags
	}
	var runs []run
	for _, e := range engines(t) {
		runs = append(runs, run{engine: e})
	}
	if redisURL, dbURL := os.Getenv("ASSETD_TEST_REDIS_URL"), os.Getenv("ASSETD_TEST_DATABASE_URL"); redisURL != "" && dbURL != "" {
		// Redis shares the rate limit; the quota stays in the store.
		runs = append(runs, run{engine{name: "postgres+redis", flags: []string{"--database-url", freshDatabase(t, dbURL)}},
			[]string{"--redis-url", redisURL, "--redis-prefix", redisTestPrefix(t, redisURL)}})
	}
	for _, e := range runs {
		t.Run(e.name, func(t *testing.T) {
			out, err := exec.Command(bin, append([]string{"keys", "create", "--project", "crash"}, e.flags...)...).Output()
			if err != nil {
				t.Fatalf("keys create: %v", err)
			}
			key := strings.TrimSpace(string(out))
			logPath := filepath.Join(t.TempDir(), "serve.log")
			args := append(append([]string{"--quota", "400/month"}, e.flags...), e.serve...)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			get := func(base string) (int, error) {
				req, _ := http.NewRequest("GET", base+authedPath, nil)
				req.Header.Set("X-Api-Key", key)
				resp, err := client.Do(req)
				if err != nil {
					return 0, err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode, nil
			}
			var served atomic.Int64
			for k := range kills {
				p := startBinary(t, bin, logPath, args...)
				var run atomic.Int64
				enough := make(chan struct{})
				var once sync.Once
				stop := make(chan struct{})
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for {
							select {
							case <-stop:
								return
							default:
							}
							status, err := get(p.base)
							if err != nil {
								continue // killed: stop closes next
							}
							if status == 200 {
								served.Add(1)
								if run.Add(1) >= perRun {
									once.Do(func() { close(enough) })
								}
							}
							if status == 429 {
								once.Do(func() { close(enough) }) // spent early: kill now
							}
						}
					})
				}
				<-enough
				p.signal(syscall.SIGKILL)
				close(stop)
				wg.Wait()
				client.CloseIdleConnections()
				t.Logf("kill -9 #%d: %d served in this run, %d in all", k+1, run.Load(), served.Load())
			}
			// The last run serves what is left, until the quota refuses.
			p := startBinary(t, bin, logPath, args...)
			last := 0
			for refused := 0; refused < 20; {
				status, err := get(p.base)
				if err != nil {
					t.Fatal(err)
				}
				switch status {
				case 200:
					served.Add(1)
					last++
					refused = 0
				case 429:
					refused++
				default:
					t.Fatalf("status %d", status)
				}
			}
			p.signal(syscall.SIGTERM)
			n := served.Load()
			block := ratelimit.BlockOf(quota)
			floor := quota - kills*(3*block/2+clients)
			// The ledger holds every unit granted: at least what was served.
			list, err := exec.Command(bin, append([]string{"keys", "list"}, e.flags...)...).Output()
			if err != nil || len(strings.Fields(string(list))) == 0 {
				t.Fatalf("keys list: %v", err)
			}
			var stderr strings.Builder
			usageCmd := exec.Command(bin, append([]string{"keys", "usage", strings.Fields(string(list))[0]}, e.flags...)...)
			usageCmd.Stderr = &stderr
			if err := usageCmd.Run(); err != nil {
				t.Fatalf("keys usage: %v\n%s", err, stderr.String())
			}
			m := regexp.MustCompile(`: (\d+) units of its monthly quota reserved`).FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("keys usage printed no reservation:\n%s", stderr.String())
			}
			reserved, _ := strconv.ParseInt(m[1], 10, 64)
			t.Logf("%s: quota %d/month, %d kill -9s under load: %d served (%d after the last restart), %d reserved in the store; bounds %d..%d",
				e.name, quota, kills, n, last, reserved, floor, quota)
			if reserved < n || reserved > quota {
				t.Fatalf("%s: %d units reserved for %d served; want served <= reserved <= %d", e.name, reserved, n, quota)
			}
			if n > quota {
				t.Fatalf("%s: served %d > quota %d over %d kill -9s", e.name, n, quota, kills)
			}
			if n < floor {
				t.Fatalf("%s: served %d; crashes may cost at most %d units each (1.5 blocks of %d and %d cut-off answers)",
					e.name, n, 3*block/2+clients, block, clients)
			}
		})
	}
}
