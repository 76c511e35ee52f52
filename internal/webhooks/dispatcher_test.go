package webhooks_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/webhooks"
)

// clock is a fake clock the tests advance; nothing waits on real time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// received is one request a receiver saw.
type received struct {
	id, ts, sig string
	body        []byte
	status      int
}

// receiver is an https test server that is up or down (503).
type receiver struct {
	srv  *httptest.Server
	down atomic.Bool
	mu   sync.Mutex
	got  []received
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		status := http.StatusNoContent
		if rc.down.Load() {
			status = http.StatusServiceUnavailable
		}
		rc.mu.Lock()
		rc.got = append(rc.got, received{r.Header.Get(webhooks.HeaderID), r.Header.Get(webhooks.HeaderTimestamp), r.Header.Get(webhooks.HeaderSignature), b, status})
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// port is the receiver's port.
func (rc *receiver) port() string {
	u, _ := url.Parse(rc.srv.URL)
	return u.Port()
}

// resolver maps names the tests use to addresses (synthetic).
type resolver map[string]string

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ip, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(ip)}, nil
}

// The receiver's certificate is for example.com and 127.0.0.1.
var names = resolver{"example.com": "127.0.0.1", "metadata.example.com": "169.254.169.254", "private.example.com": "10.0.0.1"}

type world struct {
	t     *testing.T
	dir   string
	store *sqlite.Store
	clk   *clock
	log   *events.Memory
	svc   *webhooks.Service
	rc    *receiver
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, dir: t.TempDir(), clk: &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}, rc: newReceiver(t)}
	w.store = w.open()
	w.log = events.NewMemory(10_000, w.clk.Now)
	// Tests reach the receiver on loopback: creation allows private targets.
	w.svc = webhooks.NewService(w.store, &webhooks.Guard{AllowPrivate: true, Resolver: names}, w.clk.Now)
	return w
}

func (w *world) open() *sqlite.Store {
	w.t.Helper()
	st, err := sqlite.Open(context.Background(), w.dir)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	return st
}

// dispatcher returns a dispatcher on store named holder; allowPrivate
// false puts the SSRF guard in front of the receiver.
func (w *world) dispatcher(store webhooks.Store, log webhooks.Log, holder string, allowPrivate bool) *webhooks.Dispatcher {
	w.t.Helper()
	g := &webhooks.Guard{AllowPrivate: allowPrivate, Resolver: names}
	pool := x509.NewCertPool()
	pool.AddCert(w.rc.srv.Certificate())
	d, err := webhooks.NewDispatcher(webhooks.Config{Store: store, Log: log, Guard: g, Client: g.Client(10*time.Second, &tls.Config{RootCAs: pool}),
		Now: w.clk.Now, Jitter: func() float64 { return 0.5 }, Holder: holder})
	if err != nil {
		w.t.Fatal(err)
	}
	return d
}

