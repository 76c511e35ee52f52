package storage

// MintFacts is the current on-chain read of one mint (internal/onchain):
// Status is ok or unknown_mint, Facts the JSON of its facts (empty for
// unknown_mint), Slot the slot of the read and ReadAt its time (unix ms).
type MintFacts struct {
	Mint   string
	Status string
	Slot   int64
	ReadAt int64
	Facts  []byte
}

// MintChange is one row of a mint's append-only change log: Field changed
// from Old to New (JSON values; "" for absent) at Slot (0 when the source
// has no slot) and At (unix ms), as Source saw it. Seq orders the log.
type MintChange struct {
	Seq    int64
	Mint   string
	Field  string
	Old    string
	New    string
	Slot   int64
	At     int64
	Source string
}

// ScanMintFacts reads mint, status, slot, read_at, facts rows.
func ScanMintFacts(rows RowIter) ([]MintFacts, error) {
	var out []MintFacts
	for rows.Next() {
		var r MintFacts
		if err := rows.Scan(&r.Mint, &r.Status, &r.Slot, &r.ReadAt, &r.Facts); err != nil {
			return nil, err
		}
		if r.Facts == nil {
			r.Facts = []byte{}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ScanMintChanges reads seq, mint, field, old, new, slot, at, source rows.
func ScanMintChanges(rows RowIter) ([]MintChange, error) {
	out := []MintChange{}
	for rows.Next() {
		var c MintChange
		if err := rows.Scan(&c.Seq, &c.Mint, &c.Field, &c.Old, &c.New, &c.Slot, &c.At, &c.Source); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
