package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/jackc/pgx/v5"
)

// TestTradeLegsMigration: 0015 moves the unique key from signature to
// (signature, leg); trades stored before it become leg 0 with their seqs,
// and a second leg of a stored signature is then a new trade.
func TestTradeLegsMigration(t *testing.T) {
	url := databaseURL(t)
	schema := tempSchema(t, url)
	ctx := context.Background()
	s := open(t, url, schema)
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Put trades back in its pre-0015 shape with three trades, and forget 0015.
	sch := pgx.Identifier{schema}.Sanitize()
	for _, q := range []string{
		`ALTER TABLE ` + sch + `.trades DROP CONSTRAINT trades_signature_leg_key`,
		`ALTER TABLE ` + sch + `.trades DROP COLUMN leg`,
		`ALTER TABLE ` + sch + `.trades ADD CONSTRAINT trades_signature_key UNIQUE (signature)`,
		`INSERT INTO ` + sch + `.trades(signature, mint, block_time, data) VALUES ('sig-1', 'm', 1, '\x00'), ('sig-2', 'm', 2, '\x00'), ('sig-3', 'm', 3, '\x00')`,
		`DELETE FROM ` + sch + `.schema_migrations WHERE name LIKE '%trade_legs%'`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n, err := s.Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("migrate: %d, %v", n, err)
	}
	var legs, seqs int
	if err := conn.QueryRow(ctx, `SELECT SUM(leg), SUM(seq) FROM `+sch+`.trades`).Scan(&legs, &seqs); err != nil || legs != 0 || seqs != 6 {
		t.Fatalf("after migration: legs %d seq sum %d, %v", legs, seqs, err)
	}
	tr := analytics.Trade{Signature: "sig-1", Leg: 1, Slot: 1, BlockTime: 1_700_000_000, Mint: "So11111111111111111111111111111111111111112",
		Side: analytics.SideBuy, TokenAmount: 1, USDAmount: 1, PriceUSD: 1, Wallet: "So11111111111111111111111111111111111111112", Venue: "synthetic"}
	res, err := s.InsertTrades(ctx, []analytics.Trade{tr, tr}, time.Unix(1_700_000_000, 0))
	if err != nil || res.Count != 1 || res.First != 4 {
		t.Fatalf("insert leg 1: %+v, %v", res, err)
	}
	dup := tr
	dup.Leg = 0
	if res, err := s.InsertTrades(ctx, []analytics.Trade{dup}, time.Unix(1_700_000_000, 0)); err != nil || res.Count != 0 {
		t.Fatalf("sig-1 leg 0 again: %+v, %v", res, err)
	}
}
