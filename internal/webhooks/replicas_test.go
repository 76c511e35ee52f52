package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/storage/storetest"
	"github.com/assetd/assetd/internal/webhooks"
)

// engines returns two handles on one fresh database per engine (two
// replicas): SQLite always, PostgreSQL when ASSETD_TEST_DATABASE_URL is set.
func engines(t *testing.T) map[string]func(t *testing.T) (webhooks.Store, webhooks.Store) {
	ctx := context.Background()
	out := map[string]func(t *testing.T) (webhooks.Store, webhooks.Store){
		"sqlite": func(t *testing.T) (webhooks.Store, webhooks.Store) {
			dir := t.TempDir()
			open := func() *sqlite.Store {
				st, err := sqlite.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				if _, err := st.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				return st
			}
			return open(), open()
		},
	}
	if url := os.Getenv("ASSETD_TEST_DATABASE_URL"); url != "" {
		out["postgres"] = func(t *testing.T) (webhooks.Store, webhooks.Store) {
			schema := storetest.PostgresSchema(t, url)
			open := func() *postgres.Store {
				st, err := postgres.OpenSchema(ctx, url, schema)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				if _, err := st.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				return st
			}
			return open(), open()
		}
	}
	return out
}

// Two replicas on one database, each with its own copy of the event log
// (as replicas reading one JetStream log have), make their passes at the
// same moments, concurrently: leases let one of them fan out and one
// deliver the endpoint, so every event arrives exactly once while the
// receiver is up, with a signature that verifies.
func TestTwoReplicasDeliverOnce(t *testing.T) {
	for name, open := range engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
			rc := newReceiver(t)
			a, b := open(t)
			svc := webhooks.NewService(a, &webhooks.Guard{AllowPrivate: true}, clk.Now)
			e, err := svc.Create(ctx, "proj-1", webhooks.Input{URL: rc.srv.URL + "/hook", Events: []string{webhooks.EventTrending}})
			if err != nil {
				t.Fatal(err)
			}
			logA, logB := events.NewMemory(1000, clk.Now), events.NewMemory(1000, clk.Now)
			w := &world{t: t, clk: clk, rc: rc}
			da := w.dispatcher(a, logA, "replica-a", true)
			db := w.dispatcher(b, logB, "replica-b", true)
			both := func() {
				var wg sync.WaitGroup
				for _, d := range []*webhooks.Dispatcher{da, db} {
					wg.Go(func() {
						if _, err := d.RunOnce(ctx); err != nil {
							t.Error(err)
						}
					})
				}
				wg.Wait()
			}
			both()
			const n = 20
			for i := range n {
				data, _ := json.Marshal(map[string]any{"synthetic": true, "n": i})
				for _, l := range []*events.Memory{logA, logB} {
					if _, err := l.Append(ctx, events.Event{Type: events.TypeTrending, Topic: "trending", Data: data}); err != nil {
						t.Fatal(err)
					}
				}
				if i%5 == 4 {
					both()
					clk.Add(time.Second)
				}
			}
			for i := 0; backlog(t, a) > 0 || i == 0; i++ {
				if i == 100 {
					t.Fatal("backlog never drained")
				}
				both()
				clk.Add(time.Second)
			}
			reqs := rc.requests()
			if len(reqs) != n {
				t.Errorf("%d requests for %d events: an endpoint was delivered by both replicas", len(reqs), n)
			}
			seen := map[string]bool{}
			for _, r := range reqs {
				if seen[r.id] {
					t.Errorf("webhook-id %s delivered twice", r.id)
				}
				seen[r.id] = true
				if r.status != http.StatusNoContent {
					t.Errorf("status %d", r.status)
				}
				if err := webhooks.Verify(e.Secret, r.id, r.ts, r.sig, r.body, clk.Now(), time.Hour); err != nil {
					t.Errorf("signature: %v", err)
				}
			}
		})
	}
}
