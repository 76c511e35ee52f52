package lists

// PlanAdd decides a bulk add for the engines, inside their transaction:
// members goes in order; a mint in present, or repeated in members, is
// Present; a new mint is appended after count members while the list holds
// fewer than maxMembers (<= 0: no cap), and fails with list_full after.
// Added members get ranks count+1, count+2, ... and AddedAt now (unix ms).
func PlanAdd(members []NewMember, present map[string]bool, count, maxMembers int, now int64) (added []Member, already []string, failed []Failure) {
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		if present[m.Mint] || seen[m.Mint] {
			already = append(already, m.Mint)
			continue
		}
		seen[m.Mint] = true
		if maxMembers > 0 && count+len(added) >= maxMembers {
			failed = append(failed, Failure{Mint: m.Mint, Code: CodeListFull})
			continue
		}
		added = append(added, Member{Mint: m.Mint, Rank: count + len(added) + 1, AddedAt: now, Snapshot: m.Snapshot})
	}
	return added, already, failed
}

// PlanPut computes the member a put leaves behind, for both engines.
// existing is the stored member (nil when the mint is new) and count the
// list's member count. A new member appends, or takes p.Rank clamped to
// 1..count+1, and fails with list_full at the cap; an existing member keeps
// its rank unless p.Rank moves it (clamped to 1..count). Note and snapshot
// are replaced only when given. AddedAt of a new member is now (unix ms).
func PlanPut(existing *Member, count int, p PutMemberParams, now int64) (Member, error) {
	var m Member
	if existing == nil {
		if p.MaxMembers > 0 && count >= p.MaxMembers {
			return Member{}, ListFull(p.MaxMembers)
		}
		m = Member{Mint: p.Mint, Rank: count + 1, AddedAt: now}
		if p.Rank != nil {
			m.Rank = max(1, min(*p.Rank, count+1))
		}
	} else {
		m = *existing
		if p.Rank != nil {
			m.Rank = max(1, min(*p.Rank, count))
		}
	}
	if p.Note != nil {
		m.Note = *p.Note
	}
	if p.Snapshot != nil {
		m.Snapshot = *p.Snapshot
	}
	return m, nil
}
