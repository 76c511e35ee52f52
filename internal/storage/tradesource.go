package storage

// SourceCursor is a chain trade source's durable position (table
// trade_source_cursor): stored in the same transaction as the trades of
// the blocks it covers, so a restart resumes exactly where the committed
// trades end (docs/tradesource.md).
type SourceCursor struct {
	// Source names the source ("solana-rpc").
	Source string
	// Through is contiguousThroughSlot: every slot <= Through is stored or
	// known skipped. Frontier is the highest slot processed; the slots in
	// (Through, Frontier] are processed except those in Gaps.
	Through, Frontier int64
	// Gaps are the slot ranges that could not be fetched yet, ascending.
	Gaps []SourceGap
	// Version counts the cursor's writes: a write names the version it
	// read and fails with ErrConflict if another writer stored since
	// (a replica that lost its lease; 0: nothing stored yet).
	Version int64
}

// SourceGap is a range of produced slots that could not be fetched yet.
type SourceGap struct {
	FromSlot  int64  `json:"fromSlot"`
	ToSlot    int64  `json:"toSlot"`
	Attempts  int    `json:"attempts"`
	LastError string `json:"lastError,omitempty"`
}
