package market

// ChangeKind is what a Change names.
type ChangeKind uint8

const (
	// ChangeMint: a mint's snapshot, 30-day volume or trade analytics
	// (market, execution quality) changed; Key is the mint.
	ChangeMint ChangeKind = iota + 1
	// ChangeCoin: an external-provider coin changed; Key is the coin id.
	ChangeCoin
	// ChangeStock: a stock quote changed; Key is the ticker.
	ChangeStock
	// ChangePreIPO: a pre-IPO reference mark changed; Key is the symbol.
	ChangePreIPO
	// ChangeAll: changes were lost; everything may have changed.
	ChangeAll
)

// Change names one cached market input that was written.
type Change struct {
	Kind ChangeKind
	Key  string
}
