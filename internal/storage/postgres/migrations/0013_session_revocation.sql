-- Local sessions can be revoked (dashboard sign-out, `assetd sessions
-- revoke`): a revoked session is refused by every replica, which reads
-- sessions from the store on each use.
ALTER TABLE sessions ADD COLUMN revoked_at BIGINT;
CREATE INDEX sessions_user ON sessions(user_id);
