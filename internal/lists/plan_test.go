package lists

import "testing"

func TestPlanPut(t *testing.T) {
	note, rank0, rank9, rank2 := "n", 0, 9, 2
	snap := &Snapshot{Verified: true}
	cases := []struct {
		name     string
		existing *Member
		count    int
		p        PutMemberParams
		want     Member
		code     string
	}{
		{"append", nil, 3, PutMemberParams{Mint: "m"}, Member{Mint: "m", Rank: 4, AddedAt: 7}, ""},
		{"insert clamps low", nil, 3, PutMemberParams{Mint: "m", Rank: &rank0}, Member{Mint: "m", Rank: 1, AddedAt: 7}, ""},
		{"insert clamps high", nil, 3, PutMemberParams{Mint: "m", Rank: &rank9, Note: &note, Snapshot: snap}, Member{Mint: "m", Rank: 4, AddedAt: 7, Note: "n", Snapshot: *snap}, ""},
		{"full", nil, 3, PutMemberParams{Mint: "m", MaxMembers: 3}, Member{}, CodeListFull},
		{"existing keeps rank and fields", &Member{Mint: "m", Rank: 3, Note: "old", AddedAt: 1}, 3, PutMemberParams{Mint: "m", MaxMembers: 3}, Member{Mint: "m", Rank: 3, Note: "old", AddedAt: 1}, ""},
		{"existing moves, clamped to count", &Member{Mint: "m", Rank: 1, AddedAt: 1}, 3, PutMemberParams{Mint: "m", Rank: &rank9, Note: &note}, Member{Mint: "m", Rank: 3, Note: "n", AddedAt: 1}, ""},
		{"existing moves", &Member{Mint: "m", Rank: 3, AddedAt: 1}, 3, PutMemberParams{Mint: "m", Rank: &rank2}, Member{Mint: "m", Rank: 2, AddedAt: 1}, ""},
	}
	for _, tc := range cases {
		got, err := PlanPut(tc.existing, tc.count, tc.p, 7)
		if Code(err) != tc.code || (tc.code == "" && got != tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v, %q", tc.name, got, err, tc.want, tc.code)
		}
	}
}
