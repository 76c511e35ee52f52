package onchain

import (
	"fmt"
	"time"
)

// Verdict statuses.
const (
	StatusOK          = "ok"
	StatusUnknownMint = "unknown_mint"
	StatusNotReadYet  = "not_read_yet"
)

// Severities, lowest first.
const (
	SeverityNone     = "none"
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Warning codes (docs/onchain.md explains each and its severity rule).
const (
	CodeMintAuthority      = "has_mint_authority"
	CodeFreezeAuthority    = "has_freeze_authority"
	CodePermanentDelegate  = "has_permanent_delegate"
	CodeTransferFee        = "transfer_fee"
	CodeTransferHook       = "transfer_hook"
	CodeNonTransferable    = "non_transferable"
	CodeDefaultFrozen      = "default_frozen"
	CodePausable           = "pausable"
	CodeMutableMetadata    = "mutable_metadata"
	CodeHolderConcentrated = "high_holder_concentration"
	CodeLowLiquidity       = "low_liquidity"
	CodeNewToken           = "new_token"
	CodeNotVerified        = "not_verified"
	CodeImpersonation      = "possible_impersonation"
	CodeAdvisoryCaution    = "advisory_caution"
	CodeAdvisoryCompromise = "advisory_compromised"
	CodeAdvisoryBlocked    = "advisory_blocked"
	CodeUnknownMint        = "unknown_mint"
)

// Bounds of the rules (docs/onchain.md).
const (
	// DoNotTradeFeeBps: a transfer fee (current or pending) above this is
	// doNotTrade: 10% of every transfer.
	DoNotTradeFeeBps = 1000
	// ConcentrationShare: the top-10 accounts holding more than this share
	// of supply is high_holder_concentration.
	ConcentrationShare = 0.5
	// LowLiquidityUSD: pooled liquidity under this is low_liquidity.
	LowLiquidityUSD = 10_000
	// NewTokenAge: a mint first seen less than this ago is new_token.
	NewTokenAge = 7 * 24 * time.Hour
)

func rank(s string) int {
	switch s {
	case SeverityInfo:
		return 1
	case SeverityWarning:
		return 2
	case SeverityCritical:
		return 3
	}
	return 0
}

// Evidence is why a warning was raised: a fact with its value and the slot
// it was read at, an advisory, or a market figure.
type Evidence struct {
	Fact     string         `json:"fact,omitempty"`
	Value    any            `json:"value,omitempty"`
	Slot     *uint64        `json:"slot,omitempty"`
	Advisory *AdvisoryRef   `json:"advisory,omitempty"`
	Market   *MarketFigure  `json:"market,omitempty"`
	Issuer   string         `json:"issuer,omitempty"`
	Collides *Impersonation `json:"impersonation,omitempty"`
}

// AdvisoryRef is the operator advisory a warning rests on.
type AdvisoryRef struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
	Since  int64  `json:"since"`
}

// MarketFigure is a market figure a warning rests on.
type MarketFigure struct {
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
}

// Impersonation is search-tokens' judgment of a mint that claims another
// asset's symbol or name.
type Impersonation struct {
	Verdict      string `json:"verdict"`
	CollidesWith string `json:"collidesWith,omitempty"`
}

// Warning is one finding about a mint.
type Warning struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
	Evidence Evidence `json:"evidence"`
}

// Verdict is the pre-trade answer for one mint.
type Verdict struct {
	Mint          string         `json:"mint"`
	Status        string         `json:"status"`
	DoNotTrade    bool           `json:"doNotTrade"`
	Severity      string         `json:"severity"`
	Warnings      []Warning      `json:"warnings"`
	Advisory      *AdvisoryRef   `json:"advisory"`
	Impersonation *Impersonation `json:"impersonation"`
	Facts         *Facts         `json:"facts"`
}

