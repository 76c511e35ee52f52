// Package onchain reads what a Solana mint says about itself: the facts of
// its SPL Token or Token-2022 mint account (authorities, supply, decimals,
// every Token-2022 extension), its Metaplex metadata account and the share
// of its largest holders, each with the slot it was read at; it keeps a
// per-mint change log of those facts and turns them into pre-trade verdicts
// with evidence (docs/onchain.md).
package onchain

import "errors"

// Token program ids and the names jsonParsed gives them.
const (
	SPLTokenProgram   = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
	Token2022Program  = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
	ProgramSPLToken   = "spl-token"
	ProgramToken2022  = "spl-token-2022"
	MetaplexProgram   = "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s"
	classicMintLen    = 82
	accountTypeOffset = 165
)

// Errors of the parsers.
var (
	// ErrNotMint means the account exists but is not an initialized mint of
	// a token program.
	ErrNotMint = errors.New("onchain: not a token mint account")
	// ErrMalformed means the account data does not follow the layout.
	ErrMalformed = errors.New("onchain: malformed account data")
)

// Facts are what a mint account says, read at Slot. Authorities are nil
// when none is set (revoked or never set).
type Facts struct {
	Mint            string     `json:"mint"`
	Slot            uint64     `json:"slot"`
	Program         string     `json:"program"`
	Decimals        int        `json:"decimals"`
	Supply          string     `json:"supply"`
	MintAuthority   *string    `json:"mintAuthority"`
	FreezeAuthority *string    `json:"freezeAuthority"`
	Extensions      Extensions `json:"extensions"`
	// Metadata is the Metaplex metadata account, when read.
	Metadata *Metadata `json:"metadata,omitempty"`
	// Holders is the largest-accounts concentration, when read.
	Holders *Holders `json:"holders,omitempty"`
	// Synthetic marks facts the demo world made up (--demo): not a chain
	// read.
	Synthetic bool `json:"synthetic,omitempty"`
}

// Extensions are the Token-2022 mint extensions; a nil pointer is an
// extension the mint does not have.
type Extensions struct {
	TransferFeeConfig        *TransferFeeConfig        `json:"transferFeeConfig,omitempty"`
	PermanentDelegate        *PermanentDelegate        `json:"permanentDelegate,omitempty"`
	TransferHook             *TransferHook             `json:"transferHook,omitempty"`
	NonTransferable          bool                      `json:"nonTransferable,omitempty"`
	DefaultAccountState      string                    `json:"defaultAccountState,omitempty"`
	MintCloseAuthority       *MintCloseAuthority       `json:"mintCloseAuthority,omitempty"`
	InterestBearingConfig    *InterestBearingConfig    `json:"interestBearingConfig,omitempty"`
	PausableConfig           *PausableConfig           `json:"pausableConfig,omitempty"`
	MetadataPointer          *MetadataPointer          `json:"metadataPointer,omitempty"`
	TokenMetadata            *TokenMetadata            `json:"tokenMetadata,omitempty"`
	ConfidentialTransferMint *ConfidentialTransferMint `json:"confidentialTransferMint,omitempty"`
	ScaledUIAmountConfig     *ScaledUIAmountConfig     `json:"scaledUiAmountConfig,omitempty"`
	// Other names the extensions present that carry no fact of their own
	// here (confidentialTransferFeeConfig, groupPointer, tokenGroup, …), in
	// account order.
	Other []string `json:"other,omitempty"`
}

// TransferFee is one transfer-fee schedule, in force from Epoch.
type TransferFee struct {
	Epoch       uint64 `json:"epoch"`
	MaximumFee  uint64 `json:"maximumFee"`
	BasisPoints uint16 `json:"transferFeeBasisPoints"`
}

// TransferFeeConfig is the transferFeeConfig extension: Older is in force
// before Newer.Epoch, Newer from it on (the pending schedule until then).
type TransferFeeConfig struct {
	ConfigAuthority           *string     `json:"transferFeeConfigAuthority"`
	WithdrawWithheldAuthority *string     `json:"withdrawWithheldAuthority"`
	WithheldAmount            uint64      `json:"withheldAmount"`
	Older                     TransferFee `json:"olderTransferFee"`
	Newer                     TransferFee `json:"newerTransferFee"`
}

// MaxBasisPoints is the higher of the current and pending fee: without the
// cluster's epoch a reader cannot tell which is in force, so a verdict uses
// the higher one.
func (t *TransferFeeConfig) MaxBasisPoints() uint16 {
	return max(t.Older.BasisPoints, t.Newer.BasisPoints)
}

// PermanentDelegate is the permanentDelegate extension.
type PermanentDelegate struct {
	Delegate *string `json:"delegate"`
}

// TransferHook is the transferHook extension.
type TransferHook struct {
	Authority *string `json:"authority"`
	ProgramID *string `json:"programId"`
}

// MintCloseAuthority is the mintCloseAuthority extension.
type MintCloseAuthority struct {
	CloseAuthority *string `json:"closeAuthority"`
}

// InterestBearingConfig is the interestBearingConfig extension (rates in
// basis points).
type InterestBearingConfig struct {
	RateAuthority           *string `json:"rateAuthority"`
	InitializationTimestamp int64   `json:"initializationTimestamp"`
	PreUpdateAverageRate    int16   `json:"preUpdateAverageRate"`
	LastUpdateTimestamp     int64   `json:"lastUpdateTimestamp"`
	CurrentRate             int16   `json:"currentRate"`
}

// PausableConfig is the pausableConfig extension.
type PausableConfig struct {
	Authority *string `json:"authority"`
	Paused    bool    `json:"paused"`
}

// MetadataPointer is the metadataPointer extension.
type MetadataPointer struct {
	Authority       *string `json:"authority"`
	MetadataAddress *string `json:"metadataAddress"`
}

// TokenMetadata is the tokenMetadata extension (metadata in the mint).
type TokenMetadata struct {
	UpdateAuthority    *string     `json:"updateAuthority"`
	Mint               string      `json:"mint"`
	Name               string      `json:"name"`
	Symbol             string      `json:"symbol"`
	URI                string      `json:"uri"`
	AdditionalMetadata [][2]string `json:"additionalMetadata"`
}

// ConfidentialTransferMint is the confidentialTransferMint extension; the
// auditor key is base64 as jsonParsed prints it.
type ConfidentialTransferMint struct {
	Authority              *string `json:"authority"`
	AutoApproveNewAccounts bool    `json:"autoApproveNewAccounts"`
	AuditorElGamalPubkey   *string `json:"auditorElgamalPubkey"`
}

// ScaledUIAmountConfig is the scaledUiAmountConfig extension.
type ScaledUIAmountConfig struct {
	Authority                       *string `json:"authority"`
	Multiplier                      float64 `json:"multiplier"`
	NewMultiplierEffectiveTimestamp int64   `json:"newMultiplierEffectiveTimestamp"`
	NewMultiplier                   float64 `json:"newMultiplier"`
}

// Metadata is the part of a Metaplex metadata account a verdict uses.
type Metadata struct {
	Address         string `json:"address"`
	UpdateAuthority string `json:"updateAuthority"`
	Name            string `json:"name"`
	Symbol          string `json:"symbol"`
	IsMutable       bool   `json:"isMutable"`
	Slot            uint64 `json:"slot"`
}

// Holders is the share of supply held by the largest accounts.
type Holders struct {
	// Top10Share is the top-10 accounts' share of supply, 0..1.
	Top10Share float64 `json:"top10Share"`
	Slot       uint64  `json:"slot"`
}
