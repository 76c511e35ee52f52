// Command sse loads GET /v1/stream of a running assetd: N clients each
// on T topics, plus one deliberately slow client that never reads, and
// reports the server's memory per client and CPU, the latency from an
// event's append to its arrival at the clients (p50/p99/max), and whether
// the slow client was cut with an overflow event while the others stayed
// on time.
//
//	assetd serve --demo --stream-conns-per-key 2000 --stream-topics-per-key 50000 \
//	    --stream-buffer 32 --event-price-step 0.0001 &
//	go run ./bench/sse -url http://127.0.0.1:8080 -key "$KEY" -pid $! -n 1000 -topics 10 -d 60s
//
// Topics are drawn from the server itself: trending, advisories, depeg
// and price:<mint> of the curated and trending mints (the demo's prices
// move every few seconds). The slow client subscribes to every topic the
// others use and sets a 4 KiB receive buffer, so its connection fills and
// the server must cut it. -pid (the server's process id, same host) adds
// RSS and CPU from /proc. Latency is the event's `time` (set when it was
// appended, after the producer saw the state change; the producer compares
// state once per second) to the moment a client parsed it: both clocks
// are this host's.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "server base URL")
	key := flag.String("key", os.Getenv("ASSETD_KEY"), "API key (assets:read)")
	n := flag.Int("n", 1000, "stream clients")
	topics := flag.Int("topics", 10, "topics per client")
	dur := flag.Duration("d", 60*time.Second, "measurement duration after every client connected")
	pid := flag.Int("pid", 0, "server process id for RSS and CPU (/proc; 0: skip)")
	slow := flag.Bool("slow", true, "add one client that never reads (expects an overflow cut)")
	flag.Parse()
	if *key == "" {
		fmt.Fprintln(os.Stderr, "sse: -key (or ASSETD_KEY) is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *base, *key, *n, *topics, *dur, *pid, *slow); err != nil {
		fmt.Fprintln(os.Stderr, "sse:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, base, key string, n, perClient int, dur time.Duration, pid int, slow bool) error {
	pool, err := topicPool(ctx, base, key)
	if err != nil {
		return err
	}
	if len(pool) < perClient {
		return fmt.Errorf("only %d topics available, want %d per client", len(pool), perClient)
	}
	fmt.Printf("topic pool: %d topics (%d price mints)\n", len(pool), len(pool)-3)
	rss0, cpu0 := procStats(pid)

	st := &stats{}
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}
	hc := &http.Client{Transport: tr}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var connected atomic.Int64
	used := map[string]bool{}
	for i := 0; i < n; i++ {
		ts := make([]string, perClient)
		for j := range ts {
			ts[j] = pool[(i*perClient+j)%len(pool)]
			used[ts[j]] = true
		}
		ready := make(chan error, 1)
		wg.Add(1)
		go func() { defer wg.Done(); client(cctx, hc, base, key, ts, st, ready) }()
		if err := <-ready; err != nil {
			return fmt.Errorf("client %d: %w", i, err)
		}
		connected.Add(1)
	}
	fmt.Printf("connected %d clients × %d topics\n", connected.Load(), perClient)
	time.Sleep(2 * time.Second) // let the server settle before reading its RSS
	rss1, cpu1 := procStats(pid)
	t1 := time.Now()

	slowRes := make(chan string, 1)
	if slow {
		all := make([]string, 0, len(used))
		for t := range used {
			all = append(all, t)
		}
		slices.Sort(all)
		go func() { slowRes <- slowClient(cctx, base, key, all) }()
	}
	timer := time.NewTimer(dur)
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
	rss2, cpu2 := procStats(pid)
	t2 := time.Now()
	cancel()
	wg.Wait()

	fmt.Printf("events received: %d (clients cut: %d, other disconnects: %d)\n", st.events.Load(), st.overflows.Load(), st.errors.Load())
	lat := st.latencies()
	if len(lat) > 0 {
		fmt.Printf("append→client latency: p50 %s  p99 %s  max %s  (%d samples)\n", pct(lat, 50), pct(lat, 99), lat[len(lat)-1], len(lat))
	}
	if pid > 0 {
		fmt.Printf("server RSS: %.1f MiB idle, %.1f MiB with %d clients (%.1f KiB per client), %.1f MiB at the end\n",
			mib(rss0), mib(rss1), n, float64(rss1-rss0)/1024/float64(n), mib(rss2))
		fmt.Printf("server CPU: %.2f cores while %d clients streamed (%.1f s CPU over %.1f s); connecting cost %.1f s CPU\n",
			(cpu2-cpu1)/t2.Sub(t1).Seconds(), n, cpu2-cpu1, t2.Sub(t1).Seconds(), cpu1-cpu0)
	}
	if slow {
		select {
		case r := <-slowRes:
			fmt.Println("slow client:", r)
		case <-time.After(5 * time.Second):
			fmt.Println("slow client: still connected (not cut within the run)")
		}
	}
	return nil
}

type stats struct {
	events, overflows, errors atomic.Int64
	mu                        sync.Mutex
	lat                       []time.Duration
}

func (s *stats) add(d time.Duration) {
	s.mu.Lock()
	s.lat = append(s.lat, d)
	s.mu.Unlock()
}

func (s *stats) latencies() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.lat)
	slices.Sort(out)
	return out
}

