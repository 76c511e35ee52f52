// Package swapdecode turns confirmed Solana transactions, as JSON-RPC's
// getTransaction and getBlock return them, into swap legs: one per DEX
// program invocation that swaps, from the token transfers into and out of
// the pool's vaults inside that invocation. It does no I/O.
package swapdecode

// Leg is one swap: tokens in to a pool, tokens out of it, inside one DEX
// program invocation (top-level or inner).
type Leg struct {
	// Index is the leg's 0-based order in its transaction.
	Index int
	// Program is the DEX program id; Venue its stable name
	// (raydium_amm_v4, orca_whirlpool, ...).
	Program string
	Venue   string
	// Pool is the pool or market account.
	Pool string
	// InMint/InAmount: what the trader paid into the pool (raw units);
	// OutMint/OutAmount: what the pool paid out.
	InMint      string
	InAmount    uint64
	InDecimals  int
	OutMint     string
	OutAmount   uint64
	OutDecimals int
}

// Tx is one decoded transaction.
type Tx struct {
	Signature string
	Slot      int64
	BlockTime int64
	FeePayer  string
	// Failed is set for a transaction with meta.err; it has no legs.
	Failed bool
	Legs   []Leg
	// Unparsed lists the program ids that moved tokens in this
	// transaction but are not known DEX programs (not guessed).
	Unparsed []string
}
