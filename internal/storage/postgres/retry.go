package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATEs of transactions PostgreSQL aborted to break a conflict with
// another transaction; running the whole transaction again is safe.
const (
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// maxTxAttempts bounds the runs of one retried transaction.
const maxTxAttempts = 4

// retryable reports whether err aborted the transaction only because of a
// concurrent one (serialization failure or deadlock).
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == codeSerializationFailure || pe.Code == codeDeadlockDetected)
}

// withRetryTx is withTx for transactions that may lose a conflict with a
// concurrent one: a serialization failure or deadlock runs fn again in a
// new transaction (up to maxTxAttempts runs, after a short jittered
// backoff), so the loser then sees the winner's committed rows and fails
// on the rule it broke (for example slug_conflict) instead of a 500. fn
// must not keep state across runs.
func (s *Store) withRetryTx(ctx context.Context, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.withTx(ctx, fn)
		if err == nil || !retryable(err) || attempt == maxTxAttempts {
			return err
		}
		wait := time.Duration(attempt)*5*time.Millisecond + rand.N(5*time.Millisecond)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}

// lockSlug serialises, until tx ends, every transaction that claims slug
// (create or rename onto it). Without it a create (list row, then slug
// row) and a rename (slug row, then list row) took the two unique index
// entries in opposite orders and could deadlock.
func lockSlug(ctx context.Context, tx pgx.Tx, slug string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('assetd.lists.slug.' || $1))`, slug)
	return err
}