func pct(xs []time.Duration, p int) time.Duration {
	return xs[min(len(xs)-1, len(xs)*p/100)].Round(time.Millisecond)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// client reads one stream until ctx ends; ready gets nil once it is open.
func client(ctx context.Context, hc *http.Client, base, key string, topics []string, st *stats, ready chan<- error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/stream?topics="+url.QueryEscape(strings.Join(topics, ",")), nil)
	req.Header.Set("X-Api-Key", key)
	resp, err := hc.Do(req)
	if err != nil {
		ready <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		ready <- fmt.Errorf("status %d", resp.StatusCode)
		return
	}
	ready <- nil
	r := bufio.NewReader(resp.Body)
	var event string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if ctx.Err() == nil {
				st.errors.Add(1)
			}
			return
		}
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimSpace(line[7:])
		case strings.HasPrefix(line, "data: "):
			if event == "overflow" {
				st.overflows.Add(1)
				return
			}
			var e struct {
				Time time.Time `json:"time"`
			}
			if json.Unmarshal([]byte(line[6:]), &e) == nil && !e.Time.IsZero() {
				st.events.Add(1)
				st.add(time.Since(e.Time))
			}
		}
	}
}

// slowClient subscribes to topics with a 4 KiB receive buffer and reads
// nothing until the server stops sending; then it reads what arrived and
// reports whether it ends with an overflow event.
func slowClient(ctx context.Context, base, key string, topics []string) string {
	u, _ := url.Parse(base)
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		_ = c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return serr
	}}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "GET /v1/stream?topics=%s HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\n\r\n", url.QueryEscape(strings.Join(topics, ",")), u.Host, key)
	// Read nothing while the server's queue for this client fills; check
	// the server-side state through the metrics-free route: wait for the
	// run to end, then drain.
	<-ctx.Done()
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	r := bufio.NewReaderSize(conn, 1<<20)
	var lastEvent, lastData string
	bytes := 0
	for {
		line, err := r.ReadString('\n')
		bytes += len(line)
		if err != nil {
			break
		}
		if strings.HasPrefix(line, "event: ") {
			lastEvent = strings.TrimSpace(line[7:])
		}
		if strings.HasPrefix(line, "data: ") {
			lastData = strings.TrimSpace(line[6:])
		}
	}
	if lastEvent == "overflow" {
		return fmt.Sprintf("cut with overflow (%d bytes read after %s unread; final data %s)", bytes, time.Since(start).Round(time.Second), truncate(lastData, 120))
	}
	return "not cut: last event " + strconv.Quote(lastEvent) + fmt.Sprintf(" after %d bytes", bytes)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// topicPool is trending, advisories, depeg and price:<mint> of the
// curated and trending mints.
func topicPool(ctx context.Context, base, key string) ([]string, error) {
	pool := []string{"trending", "advisories", "depeg"}
	seen := map[string]bool{}
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			pool = append(pool, "price:"+m)
		}
	}
	var tr struct {
		Trending []struct {
			Mint string `json:"mint"`
		} `json:"trending"`
	}
	if err := getJSON(ctx, base+"/v1/assets/trending?limit=100", key, &tr); err != nil {
		return nil, err
	}
	for _, r := range tr.Trending {
		add(r.Mint)
	}
	var cur struct {
		Assets []struct {
			Variants []struct {
				Mint string `json:"mint"`
			} `json:"variants"`
			PrimaryVariant struct {
				Mint string `json:"mint"`
			} `json:"primaryVariant"`
		} `json:"assets"`
	}
	if err := getJSON(ctx, base+"/v1/assets/curated?limit=500&variants=all", key, &cur); err != nil {
		return nil, err
	}
	for _, a := range cur.Assets {
		add(a.PrimaryVariant.Mint)
		for _, v := range a.Variants {
			add(v.Mint)
		}
	}
	return pool, nil
}

func getJSON(ctx context.Context, u, key string, out any) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d", u, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// procStats returns the process's RSS (bytes) and CPU seconds (user +
// system) from /proc (zeros without a pid).
func procStats(pid int) (rss int64, cpu float64) {
	if pid <= 0 {
		return 0, 0
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
				rss = kb * 1024
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		ut, _ := strconv.ParseFloat(f[11], 64)
		stt, _ := strconv.ParseFloat(f[12], 64)
		cpu = (ut + stt) / 100 // USER_HZ
	}
	return rss, cpu
}
