package demo

import "strings"

// Rough, round reference levels that make the demo look plausible. They
// are NOT quotes, not sourced from any feed, and will drift away from the
// real markets; the simulated paths wander around them. They live in
// functions (not package variables) so the package holds no mutable state.

// cryptoLevel returns a rough USD level, a daily log volatility and a rough
// total DEX depth (USD liquidity across the asset's variants) for a crypto
// asset symbol.
func cryptoLevel(symbol string) (level, sigmaD, depth float64, ok bool) {
	switch strings.ToUpper(symbol) {
	case "SOL":
		return 150, 0.040, 400e6, true
	case "BTC":
		return 95_000, 0.028, 150e6, true
	case "ETH":
		return 3_200, 0.035, 40e6, true
	case "JUP":
		return 0.45, 0.050, 20e6, true
	case "BONK":
		return 0.000018, 0.060, 15e6, true
	case "JTO":
		return 1.8, 0.050, 8e6, true
	case "RAY":
		return 2.2, 0.050, 10e6, true
	case "WIF":
		return 0.7, 0.070, 12e6, true
	case "PYTH":
		return 0.12, 0.050, 4e6, true
	case "ORCA":
		return 1.9, 0.050, 5e6, true
	case "POPCAT":
		return 0.2, 0.070, 4e6, true
	case "RENDER":
		return 3.5, 0.050, 3e6, true
	case "HNT":
		return 2.8, 0.050, 3e6, true
	case "W":
		return 0.08, 0.060, 2e6, true
	case "KMNO":
		return 0.05, 0.060, 2e6, true
	case "DRIFT":
		return 0.5, 0.060, 2e6, true
	case "TNSR":
		return 0.15, 0.060, 1e6, true
	case "PENGU":
		return 0.015, 0.070, 10e6, true
	case "FARTCOIN":
		return 0.4, 0.080, 12e6, true
	case "MNDE":
		return 0.08, 0.060, 1e6, true
	case "LINK":
		return 14, 0.045, 1.5e6, true
	case "HYPE":
		return 35, 0.050, 1e6, true
	case "ZEC":
		return 300, 0.060, 1e6, true
	case "TRX":
		return 0.28, 0.030, 0.5e6, true
	case "BNB":
		return 850, 0.035, 1e6, true
	case "NEAR":
		return 2.5, 0.050, 0.5e6, true
	case "SUI":
		return 2.5, 0.050, 0.8e6, true
	case "AVAX":
		return 20, 0.050, 0.8e6, true
	case "XRP":
		return 2.2, 0.045, 2e6, true
	case "UNI":
		return 7, 0.050, 0.6e6, true
	case "AAVE":
		return 220, 0.050, 0.6e6, true
	case "ENA":
		return 0.35, 0.060, 0.6e6, true
	case "TAO":
		return 350, 0.055, 0.5e6, true
	case "MON":
		return 0.03, 0.080, 0.5e6, true
	}
	return 0, 0, 0, false
}

// fxLevel is a rough USD value of one unit of a currency (the symbol of a
// stablecoin asset group, e.g. "EUR").
func fxLevel(symbol string) (float64, bool) {
	switch strings.ToUpper(symbol) {
	case "USD":
		return 1, true
	case "EUR":
		return 1.08, true
	case "GBP":
		return 1.27, true
	case "CHF":
		return 1.13, true
	case "JPY":
		return 0.0067, true
	case "SGD":
		return 0.74, true
	case "BRL":
		return 0.18, true
	case "TRY":
		return 0.029, true
	case "MXN":
		return 0.055, true
	case "ZAR":
		return 0.054, true
	case "IDR":
		return 0.000062, true
	case "NGN":
		return 0.00065, true
	case "MYR":
		return 0.22, true
	case "CAD":
		return 0.73, true
	case "AUD":
		return 0.65, true
	case "HKD":
		return 0.128, true
	case "CNY", "CNH":
		return 0.138, true
	case "KRW":
		return 0.00072, true
	case "INR":
		return 0.012, true
	case "PHP":
		return 0.017, true
	case "THB":
		return 0.029, true
	}
	if strings.Contains(strings.ToUpper(symbol), "USD") {
		return 1, true
	}
	return 0, false
}

// commodityLevel is a rough USD level of a commodity asset symbol in its
// usual unit (troy ounce, pound, barrel) and a daily log volatility.
func commodityLevel(symbol string) (level, sigmaD float64, ok bool) {
	switch strings.ToUpper(symbol) {
	case "XAU", "GOLD":
		return 3_300, 0.012, true // per troy ounce
	case "XAG", "SILVER":
		return 38, 0.020, true // per troy ounce
	case "XPT", "PLATINUM":
		return 1_000, 0.018, true
	case "COPPER":
		return 4.8, 0.015, true // per pound
	case "OIL":
		return 70, 0.020, true // per barrel
	}
	return 0, 0, false
}

// etfLevel is a rough share price for a few broad index ETF tickers.
// Other tickers get a level derived from a hash of the ticker.
func etfLevel(ticker string) (float64, bool) {
	switch strings.ToUpper(ticker) {
	case "SPY", "IVV":
		return 600, true
	case "VOO":
		return 550, true
	case "QQQ":
		return 520, true
	case "TQQQ":
		return 80, true
	case "TLT":
		return 90, true
	case "IWM":
		return 220, true
	case "DIA":
		return 440, true
	}
	return 0, false
}

// Documented hash-derived ranges (USD) for levels with no reference figure.
const (
	EquityLevelMin   = 20.0  // tokenized public equities
	EquityLevelMax   = 500.0 //
	EquityBound      = 0.45  // equity paths stay within level·e^{±EquityBound}
	PreIPOLevelMin   = 25.0  // tokenized pre-IPO equities
	PreIPOLevelMax   = 900.0 //
	PreIPOBound      = 0.35  //
	ETFLevelMin      = 40.0  // ETFs without a reference figure
	ETFLevelMax      = 650.0 //
	LongTailLevelMin = 1e-6  // unknown mints and the long tail
	LongTailLevelMax = 0.05  //
)
