package lists_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/jackc/pgx/v5"
)

func TestSnapshotClean(t *testing.T) {
	s := func(v string) *string { return &v }
	d := 42
	got := lists.Snapshot{Symbol: s("A\x00B"), Name: s("\u202e\x07"), LogoURI: s("javascript:x"), Decimals: &d, Verified: true}.Clean()
	if got.Symbol == nil || *got.Symbol != "AB" || got.Name != nil || got.LogoURI != nil || got.Decimals != nil || !got.Verified {
		t.Fatalf("Clean = %+v", got)
	}
}

// stores opens the engines a service test runs on: SQLite always,
// PostgreSQL when ASSETD_TEST_DATABASE_URL is set (a fresh schema).
func stores(t *testing.T) map[string]lists.Store {
	t.Helper()
	ctx := context.Background()
	lite, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	if _, err := lite.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	out := map[string]lists.Store{"sqlite": lite}
	if url := os.Getenv("ASSETD_TEST_DATABASE_URL"); url != "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		schema := "assetd_lists_" + hex.EncodeToString(b[:])
		pg, err := postgres.OpenSchema(ctx, url, schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			pg.Close()
			conn, err := pgx.Connect(context.Background(), url)
			if err != nil {
				t.Errorf("drop schema: %v", err)
				return
			}
			defer conn.Close(context.Background())
			_, _ = conn.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
		})
		if _, err := pg.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		out["postgres"] = pg
	}
	return out
}

// TestHostileSnapshotsAreStored: a NUL byte in a symbol (which PostgreSQL
// text refuses) neither fails a member put nor a bulk add.
func TestHostileSnapshotsAreStored(t *testing.T) {
	s := func(v string) *string { return &v }
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			svc, err := lists.New(st, lists.Limits{}, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Create(ctx, "p", lists.CreateInput{Slug: "hostile", Name: "Hostile"}); err != nil {
				t.Fatal(err)
			}
			bad := lists.Snapshot{Symbol: s("BAD\x00SYM"), Name: s("x\x00y")}
			m, _, err := svc.PutMember(ctx, "p", "hostile", "Syn1dx1111111111111111111111111111111111111", lists.MemberInput{Snapshot: &bad})
			if err != nil || *m.Snapshot.Symbol != "BADSYM" {
				t.Fatalf("PutMember = %+v, %v", m.Snapshot, err)
			}
			res, err := svc.AddMembers(ctx, "p", "hostile", []lists.NewMember{
				{Mint: "SynNu11111111111111111111111111111111111111", Snapshot: bad},
				{Mint: "SynLogo111111111111111111111111111111111111", Snapshot: lists.Snapshot{Symbol: s("OK")}},
			})
			if err != nil || len(res.Added) != 2 || len(res.Failed) != 0 {
				t.Fatalf("AddMembers = %+v, %v", res, err)
			}
		})
	}
}
