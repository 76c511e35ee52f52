// Package swapdecode turns confirmed Solana transactions, as JSON-RPC's
// getTransaction and getBlock return them, into swap legs: one per DEX
// program invocation that swaps, from the token transfers into and out of
// the pool's vaults inside that invocation. It does no I/O.
package swapdecode

import (
	"errors"

	"github.com/assetd/assetd/internal/analytics"
)

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

// ErrNotImplemented is returned by the skeleton until the decoder lands.
var ErrNotImplemented = errors.New("swapdecode: not implemented")

// DecodeTransaction decodes one getTransaction result (the bare result
// object: slot, blockTime, transaction, meta), encodings json and
// jsonParsed, legacy and v0.
func DecodeTransaction(raw []byte) (Tx, error) {
	return Tx{}, ErrNotImplemented
}

// DecodeBlock decodes one getBlock result (transactionDetails full) at
// slot; failed transactions come back with Failed set and no legs.
func DecodeBlock(raw []byte, slot int64) ([]Tx, error) {
	return nil, ErrNotImplemented
}

// Trades turns tx's legs with exactly one side in stable into trade
// events in the ingest format (mint the other side, side buy when the
// token is the leg's output, UI amounts, price usd/token, wallet the fee
// payer, leg, pool, program, venue, slot, blockTime).
func Trades(tx Tx, stable map[string]bool) []analytics.Trade {
	return nil
}
