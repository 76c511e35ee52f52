package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/storage/storetest"
)

func open(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{Fresh: func(t *testing.T) (storetest.Store, func() storetest.Store) {
		dir := t.TempDir()
		s := open(t, dir)
		if _, err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s, func() storetest.Store { return open(t, dir) }
	}})
}

// Large registry bodies are stored as zstd frames (SQLite's allocator
// keeps the memory a value is read into), those an earlier version stored
// as imported are compressed by the next Migrate, small ones stay as they
// are, and all read back as imported.
func TestRegistryBodyEncoding(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := context.Background()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat(`{"assetId":"syn-000001","name":"Synthetic asset 1"},`, 4000)
	for _, d := range []storage.RegistryDocument{
		{Source: "big", Format: "assetd", Body: []byte(big), Hash: "h1"},
		{Source: "small", Format: "assetd", Body: []byte(`{"assets":[]}`), Hash: "h2"},
	} {
		if _, err := s.PutRegistryDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A row as an earlier version stored it: the body as imported.
	if _, err := db.ExecContext(ctx, `INSERT INTO registry_documents(source, format, body, hash, imported_at) VALUES ('old', 'assetd', ?, 'h3', 0)`,
		[]byte(big)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT source, encoding, length(body) FROM registry_documents`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var src, enc string
		var n int
		if err := rows.Scan(&src, &enc, &n); err != nil {
			t.Fatal(err)
		}
		stored[src] = fmt.Sprintf("%s %d", enc, n)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"big", "old"} {
		var zn int
		if _, err := fmt.Sscanf(stored[src], "zstd %d", &zn); err != nil || zn >= len(big)/10 {
			t.Errorf("%s body stored as %q, want zstd under a tenth of %d bytes", src, stored[src], len(big))
		}
	}
	if stored["small"] != " 13" {
		t.Errorf("small body stored as %q, want as imported", stored["small"])
	}
	docs, err := s.ListRegistryDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.Source] = string(d.Body)
	}
	if got["big"] != big || got["old"] != big || got["small"] != `{"assets":[]}` {
		t.Errorf("bodies read back differ from those imported (%d, %d, %q)", len(got["big"]), len(got["old"]), got["small"])
	}
}

// A full database (PRAGMA max_page_count standing in for a full disk)
// fails writes with storage.ErrFull, reports the state change once
// however many writes fail, and once more when a write succeeds again;
// reads go on meanwhile.
func TestFullDiskReportedOncePerChange(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var changes []bool
	s.OnFull(func(full bool, cause error) { changes = append(changes, full) })
	now := time.Unix(1_800_000_000, 0)
	batch := func(prefix string) []analytics.Trade { // visibly synthetic trades, enough to need new pages
		out := make([]analytics.Trade, 200)
		for i := range out {
			out[i] = analytics.Trade{Signature: fmt.Sprintf("%s-%d-%s", prefix, i, strings.Repeat("s", 80)), Slot: int64(i), BlockTime: now.Unix(),
				Mint: "So11111111111111111111111111111111111111112", Side: analytics.SideBuy, TokenAmount: 1, USDAmount: 1, PriceUSD: 1,
				Wallet: "So11111111111111111111111111111111111111112", Venue: "TestVenue"}
		}
		return out
	}
	if _, err := s.InsertTrades(ctx, batch("before"), now); err != nil {
		t.Fatal(err)
	}
	if err := s.LimitPages(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		_, err := s.InsertTrades(ctx, batch(fmt.Sprintf("full%d", i)), now)
		if !errors.Is(err, storage.ErrFull) {
			t.Fatalf("write %d on a full database: %v; want storage.ErrFull", i, err)
		}
	}
	if _, err := s.Versions(ctx); err != nil {
		t.Errorf("read on a full database: %v", err)
	}
	if err := s.LimitPages(ctx, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertTrades(ctx, batch("after"), now); err != nil {
		t.Fatalf("write after space came back: %v", err)
	}
	if !slices.Equal(changes, []bool{true, false}) {
		t.Errorf("state changes %v; want [true false] (once full, once writable)", changes)
	}
}
