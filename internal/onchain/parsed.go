package onchain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrUnknownMint means the account does not exist (the RPC value is null).
var ErrUnknownMint = errors.New("onchain: unknown_mint: no such account")

// ParseAccountValue parses one account value of getAccountInfo or
// getMultipleAccounts in either encoding: jsonParsed (data is an object)
// or base64 (data is ["…", "base64"]). A null value is ErrUnknownMint.
func ParseAccountValue(mint string, value json.RawMessage, slot uint64) (Facts, error) {
	value = bytes.TrimSpace(value)
	if len(value) == 0 || string(value) == "null" {
		return Facts{}, ErrUnknownMint
	}
	var acc struct {
		Data  json.RawMessage `json:"data"`
		Owner string          `json:"owner"`
	}
	if err := json.Unmarshal(value, &acc); err != nil {
		return Facts{}, fmt.Errorf("%w: account: %v", ErrMalformed, err)
	}
	data := bytes.TrimSpace(acc.Data)
	if len(data) > 0 && data[0] == '[' {
		var pair []string
		if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
			return Facts{}, fmt.Errorf("%w: data is not [data, encoding]", ErrMalformed)
		}
		if pair[1] != "base64" {
			return Facts{}, fmt.Errorf("%w: encoding %q", ErrMalformed, pair[1])
		}
		return ParseBase64(mint, acc.Owner, pair[0], slot)
	}
	return parseJSONParsed(mint, acc.Owner, data, slot)
}

type jsonParsedData struct {
	Program string `json:"program"`
	Parsed  struct {
		Type string `json:"type"`
		Info struct {
			Decimals        *int                  `json:"decimals"`
			Supply          string                `json:"supply"`
			MintAuthority   *string               `json:"mintAuthority"`
			FreezeAuthority *string               `json:"freezeAuthority"`
			IsInitialized   bool                  `json:"isInitialized"`
			Extensions      []jsonParsedExtension `json:"extensions"`
		} `json:"info"`
	} `json:"parsed"`
}

type jsonParsedExtension struct {
	Extension string          `json:"extension"`
	State     json.RawMessage `json:"state"`
}

func parseJSONParsed(mint, owner string, data []byte, slot uint64) (Facts, error) {
	var d jsonParsedData
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return Facts{}, fmt.Errorf("%w: jsonParsed: %v", ErrMalformed, err)
	}
	if d.Parsed.Type != "mint" {
		return Facts{}, fmt.Errorf("%w: parsed type %q", ErrNotMint, d.Parsed.Type)
	}
	switch {
	case d.Program == ProgramSPLToken && (owner == "" || owner == SPLTokenProgram):
	case d.Program == ProgramToken2022 && (owner == "" || owner == Token2022Program):
	default:
		return Facts{}, fmt.Errorf("%w: program %q owner %q", ErrNotMint, d.Program, owner)
	}
	info := d.Parsed.Info
	if info.Decimals == nil || *info.Decimals < 0 || *info.Decimals > 255 {
		return Facts{}, fmt.Errorf("%w: decimals", ErrMalformed)
	}
	if _, err := strconv.ParseUint(info.Supply, 10, 64); err != nil {
		return Facts{}, fmt.Errorf("%w: supply %q", ErrMalformed, info.Supply)
	}
	f := Facts{Mint: mint, Slot: slot, Program: d.Program, Decimals: *info.Decimals, Supply: info.Supply,
		MintAuthority: nonEmpty(info.MintAuthority), FreezeAuthority: nonEmpty(info.FreezeAuthority)}
	for _, e := range info.Extensions {
		if err := parsedExtension(&f.Extensions, e); err != nil {
			return Facts{}, fmt.Errorf("extension %s: %w", e.Extension, err)
		}
	}
	return f, nil
}

// num is a JSON number or a numeric string (jsonParsed prints u64 amounts
// as numbers and some floats as strings).
type num string

func (n *num) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*n = num(s)
		return nil
	}
	*n = num(b)
	return nil
}

func (n num) u64() (uint64, error) { return strconv.ParseUint(string(n), 10, 64) }
func (n num) i64() (int64, error)  { return strconv.ParseInt(string(n), 10, 64) }
func (n num) f64() (float64, error) {
	v, err := strconv.ParseFloat(string(n), 64)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return 0, fmt.Errorf("non-finite %q", n)
	}
	return v, err
}

type parsedFee struct {
	Epoch       num    `json:"epoch"`
	MaximumFee  num    `json:"maximumFee"`
	BasisPoints uint16 `json:"transferFeeBasisPoints"`
}

func (p parsedFee) fee() (TransferFee, error) {
	e, err1 := p.Epoch.u64()
	m, err2 := p.MaximumFee.u64()
	return TransferFee{Epoch: e, MaximumFee: m, BasisPoints: p.BasisPoints}, errors.Join(err1, err2)
}

