package yellowstone

// DEXPrograms are the program ids the subscription asks for
// (account_include): the DEX programs issue #28 requires the decoder to
// cover. Aggregators (Jupiter, OKX, Photon) are not listed: a route
// invokes the underlying DEX program, whose id is then among the
// transaction's accounts (static or loaded through a lookup table, both of
// which Yellowstone's filter matches).
//
// Sources: the ids of the recorded mainnet transactions in
// shared/data/solana-tx (README's program list; FluxBeam, SolFi, Invariant
// and Saros appear in the recorded account keys), and, for the three with
// no recorded transaction (PumpSwap, Meteora DAMM v2, OpenBook v2), the
// same ids as used by several public SDKs and parsers. When swapdecode
// exports its program table, the lead can replace this list with it.
var DEXPrograms = []string{
	"675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8", // Raydium AMM v4
	"CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C", // Raydium CPMM
	"CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK", // Raydium CLMM
	"whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc",  // Orca Whirlpool
	"LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo",  // Meteora DLMM
	"Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB", // Meteora DAMM v1 (Pools)
	"cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG",  // Meteora DAMM v2
	"6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P",  // Pump.fun bonding curve
	"pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA",  // PumpSwap
	"PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY",  // Phoenix
	"srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX",  // OpenBook v1
	"opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb",  // OpenBook v2
	"2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c", // Lifinity v2
	"FLUXubRmkEi2q6K3Y9kBPg9248ggaZVsoSFhtJHSrm1X", // FluxBeam
	"SoLFiHG9TfgtdUXUjWAxi3LtvYuFyDLVhBWxdMZxyCe",  // SolFi
	"HyaB3W9q6XdA5xwpU4XnSZV94htfmbmqJXZcEbRaJutt", // Invariant
	"SSwapUtytfBdBn1b9NUGG6foMVPtcWgpRU32HToDUZr",  // Saros AMM
}
