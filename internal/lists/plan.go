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