// Context is what a verdict knows of a mint beside its chain facts; every
// field is optional.
type Context struct {
	// Listed: the registry lists the mint (otherwise not_verified).
	Listed bool
	// Stablecoin and Issuer: a registry stablecoin's issuer; its
	// authorities are the issuer's controls, reported as info.
	Stablecoin bool
	Issuer     string
	Advisory   *AdvisoryRef
	// Impersonation is set when the mint claims a protected symbol or name.
	Impersonation *Impersonation
	LiquidityUSD  *float64
	// FirstSeen is when the mint was first seen trading (unix ms), 0 when
	// unknown.
	FirstSeen int64
}

// Judge turns the facts of a mint (nil with status unknown_mint or
// not_read_yet) and its context into a verdict at now.
func Judge(mint, status string, f *Facts, c Context, now time.Time) Verdict {
	v := Verdict{Mint: mint, Status: status, Facts: f, Advisory: c.Advisory, Impersonation: c.Impersonation, Warnings: []Warning{}}
	add := func(code, sev, msg string, ev Evidence) {
		v.Warnings = append(v.Warnings, Warning{Code: code, Severity: sev, Message: msg, Evidence: ev})
	}
	if a := c.Advisory; a != nil {
		ev := Evidence{Advisory: a}
		switch a.Status {
		case "caution":
			add(CodeAdvisoryCaution, SeverityWarning, "An operator advisory asks for caution: "+a.Reason, ev)
		case "compromised":
			add(CodeAdvisoryCompromise, SeverityCritical, "An operator advisory marks the mint compromised: "+a.Reason, ev)
			v.DoNotTrade = true
		case "blocked":
			add(CodeAdvisoryBlocked, SeverityCritical, "An operator advisory blocks the mint: "+a.Reason, ev)
			v.DoNotTrade = true
		}
	}
	if c.Impersonation != nil {
		add(CodeImpersonation, SeverityCritical, "The mint claims the symbol or name of "+c.Impersonation.CollidesWith, Evidence{Collides: c.Impersonation})
	}
	if status == StatusUnknownMint {
		add(CodeUnknownMint, SeverityCritical, "No account exists at this address", Evidence{})
		v.DoNotTrade = true
	}
	if !c.Listed {
		add(CodeNotVerified, SeverityWarning, "The registry does not list this mint", Evidence{})
	}
	if l := c.LiquidityUSD; l != nil && *l < LowLiquidityUSD {
		add(CodeLowLiquidity, SeverityWarning, fmt.Sprintf("Pooled liquidity is under $%d", LowLiquidityUSD), Evidence{Market: &MarketFigure{Figure: "liquidityUsd", Value: *l}})
	}
	if c.FirstSeen > 0 && now.Sub(time.UnixMilli(c.FirstSeen)) < NewTokenAge {
		add(CodeNewToken, SeverityWarning, "First seen trading less than 7 days ago", Evidence{Market: &MarketFigure{Figure: "firstSeen", Value: float64(c.FirstSeen)}})
	}
	if f != nil {
		judgeFacts(f, c, add, &v)
	}
	v.Severity = SeverityNone
	for _, w := range v.Warnings {
		if rank(w.Severity) > rank(v.Severity) {
			v.Severity = w.Severity
		}
	}
	return v
}

