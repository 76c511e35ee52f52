package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/jackc/pgx/v5"
)

var tokenColumns = []string{"mint", "symbol", "name", "decimals", "logo_uri", "coingecko_id", "source", "imported_at"}

// ReplaceTokenSource implements tokenindex.Store: the rows are copied into
// a temporary table and upserted in one statement.
func (s *Store) ReplaceTokenSource(ctx context.Context, source string, tokens []tokenindex.Token, importedAt time.Time) (int, error) {
	ms := importedAt.UnixMilli()
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('assetd.tokens'))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM token_index WHERE source = $1`, source); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE token_import (LIKE token_index) ON COMMIT DROP`); err != nil {
			return err
		}
		i := 0
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"token_import"}, tokenColumns, pgx.CopyFromFunc(func() ([]any, error) {
			if i == len(tokens) {
				return nil, nil
			}
			t := tokens[i]
			i++
			var dec any
			if t.Decimals != nil {
				dec = int32(*t.Decimals)
			}
			return []any{t.Mint, t.Symbol, t.Name, dec, t.LogoURI, t.CoingeckoID, source, ms}, nil
		})); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO token_index SELECT DISTINCT ON (mint) * FROM token_import ORDER BY mint
			ON CONFLICT (mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, decimals = excluded.decimals,
			logo_uri = excluded.logo_uri, coingecko_id = excluded.coingecko_id, source = excluded.source, imported_at = excluded.imported_at`); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicTokens)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: replace token source %q: %w", source, err)
	}
	return len(tokens), nil
}

// EachToken implements tokenindex.Store.
func (s *Store) EachToken(ctx context.Context, fn func(tokenindex.Token) error) error {
	rows, err := s.pool.Query(ctx, `SELECT mint, symbol, name, decimals, logo_uri, coingecko_id FROM token_index ORDER BY mint`)
	if err != nil {
		return fmt.Errorf("postgres: tokens: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t tokenindex.Token
		var dec *int32
		if err := rows.Scan(&t.Mint, &t.Symbol, &t.Name, &dec, &t.LogoURI, &t.CoingeckoID); err != nil {
			return fmt.Errorf("postgres: tokens: %w", err)
		}
		if dec != nil {
			d := int(*dec)
			t.Decimals = &d
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TokenSources implements tokenindex.Store.
func (s *Store) TokenSources(ctx context.Context) ([]tokenindex.SourceCount, error) {
	rows, err := s.pool.Query(ctx, `SELECT source, count(*), max(imported_at) FROM token_index GROUP BY source ORDER BY source`)
	if err != nil {
		return nil, fmt.Errorf("postgres: token sources: %w", err)
	}
	defer rows.Close()
	var out []tokenindex.SourceCount
	for rows.Next() {
		var c tokenindex.SourceCount
		if err := rows.Scan(&c.Source, &c.Tokens, &c.ImportedAt); err != nil {
			return nil, fmt.Errorf("postgres: token sources: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
