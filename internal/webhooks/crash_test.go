package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/webhooks"
)

// Environment of the helper process of TestKill9MidRetry.
const (
	crashDirEnv   = "ASSETD_WEBHOOK_CRASH_DIR"
	crashStartEnv = "ASSETD_WEBHOOK_CRASH_START"
)

// TestCrashHelperProcess is the process TestKill9MidRetry kills: a
// dispatcher on the store in $ASSETD_WEBHOOK_CRASH_DIR that appends three
// events and makes passes, its fake clock 10 s further each time, until
// it is killed. Run on its own it skips.
func TestCrashHelperProcess(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("the helper process of TestKill9MidRetry")
	}
	start, err := strconv.ParseInt(os.Getenv(crashStartEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.UnixMilli(start).UTC()}
	log := events.NewMemory(100, clk.Now)
	g := &webhooks.Guard{AllowPrivate: true}
	d, err := webhooks.NewDispatcher(webhooks.Config{Store: st, Log: log, Guard: g, Client: g.Client(time.Minute, nil),
		Now: clk.Now, Jitter: func() float64 { return 0.5 }, Holder: "doomed"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := log.Append(ctx, events.Event{Type: events.TypeTrending, Topic: "trending", Data: []byte(`{"synthetic":true,"n":` + strconv.Itoa(i) + `}`)}); err != nil {
			t.Fatal(err)
		}
	}
	for {
		if _, err := d.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Add(10 * time.Second)
	}
}

// TestKill9MidRetry: a process delivering webhooks is killed with SIGKILL
// while a retry is in flight (the receiver holds the request). A new
// dispatcher on the same database, once the dead holder's lease has
// expired, delivers every event; every request of an event carried the
// same webhook-id and a signature that verifies; the delivery log holds
// every attempt but the one the kill cut short.
func TestKill9MidRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	w := newWorld(t)
	var (
		mu       sync.Mutex
		n        int
		healthy  bool
		inFlight = make(chan struct{})
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k, ok := n, healthy
		mu.Unlock()
		rec := func(status int) {
			b, _ := io.ReadAll(r.Body)
			w.rc.mu.Lock()
			w.rc.got = append(w.rc.got, received{r.Header.Get(webhooks.HeaderID), r.Header.Get(webhooks.HeaderTimestamp), r.Header.Get(webhooks.HeaderSignature), b, status})
			w.rc.mu.Unlock()
		}
		switch {
		case ok:
			rec(http.StatusNoContent)
			rw.WriteHeader(http.StatusNoContent)
		case k <= 2: // the first attempts fail
			rec(http.StatusServiceUnavailable)
			rw.WriteHeader(http.StatusServiceUnavailable)
		case k == 3: // the next one is held until its sender dies
			rec(0)
			close(inFlight)
			<-r.Context().Done()
		default:
			rw.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(rcv.Close)
	e := w.create(rcv.URL+"/hook", webhooks.EventTrending)

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+w.dir, crashStartEnv+"="+strconv.FormatInt(w.clk.Now().UnixMilli(), 10))
	out := &syncWriter{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-inFlight:
	case err := <-exited:
		t.Fatalf("helper exited before the held attempt: %v\n%s", err, out)
	case <-time.After(2 * time.Minute): // a deadline for a hung helper, not a timing assertion
		_ = cmd.Process.Kill()
		t.Fatalf("no third attempt arrived\n%s", out)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited

	mu.Lock()
	healthy = true
	mu.Unlock()
	if n := backlog(t, w.store); n != 3 {
		t.Fatalf("backlog after the kill = %d, want the 3 events pending", n)
	}
	// The next process: a new dispatcher, a new (empty) in-memory log,
	// after the dead holder's lease expired.
	st2 := w.open()
	w.clk.Add(time.Hour)
	g := &webhooks.Guard{AllowPrivate: true}
	d2, err := webhooks.NewDispatcher(webhooks.Config{Store: st2, Log: events.NewMemory(100, w.clk.Now), Guard: g, Client: g.Client(time.Minute, nil),
		Now: w.clk.Now, Jitter: func() float64 { return 0.5 }, Holder: "successor"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; backlog(t, st2) > 0; i++ {
		if i == 1000 {
			t.Fatal("backlog never drained after the kill")
		}
		pass(t, d2)
		w.clk.Add(10 * time.Second)
	}
	reqs := w.rc.requests()
	cut := 0
	for _, r := range reqs {
		if r.status == 0 {
			cut++
		}
	}
	if cut != 1 {
		t.Fatalf("%d requests cut short, want 1", cut)
	}
	// checkDelivered counts one logged attempt per request: all but the cut one.
	w.rc.mu.Lock()
	kept := w.rc.got[:0:0]
	for _, r := range w.rc.got {
		if r.status != 0 {
			kept = append(kept, r)
		}
	}
	cutID := ""
	for _, r := range w.rc.got {
		if r.status == 0 {
			cutID = r.id
		}
	}
	w.rc.got = kept
	w.rc.mu.Unlock()
	w.checkDelivered(e, 3)
	// The cut request's delivery was delivered later with the same id.
	found := false
	for _, r := range kept {
		found = found || r.id == cutID && r.status == http.StatusNoContent
	}
	if !found {
		t.Errorf("the delivery cut by the kill (%s) was not delivered afterwards with the same webhook-id", cutID)
	}
}

// syncWriter collects a process's output.
type syncWriter struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