func parsedExtension(x *Extensions, e jsonParsedExtension) error {
	un := func(v any) error {
		if err := json.Unmarshal(e.State, v); err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		return nil
	}
	switch e.Extension {
	case "transferFeeConfig":
		var s struct {
			ConfigAuthority   *string   `json:"transferFeeConfigAuthority"`
			WithdrawAuthority *string   `json:"withdrawWithheldAuthority"`
			Withheld          num       `json:"withheldAmount"`
			Older             parsedFee `json:"olderTransferFee"`
			Newer             parsedFee `json:"newerTransferFee"`
		}
		if err := un(&s); err != nil {
			return err
		}
		w, err := s.Withheld.u64()
		older, err2 := s.Older.fee()
		newer, err3 := s.Newer.fee()
		if err := errors.Join(err, err2, err3); err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		x.TransferFeeConfig = &TransferFeeConfig{ConfigAuthority: nonEmpty(s.ConfigAuthority), WithdrawWithheldAuthority: nonEmpty(s.WithdrawAuthority), WithheldAmount: w, Older: older, Newer: newer}
	case "mintCloseAuthority":
		var s MintCloseAuthority
		if err := un(&s); err != nil {
			return err
		}
		s.CloseAuthority = nonEmpty(s.CloseAuthority)
		x.MintCloseAuthority = &s
	case "confidentialTransferMint":
		var s ConfidentialTransferMint
		if err := un(&s); err != nil {
			return err
		}
		s.Authority, s.AuditorElGamalPubkey = nonEmpty(s.Authority), nonEmpty(s.AuditorElGamalPubkey)
		x.ConfidentialTransferMint = &s
	case "defaultAccountState":
		var s struct {
			AccountState string `json:"accountState"`
		}
		if err := un(&s); err != nil {
			return err
		}
		switch s.AccountState {
		case "uninitialized", "initialized", "frozen":
			x.DefaultAccountState = s.AccountState
		default:
			return fmt.Errorf("%w: account state %q", ErrMalformed, s.AccountState)
		}
	case "nonTransferable":
		x.NonTransferable = true
	case "interestBearingConfig":
		var s struct {
			RateAuthority *string `json:"rateAuthority"`
			Init          num     `json:"initializationTimestamp"`
			PreUpdate     int16   `json:"preUpdateAverageRate"`
			LastUpdate    num     `json:"lastUpdateTimestamp"`
			CurrentRate   int16   `json:"currentRate"`
		}
		if err := un(&s); err != nil {
			return err
		}
		i, err1 := s.Init.i64()
		l, err2 := s.LastUpdate.i64()
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		x.InterestBearingConfig = &InterestBearingConfig{RateAuthority: nonEmpty(s.RateAuthority), InitializationTimestamp: i, PreUpdateAverageRate: s.PreUpdate, LastUpdateTimestamp: l, CurrentRate: s.CurrentRate}
	case "permanentDelegate":
		var s PermanentDelegate
		if err := un(&s); err != nil {
			return err
		}
		s.Delegate = nonEmpty(s.Delegate)
		x.PermanentDelegate = &s
	case "transferHook":
		var s TransferHook
		if err := un(&s); err != nil {
			return err
		}
		s.Authority, s.ProgramID = nonEmpty(s.Authority), nonEmpty(s.ProgramID)
		x.TransferHook = &s
	case "metadataPointer":
		var s MetadataPointer
		if err := un(&s); err != nil {
			return err
		}
		s.Authority, s.MetadataAddress = nonEmpty(s.Authority), nonEmpty(s.MetadataAddress)
		x.MetadataPointer = &s
	case "tokenMetadata":
		var s TokenMetadata
		if err := un(&s); err != nil {
			return err
		}
		s.UpdateAuthority = nonEmpty(s.UpdateAuthority)
		if s.AdditionalMetadata == nil {
			s.AdditionalMetadata = [][2]string{}
		}
		x.TokenMetadata = &s
	case "scaledUiAmountConfig":
		var s struct {
			Authority     *string `json:"authority"`
			Multiplier    num     `json:"multiplier"`
			EffectiveAt   num     `json:"newMultiplierEffectiveTimestamp"`
			NewMultiplier num     `json:"newMultiplier"`
		}
		if err := un(&s); err != nil {
			return err
		}
		m, err1 := s.Multiplier.f64()
		t, err2 := s.EffectiveAt.i64()
		nm, err3 := s.NewMultiplier.f64()
		if err := errors.Join(err1, err2, err3); err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		x.ScaledUIAmountConfig = &ScaledUIAmountConfig{Authority: nonEmpty(s.Authority), Multiplier: m, NewMultiplierEffectiveTimestamp: t, NewMultiplier: nm}
	case "pausableConfig":
		var s PausableConfig
		if err := un(&s); err != nil {
			return err
		}
		s.Authority = nonEmpty(s.Authority)
		x.PausableConfig = &s
	default:
		x.Other = append(x.Other, e.Extension)
	}
	return nil
}

func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}
