package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/jackc/pgx/v5"
)

// BenchmarkTokenQueriesPgTrgm runs the token index's lookups as SQL
// against PostgreSQL with pg_trgm GIN indexes on the same rows (the token
// file of ASSETD_TOKENS_FILE, else the shared 150k CSV), for comparison
// with the in-memory index (BenchmarkQueries in internal/tokenindex and
// BenchmarkSearchTokens in internal/curator). Needs
// ASSETD_TEST_DATABASE_URL and the pg_trgm extension.
func BenchmarkTokenQueriesPgTrgm(b *testing.B) {
	url := os.Getenv("ASSETD_TEST_DATABASE_URL")
	if url == "" {
		b.Skip("ASSETD_TEST_DATABASE_URL not set")
	}
	path := os.Getenv("ASSETD_TOKENS_FILE")
	if path == "" {
		path = "../../../../shared/data/token-index-sonarwatch-solana-150k.csv"
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skip("token file absent:", err)
	}
	byMint := map[string]int{}
	var toks []tokenindex.Token
	_, err = tokenindex.Parse(f, func(t tokenindex.Token) {
		t = t.Clean()
		if i, ok := byMint[t.Mint]; ok {
			toks[i] = t
			return
		}
		byMint[t.Mint] = len(toks)
		toks = append(toks, t)
	}, nil)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var rb [8]byte
	_, _ = rand.Read(rb[:])
	schema := "assetd_bench_" + hex.EncodeToString(rb[:])
	st, err := postgres.OpenSchema(ctx, url, schema)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		st.Close()
		_, _ = conn.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
		conn.Close(context.Background())
	})
	if _, err := st.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := st.ReplaceTokenSource(ctx, "bench", toks, time.Now()); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`,
		`SET search_path = ` + pgx.Identifier{schema}.Sanitize() + `, public`,
		`CREATE INDEX token_sym_exact ON token_index (upper(symbol) text_pattern_ops)`,
		`CREATE INDEX token_name_trgm ON token_index USING gin (upper(name) gin_trgm_ops)`,
		`ANALYZE token_index`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Skip("pg_trgm setup failed: ", err)
		}
	}
	for _, tc := range []struct{ name, sql, arg string }{
		{"exact-symbol/BTC", `SELECT mint, symbol, name FROM token_index WHERE upper(symbol) = $1 LIMIT 100`, "BTC"},
		{"exact-symbol/USDC", `SELECT mint, symbol, name FROM token_index WHERE upper(symbol) = $1 LIMIT 100`, "USDC"},
		{"symbol-prefix/BON", `SELECT mint, symbol, name FROM token_index WHERE upper(symbol) LIKE $1 || '%' LIMIT 20`, "BON"},
		{"name-prefix/DOG WIF", `SELECT mint, symbol, name FROM token_index WHERE upper(name) LIKE $1 || '%' LIMIT 20`, "DOG WIF"},
		{"name-contains/WIF HAT", `SELECT mint, symbol, name FROM token_index WHERE upper(name) LIKE '%' || $1 || '%' LIMIT 20`, "WIF HAT"},
		{"mint", `SELECT mint, symbol, name FROM token_index WHERE mint = $1`, "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				rows, err := conn.Query(ctx, tc.sql, tc.arg)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
