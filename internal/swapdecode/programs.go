package swapdecode

// Program ids. Every id below appears in the recorded mainnet
// transactions of ../shared/data/solana-tx or was checked against several
// independent public sources (SDKs, DEX registries); none is guessed.
const (
	TokenProgram     = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
	Token2022Program = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
	SystemProgram    = "11111111111111111111111111111111"
	ATAProgram       = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"

	// WrappedSOL is the mint a native-SOL side of a leg is reported as
	// (9 decimals), e.g. the Pump.fun bonding curve, which trades lamports.
	WrappedSOL = "So11111111111111111111111111111111111111112"

	JupiterV6  = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"
	JupiterDCA = "DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M"
	OKXRouter  = "6m2CDdhRgxpH4WjvdzxAYbGxwdGUz5MziiL5jek2kBma"
	Photon     = "BSfD6SHZigAfDWSjzD5Q41jw8LmKwtmjskPH9XW1mrRW"

	RaydiumAMMv4  = "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8"
	RaydiumCPMM   = "CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C"
	RaydiumCLMM   = "CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK"
	OrcaWhirlpool = "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc"
	MeteoraDLMM   = "LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo"
	MeteoraDAMMv1 = "Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB"
	MeteoraDAMMv2 = "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG"
	PumpFun       = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P"
	PumpSwap      = "pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA"
	Phoenix       = "PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY"
	OpenBookV1    = "srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX"
	OpenBookV2    = "opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb"
	LifinityV2    = "2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c"
	FluxBeam      = "FLUXubRmkEi2q6K3Y9kBPg9248ggaZVsoSFhtJHSrm1X"
	SolFi         = "SoLFiHG9TfgtdUXUjWAxi3LtvYuFyDLVhBWxdMZxyCe"
	Invariant     = "HyaB3W9q6XdA5xwpU4XnSZV94htfmbmqJXZcEbRaJutt"
	Saros         = "SSwapUtytfBdBn1b9NUGG6foMVPtcWgpRU32HToDUZr"
	Cropper       = "H8W3ctz92svYg6mkn1UtGfu2aQr2fnUFHM1RhScEtQDt"
)

// Venue describes one DEX program the decoder knows.
type Venue struct {
	Program string
	Name    string // stable name, e.g. raydium_amm_v4
	Label   string // human name
	// poolIdx is the instruction account that is the pool or market
	// (-1: none); for programs with several swap layouts poolFor decides.
	poolIdx int
	poolFor func(disc []byte) int
	// event: legs come from the program's self-CPI trade event (Pump.fun).
	event bool
}

// whirlpoolPool: swap has the whirlpool at account 2, swapV2 at 4
// (discriminators: sha256("global:swap")[:8], sha256("global:swap_v2")[:8]).
func whirlpoolPool(disc []byte) int {
	if len(disc) >= 8 && string(disc[:8]) == "\x2b\x04\xed\x0b\x1a\xc9\x1e\x62" {
		return 4
	}
	return 2
}

// venues lists the DEX programs the decoder turns into legs, in the order
// of the coverage table in docs/tradesource.md.
var venues = []Venue{
	{Program: RaydiumAMMv4, Name: "raydium_amm_v4", Label: "Raydium AMM v4", poolIdx: 1},
	{Program: RaydiumCPMM, Name: "raydium_cpmm", Label: "Raydium CPMM", poolIdx: 3},
	{Program: RaydiumCLMM, Name: "raydium_clmm", Label: "Raydium CLMM", poolIdx: 2},
	{Program: OrcaWhirlpool, Name: "orca_whirlpool", Label: "Orca Whirlpool", poolFor: whirlpoolPool},
	{Program: MeteoraDLMM, Name: "meteora_dlmm", Label: "Meteora DLMM", poolIdx: 0},
	{Program: MeteoraDAMMv1, Name: "meteora_damm_v1", Label: "Meteora DAMM v1 (Pools)", poolIdx: 0},
	{Program: MeteoraDAMMv2, Name: "meteora_damm_v2", Label: "Meteora DAMM v2", poolIdx: 1},
	{Program: PumpFun, Name: "pumpfun", Label: "Pump.fun bonding curve", poolIdx: 3, event: true},
	{Program: PumpSwap, Name: "pumpswap", Label: "PumpSwap", poolIdx: 0},
	{Program: Phoenix, Name: "phoenix", Label: "Phoenix", poolIdx: 2},
	{Program: OpenBookV1, Name: "openbook_v1", Label: "OpenBook v1 (Serum v3)", poolIdx: 0},
	{Program: OpenBookV2, Name: "openbook_v2", Label: "OpenBook v2", poolIdx: 2},
	{Program: LifinityV2, Name: "lifinity_v2", Label: "Lifinity v2", poolIdx: 1},
	{Program: FluxBeam, Name: "fluxbeam", Label: "FluxBeam", poolIdx: 0},
	{Program: SolFi, Name: "solfi", Label: "SolFi", poolIdx: 1},
	{Program: Invariant, Name: "invariant", Label: "Invariant", poolIdx: 1},
	{Program: Saros, Name: "saros", Label: "Saros AMM", poolIdx: 0},
	{Program: Cropper, Name: "cropper", Label: "Cropper (Whirlpool fork)", poolFor: whirlpoolPool},
}

// routers are programs that move tokens only around the legs they route
// (aggregators, DCA, bot routers) or are the token plumbing itself; their
// transfers outside a DEX invocation are not unparsed swaps.
var routers = map[string]bool{
	JupiterV6: true, JupiterDCA: true, OKXRouter: true, Photon: true,
	TokenProgram: true, Token2022Program: true, SystemProgram: true, ATAProgram: true,
}

// venueIndex maps a program id to its position in Venues.
var venueIndex = func() map[string]int {
	m := make(map[string]int, len(venues))
	for i, v := range venues {
		m[v.Program] = i
	}
	return m
}()

// VenueOf returns the stable venue name of a DEX program id ("" when the
// decoder does not know it).
func VenueOf(program string) string {
	if i, ok := venueIndex[program]; ok {
		return venues[i].Name
	}
	return ""
}

// Coverage returns the DEX programs the decoder turns into legs (a copy).
func Coverage() []Venue {
	return append([]Venue(nil), venues...)
}
