package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
)

const upsertToken = `INSERT INTO token_index(mint, symbol, name, decimals, logo_uri, coingecko_id, source, imported_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT(mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, decimals = excluded.decimals,
	logo_uri = excluded.logo_uri, coingecko_id = excluded.coingecko_id, source = excluded.source, imported_at = excluded.imported_at`

// ReplaceTokenSource implements tokenindex.Store.
func (s *Store) ReplaceTokenSource(ctx context.Context, source string, tokens []tokenindex.Token, importedAt time.Time) (int, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM token_index WHERE source = ?`, source); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, upsertToken)
		if err != nil {
			return err
		}
		defer st.Close()
		ms := importedAt.UnixMilli()
		for _, t := range tokens {
			if _, err := st.ExecContext(ctx, t.Mint, t.Symbol, t.Name, nullInt(t.Decimals), t.LogoURI, t.CoingeckoID, source, ms); err != nil {
				return fmt.Errorf("token %s: %w", t.Mint, err)
			}
		}
		return s.bump(ctx, tx, storage.TopicTokens)
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: replace token source %q: %w", source, err)
	}
	return len(tokens), nil
}

// EachToken implements tokenindex.Store.
func (s *Store) EachToken(ctx context.Context, fn func(tokenindex.Token) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT mint, symbol, name, decimals, logo_uri, coingecko_id FROM token_index ORDER BY mint`)
	if err != nil {
		return fmt.Errorf("sqlite: tokens: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t tokenindex.Token
		var dec sql.NullInt64
		if err := rows.Scan(&t.Mint, &t.Symbol, &t.Name, &dec, &t.LogoURI, &t.CoingeckoID); err != nil {
			return fmt.Errorf("sqlite: tokens: %w", err)
		}
		if dec.Valid {
			d := int(dec.Int64)
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
	rows, err := s.r.QueryContext(ctx, `SELECT source, count(*), max(imported_at) FROM token_index GROUP BY source ORDER BY source`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: token sources: %w", err)
	}
	defer rows.Close()
	var out []tokenindex.SourceCount
	for rows.Next() {
		var c tokenindex.SourceCount
		if err := rows.Scan(&c.Source, &c.Tokens, &c.ImportedAt); err != nil {
			return nil, fmt.Errorf("sqlite: token sources: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func nullInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
