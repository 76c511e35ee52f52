package sqlite_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
)

// TestTradeLegsMigration: 0015 rebuilds trades with (signature, leg) as
// the key; stored trades keep their seqs and become leg 0, and the seq
// counter stays past every seq ever drawn (here 10, the latest trades
// having been deleted), so no seq is reused.
func TestTradeLegsMigration(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Put trades back in its pre-0015 shape (0007) with three trades and
	// a counter at 10, and forget 0015 and the later 0017 (trade
	// admission, which adds columns to trades and candles), as a store
	// last migrated before 0015 is.
	for _, q := range []string{
		`DROP TABLE trades`,
		`CREATE TABLE trades (seq INTEGER PRIMARY KEY AUTOINCREMENT, signature TEXT NOT NULL UNIQUE,
			mint TEXT NOT NULL, block_time INTEGER NOT NULL, data BLOB NOT NULL)`,
		`INSERT INTO trades(seq, signature, mint, block_time, data) VALUES (1, 'sig-1', 'm', 1, x'00'), (2, 'sig-2', 'm', 2, x'00'), (3, 'sig-3', 'm', 3, x'00')`,
		`UPDATE sqlite_sequence SET seq = 10 WHERE name = 'trades'`,
		`ALTER TABLE candles DROP COLUMN rejected_dust`,
		`ALTER TABLE candles DROP COLUMN rejected_outlier`,
		`DELETE FROM schema_migrations WHERE name LIKE '%trade_legs%' OR name LIKE '%trade_admission%'`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n, err := s.Migrate(ctx); err != nil || n != 2 {
		t.Fatalf("migrate: %d, %v", n, err)
	}
	var legs, seqSum int
	if err := db.QueryRowContext(ctx, `SELECT SUM(leg), SUM(seq) FROM trades`).Scan(&legs, &seqSum); err != nil || legs != 0 || seqSum != 6 {
		t.Fatalf("after migration: legs %d seq sum %d, %v", legs, seqSum, err)
	}
	// A second leg of a stored signature is a new trade, with seq 11.
	tr := analytics.Trade{Signature: "sig-1", Leg: 1, Slot: 1, BlockTime: 1_700_000_000, Mint: "So11111111111111111111111111111111111111112",
		Side: analytics.SideBuy, TokenAmount: 1, USDAmount: 1, PriceUSD: 1, Wallet: "So11111111111111111111111111111111111111112", Venue: "synthetic"}
	res, err := s.InsertTrades(ctx, []analytics.Trade{tr, tr}, time.Unix(1_700_000_000, 0))
	if err != nil || res.Count != 1 || res.First != 11 {
		t.Fatalf("insert leg 1: %+v, %v", res, err)
	}
}
