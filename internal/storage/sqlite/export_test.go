package sqlite

import "context"

// LimitPages caps the database at its current size plus extra pages on
// the writer connection (PRAGMA max_page_count), so the next writes fail
// with SQLITE_FULL as on a full disk; a negative extra lifts the cap.
func (s *Store) LimitPages(ctx context.Context, extra int) error {
	if extra < 0 {
		_, err := s.w.ExecContext(ctx, `PRAGMA max_page_count = 1073741823`)
		return err
	}
	var n int
	if err := s.w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&n); err != nil {
		return err
	}
	_, err := s.w.ExecContext(ctx, `PRAGMA max_page_count = `+itoa(n+extra))
	return err
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}
