package postgres_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/storetest"
	"github.com/jackc/pgx/v5"
)

// databaseURL returns ASSETD_TEST_DATABASE_URL or skips the test.
func databaseURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("ASSETD_TEST_DATABASE_URL")
	if u == "" {
		t.Skip("ASSETD_TEST_DATABASE_URL not set: skipping PostgreSQL conformance")
	}
	return u
}

// tempSchema is storetest.PostgresSchema.
func tempSchema(t *testing.T, url string) string {
	t.Helper()
	return storetest.PostgresSchema(t, url)
}

func open(t *testing.T, url, schema string) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenSchema(context.Background(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	url := databaseURL(t)
	storetest.Run(t, storetest.Harness{Fresh: func(t *testing.T) (storetest.Store, func() storetest.Store) {
		schema := tempSchema(t, url)
		s := open(t, url, schema)
		if _, err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s, func() storetest.Store { return open(t, url, schema) }
	}})
}

// Replicas starting together on an empty schema: every migration is
// applied by exactly one of them.
func TestMigrateRaceFromEmpty(t *testing.T) {
	url := databaseURL(t)
	schema := tempSchema(t, url)
	const replicas = 6
	stores := make([]*postgres.Store, replicas)
	for i := range stores {
		stores[i] = open(t, url, schema)
	}
	applied := make([]int, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = s.Migrate(context.Background())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Migrate: %v", err)
	}
	total := 0
	for _, n := range applied {
		total += n
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows int
	if err := conn.QueryRow(context.Background(),
		`SELECT COUNT(*) FROM `+pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if total == 0 || total != rows {
		t.Fatalf("applied %v (total %d), schema_migrations has %d rows; want each step once", applied, total, rows)
	}
}

// Stores on different schemas of one database do not see each other.
func TestSchemaIsolation(t *testing.T) {
	url := databaseURL(t)
	ctx := context.Background()
	a := open(t, url, tempSchema(t, url))
	b := open(t, url, tempSchema(t, url))
	for _, s := range []*postgres.Store{a, b} {
		if n, err := s.Migrate(ctx); err != nil || n == 0 {
			t.Fatalf("Migrate = %d, %v; want > 0 applied", n, err)
		}
	}
	k := apikey.Key{ID: "key_a", Hash: strings.Repeat("a", 64), Scopes: []string{"assets:read"}, CreatedAt: time.Now()}
	if _, err := a.CreateKey(ctx, "acme", k); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetKey(ctx, "key_a"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("key from schema a visible in schema b: %v", err)
	}
	if _, err := b.CreateKey(ctx, "acme", k); err != nil {
		t.Fatalf("same key in another schema: %v", err)
	}
	if a.Engine() != "postgres" || a.Ping(ctx) != nil {
		t.Fatal("Engine/Ping")
	}
}

func TestOpenInvalidURL(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://user:s3cret@[::1/db")
	if err == nil {
		t.Fatal("Open accepted an invalid URL")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error leaks the password: %v", err)
	}
}
