package ratelimit

import "time"

// monthKey numbers t's UTC month.
func monthKey(t time.Time) int {
	u := t.UTC()
	return u.Year()*12 + int(u.Month())
}

// RestoreQuota sets the requests key has used in now's UTC month, as
// counted by the stored usage, so a monthly quota survives a restart.
// Call it before serving.
func (m *Memory) RestoreQuota(key string, used int64, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quota[key] = &month{key: monthKey(now), used: used}
}
