package codec

import (
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
)

// SessionColumns are the persisted session columns, in ScanSession order.
const SessionColumns = `id, token_hash, user_id, email, created_at, expires_at, revoked_at`

// ScanSession reads one SessionColumns row.
func ScanSession(sc storage.Scanner) (session.Session, error) {
	var ss session.Session
	var created, expires int64
	var revoked *int64
	if err := sc.Scan(&ss.ID, &ss.TokenHash, &ss.UserID, &ss.Email, &created, &expires, &revoked); err != nil {
		return ss, err
	}
	ss.CreatedAt, ss.ExpiresAt = storage.FromMs(created), storage.FromMs(expires)
	if revoked != nil {
		ss.RevokedAt = storage.FromMs(*revoked)
	}
	return ss, nil
}

// ScanSessions reads every SessionColumns row (nil when there is none).
func ScanSessions(rows storage.RowIter) ([]session.Session, error) {
	var out []session.Session
	for rows.Next() {
		ss, err := ScanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