func judgeFacts(f *Facts, c Context, add func(code, sev, msg string, ev Evidence), v *Verdict) {
	slot := f.Slot
	fact := func(name string, value any) Evidence { return Evidence{Fact: name, Value: value, Slot: &slot} }
	issuer := func(ev Evidence) Evidence { ev.Issuer = c.Issuer; return ev }
	// issuerHeld: a registry stablecoin's issuer controls are info.
	issuerHeld := c.Stablecoin && c.Issuer != ""
	controlled := func(code, what string, ev Evidence, otherwise string) {
		if issuerHeld {
			add(code, SeverityInfo, fmt.Sprintf("The issuer %s holds the %s, as a regulated stablecoin does", c.Issuer, what), issuer(ev))
			return
		}
		add(code, otherwise, "Someone holds the "+what, ev)
	}
	if f.MintAuthority != nil {
		controlled(CodeMintAuthority, "mint authority: more can be minted", fact("mintAuthority", *f.MintAuthority), SeverityWarning)
	}
	if f.FreezeAuthority != nil {
		controlled(CodeFreezeAuthority, "freeze authority: a holder's account can be frozen", fact("freezeAuthority", *f.FreezeAuthority), SeverityWarning)
	}
	x := f.Extensions
	if p := x.PermanentDelegate; p != nil && p.Delegate != nil {
		controlled(CodePermanentDelegate, "permanent delegate: it can move or burn tokens from any account", fact("extensions.permanentDelegate.delegate", *p.Delegate), SeverityCritical)
	}
	if t := x.TransferFeeConfig; t != nil {
		bps := t.MaxBasisPoints()
		ev := fact("extensions.transferFeeConfig", map[string]any{"olderBps": t.Older.BasisPoints, "newerBps": t.Newer.BasisPoints, "newerEpoch": t.Newer.Epoch, "maximumFee": t.Newer.MaximumFee, "configAuthority": t.ConfigAuthority})
		switch {
		case bps > DoNotTradeFeeBps:
			add(CodeTransferFee, SeverityCritical, fmt.Sprintf("Every transfer pays a fee of %d bps (over the %d bps bound)", bps, DoNotTradeFeeBps), ev)
			v.DoNotTrade = true
		case bps > 0:
			add(CodeTransferFee, SeverityWarning, fmt.Sprintf("Every transfer pays a fee of %d bps", bps), ev)
		case t.ConfigAuthority != nil:
			controlled(CodeTransferFee, "transfer-fee authority: the fee is 0 bps but can be raised", ev, SeverityInfo)
		}
	}
	if h := x.TransferHook; h != nil {
		switch {
		case h.ProgramID != nil:
			add(CodeTransferHook, SeverityWarning, "Every transfer calls a hook program that can refuse it", fact("extensions.transferHook.programId", *h.ProgramID))
		case h.Authority != nil:
			controlled(CodeTransferHook, "transfer-hook authority: no hook is set but one can be", fact("extensions.transferHook.authority", *h.Authority), SeverityInfo)
		}
	}
	if x.NonTransferable {
		add(CodeNonTransferable, SeverityCritical, "The token cannot be transferred", fact("extensions.nonTransferable", true))
		v.DoNotTrade = true
	}
	if x.DefaultAccountState == "frozen" {
		add(CodeDefaultFrozen, SeverityCritical, "New token accounts start frozen until the freeze authority thaws them", fact("extensions.defaultAccountState", "frozen"))
		v.DoNotTrade = true
	}
	if p := x.PausableConfig; p != nil {
		if p.Paused {
			add(CodePausable, SeverityCritical, "The mint is paused: no transfers", fact("extensions.pausableConfig.paused", true))
			v.DoNotTrade = true
		} else {
			controlled(CodePausable, "pause authority: transfers can be paused", fact("extensions.pausableConfig.paused", false), SeverityWarning)
		}
	}
	switch {
	case f.Metadata != nil && f.Metadata.IsMutable:
		ms := f.Metadata.Slot
		controlled(CodeMutableMetadata, "metadata update authority: name, symbol and logo can change", Evidence{Fact: "metadata.isMutable", Value: map[string]any{"isMutable": true, "updateAuthority": f.Metadata.UpdateAuthority}, Slot: &ms}, SeverityInfo)
	case x.TokenMetadata != nil && x.TokenMetadata.UpdateAuthority != nil:
		controlled(CodeMutableMetadata, "token-metadata update authority: name, symbol and logo can change", fact("extensions.tokenMetadata.updateAuthority", *x.TokenMetadata.UpdateAuthority), SeverityInfo)
	}
	if h := f.Holders; h != nil && h.Top10Share > ConcentrationShare {
		hs := h.Slot
		add(CodeHolderConcentrated, SeverityWarning, fmt.Sprintf("The 10 largest accounts hold %.0f%% of supply", h.Top10Share*100), Evidence{Fact: "holders.top10Share", Value: h.Top10Share, Slot: &hs})
	}
}