func (w *world) create(u string, evs ...string) webhooks.Endpoint {
	w.t.Helper()
	f := webhooks.Filters{}
	e, err := w.svc.Create(context.Background(), "proj-1", webhooks.Input{URL: u, Events: evs, Filters: f})
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

func (w *world) appendEvents(n int) {
	w.t.Helper()
	for i := range n {
		data := fmt.Sprintf(`{"synthetic":true,"mint":"So11111111111111111111111111111111111111112","n":%d}`, i)
		if _, err := w.log.Append(context.Background(), events.Event{Type: events.TypeAdvisory, Topic: "advisories", Data: json.RawMessage(data)}); err != nil {
			w.t.Fatal(err)
		}
	}
}

func pass(t *testing.T, d *webhooks.Dispatcher) {
	t.Helper()
	if _, err := d.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func backlog(t *testing.T, st webhooks.Store) int64 {
	t.Helper()
	n, err := st.WebhookBacklog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkDelivered asserts that the receiver got every event in 1..n (as
// eventId) with a verifying signature, that the requests of one event
// share their webhook-id and different events have different ids, and
// that the delivery log holds one attempt per request.
func (w *world) checkDelivered(e webhooks.Endpoint, n int) {
	t := w.t
	t.Helper()
	idOf := map[uint64]string{}
	delivered := map[uint64]int{}
	reqs := w.rc.requests()
	for _, r := range reqs {
		var sec int64
		fmt.Sscan(r.ts, &sec)
		if err := webhooks.Verify(e.Secret, r.id, r.ts, r.sig, r.body, time.Unix(sec, 0), time.Minute); err != nil {
			t.Errorf("request %s: signature does not verify: %v", r.id, err)
		}
		var p struct {
			EventID uint64 `json:"eventId"`
			Type    string `json:"type"`
		}
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		if prev, ok := idOf[p.EventID]; ok && prev != r.id {
			t.Errorf("event %d: retries carry webhook-ids %s and %s", p.EventID, prev, r.id)
		}
		idOf[p.EventID] = r.id
		if r.status == http.StatusNoContent {
			delivered[p.EventID]++
		}
	}
	seen := map[string]uint64{}
	for ev, id := range idOf {
		if other, dup := seen[id]; dup {
			t.Errorf("events %d and %d share webhook-id %s", ev, other, id)
		}
		seen[id] = ev
	}
	for ev := uint64(1); ev <= uint64(n); ev++ {
		if delivered[ev] == 0 {
			t.Errorf("event %d never delivered", ev)
		}
	}
	atts, err := w.store.WebhookAttempts(context.Background(), e.ID, time.Time{}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != len(reqs) {
		t.Errorf("delivery log holds %d attempts, the receiver saw %d requests", len(atts), len(reqs))
	}
	perDelivery := map[string][]webhooks.Attempt{}
	for _, a := range atts {
		perDelivery[a.DeliveryID] = append(perDelivery[a.DeliveryID], a)
	}
	for id, as := range perDelivery { // newest first
		if as[0].Outcome != webhooks.OutcomeDelivered || as[0].ResponseCode != http.StatusNoContent {
			t.Errorf("delivery %s: last attempt %+v, want delivered 204", id, as[0])
		}
		for i, a := range as {
			if a.Attempt != len(as)-i {
				t.Errorf("delivery %s: attempt numbers %v out of order", id, as)
				break
			}
			if i > 0 && (a.Outcome != webhooks.OutcomeFailed || a.ResponseCode != http.StatusServiceUnavailable) {
				t.Errorf("delivery %s: earlier attempt %+v, want failed 503", id, a)
			}
		}
	}
}

// A receiver down for 5 minutes, then up, receives every event; every
// signature verifies; retries share their webhook-id; the log shows every
// attempt.
func TestReceiverDownThenUp(t *testing.T) {
	w := newWorld(t)
	e := w.create(w.rc.srv.URL+"/hook", webhooks.EventAdvisory)
	d := w.dispatcher(w.store, w.log, "r1", true)
	pass(t, d) // the cursor starts at the present
	w.rc.down.Store(true)
	w.appendEvents(5)
	for range 30 { // 5 minutes down, a pass every 10 s
		pass(t, d)
		w.clk.Add(10 * time.Second)
	}
	if n := backlog(t, w.store); n != 5 {
		t.Fatalf("backlog while down = %d, want 5", n)
	}
	failed := len(w.rc.requests())
	if failed < 5 {
		t.Fatalf("%d attempts while down, want at least one per event", failed)
	}
	w.rc.down.Store(false)
	for i := 0; backlog(t, w.store) > 0; i++ {
		if i == 1000 {
			t.Fatal("backlog never drained")
		}
		w.clk.Add(10 * time.Second)
		pass(t, d)
	}
	w.checkDelivered(e, 5)
}

// A kill -9 of the delivering process mid-retry loses nothing: a new
// dispatcher on a re-opened store (and a new, empty in-memory log) takes
// the endpoint once the dead holder's lease expires and delivers every
// pending event with the webhook-id its earlier attempts carried. Until
// then it does not deliver (one replica per endpoint).
func TestCrashMidRetryLosesNothing(t *testing.T) {
	w := newWorld(t)
	e := w.create(w.rc.srv.URL+"/hook", webhooks.EventAdvisory)
	d1 := w.dispatcher(w.store, w.log, "r1", true)
	pass(t, d1)
	w.rc.down.Store(true)
	w.appendEvents(4)
	for range 3 {
		pass(t, d1)
		w.clk.Add(5 * time.Second)
	}
	before := len(w.rc.requests())
	if before == 0 || backlog(t, w.store) != 4 {
		t.Fatalf("before the crash: %d attempts, backlog %d", before, backlog(t, w.store))
	}
	// "kill -9": d1 is dropped mid-retry, nothing is closed or released.
	// The next process opens the database afresh; its event log is new.
	st2 := w.open()
	d2 := w.dispatcher(st2, events.NewMemory(100, w.clk.Now), "r2", true)
	w.rc.down.Store(false)
	pass(t, d2)
	if got := len(w.rc.requests()); got != before {
		t.Fatalf("the new replica delivered while the old one's lease was live (%d requests, had %d)", got, before)
	}
	w.clk.Add(31 * time.Second) // the dead holder's lease expires
	for i := 0; backlog(t, st2) > 0; i++ {
		if i == 1000 {
			t.Fatal("backlog never drained after the crash")
		}
		pass(t, d2)
		w.clk.Add(10 * time.Second)
	}
	w.checkDelivered(e, 4)
}

// Without --webhook-allow-private, a delivery whose target resolves to a
// non-public address is refused at delivery time (a DNS answer that
// changed after creation): no request reaches it and the log says so.
func TestDeliveryRefusesPrivateTargets(t *testing.T) {
	w := newWorld(t)
	port := w.rc.port()
	urls := []string{
		"https://127.0.0.1:" + port + "/hook",
		"https://example.com:" + port + "/hook", // resolves to 127.0.0.1
		"https://10.0.0.1/hook",
		"https://private.example.com/hook",
		"https://169.254.169.254/latest/meta-data",
		"https://metadata.example.com/hook",
	}
	var eps []webhooks.Endpoint
	for _, u := range urls {
		eps = append(eps, w.create(u, webhooks.EventAdvisory))
	}
	d := w.dispatcher(w.store, w.log, "r1", false)
	pass(t, d)
	w.appendEvents(1)
	pass(t, d)
	if n := len(w.rc.requests()); n != 0 {
		t.Fatalf("the receiver on loopback got %d requests", n)
	}
	for i, e := range eps {
		atts, err := w.store.WebhookAttempts(context.Background(), e.ID, time.Time{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(atts) != 1 || atts[0].Outcome != webhooks.OutcomeRefused || atts[0].ResponseCode != 0 {
			t.Errorf("%s: attempts %+v, want one refused", urls[i], atts)
		}
	}
}

// Retries back off exponentially with jitter and stop after 24 h: the
// delivery is then failed, and its last attempt is at the window's end.
func TestRetriesGiveUpAfter24h(t *testing.T) {
	w := newWorld(t)
	e := w.create(w.rc.srv.URL+"/hook", webhooks.EventAdvisory)
	d := w.dispatcher(w.store, w.log, "r1", true)
	pass(t, d)
	w.rc.down.Store(true)
	start := w.clk.Now()
	w.appendEvents(1)
	pass(t, d)
	for i := 0; backlog(t, w.store) > 0; i++ {
		if i == 10_000 {
			t.Fatal("never gave up")
		}
		pass(t, d)
		w.clk.Add(5 * time.Minute)
	}
	atts, err := w.store.WebhookAttempts(context.Background(), e.ID, time.Time{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// Delays with jitter 0.5: 3/4 of 5 s·2^(n-1) capped at 1 h, so a few
	// attempts in the first hour, then one per 45 min (passes every 5 min).
	if n := len(atts); n < 25 || n > 45 {
		t.Errorf("%d attempts over 24 h, want a backoff schedule of 25..45", n)
	}
	last := atts[0]
	if last.At.Before(start.Add(24*time.Hour)) || last.At.After(start.Add(24*time.Hour+5*time.Minute)) {
		t.Errorf("last attempt at %v, want at the 24 h mark (%v)", last.At, start.Add(24*time.Hour))
	}
	for i := 1; i+1 < len(atts); i++ { // newest first: gaps grow, then hold at the cap
		gap := atts[i-1].At.Sub(atts[i].At)
		if gap > time.Hour+5*time.Minute {
			t.Errorf("gap %v between attempts %d and %d exceeds the 1 h cap", gap, atts[i].Attempt, atts[i-1].Attempt)
		}
	}
	dl, err := w.store.WebhookDelivery(context.Background(), atts[0].DeliveryID)
	if err != nil || dl.Status != webhooks.StatusFailed {
		t.Errorf("delivery = %+v %v, want failed", dl, err)
	}
	// A redelivery sends it again with the same webhook-id.
	w.rc.down.Store(false)
	if _, err := w.svc.Redeliver(context.Background(), "proj-1", e.ID, dl.ID); err != nil {
		t.Fatal(err)
	}
	pass(t, d)
	reqs := w.rc.requests()
	if r := reqs[len(reqs)-1]; r.id != dl.ID || r.status != http.StatusNoContent {
		t.Errorf("redelivery = %s %d, want %s 204", r.id, r.status, dl.ID)
	}
}
