package stockfile

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

// mag7 is the shared daily candle file of seven US equities
// (2013-01-02 .. 2023-12-29, split-adjusted prices, share volume).
const mag7 = "ohlcv-equities-mag7-1d-2013-2023.csv"

func loadMag7(t testing.TB) *Source {
	t.Helper()
	s, err := Load(bytes.NewReader(providertest.SharedData(t, mag7)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func unix(date string) int64 {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		panic(err)
	}
	return d.Unix()
}

func f(v float64) *float64 { return &v }

func TestMag7Tickers(t *testing.T) {
	s := loadMag7(t)
	want := []string{"AAPL", "AMZN", "GOOGL", "META", "MSFT", "NVDA", "TSLA"}
	if diff := cmp.Diff(want, s.Tickers()); diff != "" {
		t.Errorf("Tickers (-want +got):\n%s", diff)
	}
	if s.Source() != asset.SourceAnalyticsStock || s.Source() != "analytics_stock" {
		t.Errorf("Source %q", s.Source())
	}
	// Every ticker has 2768 sessions from 2013-01-02 to 2023-12-29.
	for _, tk := range want {
		cs, err := s.StockCandles(context.Background(), tk, "1D", 0, unix("2100-01-01"))
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 2768 || cs[0].Time != unix("2013-01-02") || cs[len(cs)-1].Time != unix("2023-12-29") {
			t.Errorf("%s: %d candles [%d..%d], want 2768 [2013-01-02..2023-12-29]", tk, len(cs), cs[0].Time, cs[len(cs)-1].Time)
		}
	}
}

func TestMag7Quote(t *testing.T) {
	s := loadMag7(t)
	// Last two rows of each ticker in the file:
	//   TSLA,2023-12-28,...,close 253.17999267578125,volume 113619900
	//   TSLA,2023-12-29,...,close 248.47999572753906,volume 100615300
	//   AAPL,2023-12-28,...,close 193.5800018310547,volume 34049900
	//   AAPL,2023-12-29,...,close 192.52999877929688,volume 42628800
	asOf := time.Date(2023, 12, 29, 20, 0, 0, 0, time.UTC)
	tsla := market.StockQuote{
		Ticker:                "TSLA",
		PriceUSD:              f(248.47999572753906),
		PreviousCloseUSD:      f(253.17999267578125),
		Volume24hUSD:          f(100615300 * 248.47999572753906),
		PriceChange24hPercent: f(-1.8563856087399966),
		AsOf:                  asOf,
	}
	aapl := market.StockQuote{
		Ticker:                "AAPL",
		PriceUSD:              f(192.52999877929688),
		PreviousCloseUSD:      f(193.5800018310547),
		Volume24hUSD:          f(42628800 * 192.52999877929688),
		PriceChange24hPercent: f(-0.5424129774904141),
		AsOf:                  asOf,
	}
	tests := []struct {
		ticker string
		want   market.StockQuote
	}{
		{"TSLA", tsla},
		{"tsla", tsla},
		{" Tsla ", tsla},
		{"AAPL", aapl},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) })
	for _, tt := range tests {
		t.Run(tt.ticker, func(t *testing.T) {
			got, err := s.Quote(context.Background(), tt.ticker)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Quote (-want +got):\n%s", diff)
			}
			if got.MarketCapUSD != nil {
				t.Errorf("MarketCapUSD = %v, want nil (no share count)", *got.MarketCapUSD)
			}
		})
	}
}

func TestMag7DailyCandles(t *testing.T) {
	s := loadMag7(t)
	tests := []struct {
		name     string
		ticker   string
		from, to int64
		want     []market.Candle
	}{
		{
			// TSLA,2020-08-28,153.00799560546875,154.5659942626953,145.76800537109375,147.55999755859375,301218000
			// TSLA,2020-08-31,148.20333862304688,166.7133331298828,146.70333862304688,166.10667419433594,355123200
			name: "TSLA around the 2020 split", ticker: "TSLA", from: unix("2020-08-28"), to: unix("2020-09-01"),
			want: []market.Candle{
				{Time: unix("2020-08-28"), Open: 153.00799560546875, High: 154.5659942626953, Low: 145.76800537109375, Close: 147.55999755859375, Volume: 301218000 * 147.55999755859375},
				{Time: unix("2020-08-31"), Open: 148.20333862304688, High: 166.7133331298828, Low: 146.70333862304688, Close: 166.10667419433594, Volume: 355123200 * 166.10667419433594},
			},
		},
		{
			// AAPL,2013-01-02,19.779285430908203,19.821428298950195,19.343929290771484,19.608213424682617,560518000
			name: "AAPL first session, to exclusive", ticker: "aapl", from: 0, to: unix("2013-01-03"),
			want: []market.Candle{
				{Time: unix("2013-01-02"), Open: 19.779285430908203, High: 19.821428298950195, Low: 19.343929290771484, Close: 19.608213424682617, Volume: 560518000 * 19.608213424682617},
			},
		},
		{
			name: "from inside a day skips it", ticker: "TSLA", from: unix("2020-08-28") + 1, to: unix("2020-08-31") + 1,
			want: []market.Candle{
				{Time: unix("2020-08-31"), Open: 148.20333862304688, High: 166.7133331298828, Low: 146.70333862304688, Close: 166.10667419433594, Volume: 355123200 * 166.10667419433594},
			},
		},
		{name: "weekend only", ticker: "TSLA", from: unix("2020-08-29"), to: unix("2020-08-31"), want: []market.Candle{}},
		{name: "after the data", ticker: "TSLA", from: unix("2024-01-01"), to: unix("2025-01-01"), want: []market.Candle{}},
		{name: "empty window", ticker: "TSLA", from: unix("2020-08-31"), to: unix("2020-08-31"), want: []market.Candle{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.StockCandles(context.Background(), tt.ticker, "1D", tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("1D candles (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMag7WeeklyCandles(t *testing.T) {
	s := loadMag7(t)
	// AAPL, Monday 2020-08-24 .. Friday 2020-08-28 (five sessions):
	//   08-24 o 128.69749450683594 h 128.78500366210938 l 123.9375            c 125.85749816894531 v 345937600
	//   08-25 o 124.69750213623047 h 125.18000030517578 l 123.05249786376953 c 124.82499694824219 v 211495600
	//   08-26 o 126.18000030517578 h 126.99250030517578 l 125.0824966430664  c 126.52249908447266 v 163022400
	//   08-27 o 127.14250183105469 h 127.48500061035156 l 123.8324966430664  c 125.01000213623047 v 155552400
	//   08-28 o 126.01249694824219 h 126.44249725341797 l 124.57749938964844 c 124.80750274658203 v 187630000
	aaplWeek := market.Candle{
		Time:  unix("2020-08-24"),
		Open:  128.69749450683594, // Monday's open
		High:  128.78500366210938, // Monday's high
		Low:   123.05249786376953, // Tuesday's low
		Close: 124.80750274658203, // Friday's close
		Volume: 345937600*125.85749816894531 + 211495600*124.82499694824219 + 163022400*126.52249908447266 +
			155552400*125.01000213623047 + 187630000*124.80750274658203,
	}
	// TSLA, week of Monday 2023-12-25 (Christmas, no session): Tuesday
	// 12-26 opens it, Friday 12-29 closes it.
	//   12-26 o 254.49000549316406 h 257.9700012207031 l 252.91000366210938 c 256.6099853515625 v 86892400
	//   12-27 o 258.3500061035156  h 263.3399963378906 l 257.5199890136719  c 261.44000244140625 v 106494400
	//   12-28 o 263.6600036621094  h 265.1300048828125 l 252.7100067138672  c 253.17999267578125 v 113619900
	//   12-29 o 255.10000610351562 h 255.19000244140625 l 247.42999267578125 c 248.47999572753906 v 100615300
	tslaWeek := market.Candle{
		Time:  unix("2023-12-25"),
		Open:  254.49000549316406,
		High:  265.1300048828125,
		Low:   247.42999267578125,
		Close: 248.47999572753906,
		Volume: 86892400*256.6099853515625 + 106494400*261.44000244140625 + 113619900*253.17999267578125 +
			100615300*248.47999572753906,
	}
	tests := []struct {
		name     string
		ticker   string
		from, to int64
		want     []market.Candle
	}{
		{"AAPL full week", "AAPL", unix("2020-08-24"), unix("2020-08-31"), []market.Candle{aaplWeek}},
		{"AAPL window inside the week", "AAPL", unix("2020-08-24"), unix("2020-08-24") + 1, []market.Candle{aaplWeek}},
		{"from after Monday skips the week", "AAPL", unix("2020-08-25"), unix("2020-08-31"), []market.Candle{}},
		{"TSLA holiday Monday, last week of data", "TSLA", unix("2023-12-25"), unix("2024-06-01"), []market.Candle{tslaWeek}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.StockCandles(context.Background(), tt.ticker, "1W", tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("1W candles (-want +got):\n%s", diff)
			}
		})
	}

	// Over the whole file: 574 weeks (Monday 2012-12-31, the week of the
	// first session 2013-01-02, to Monday 2023-12-25), every one opening
	// on a Monday, ascending, and the weekly volumes add up to the daily
	// ones.
	all := unix("2100-01-01")
	weeks, err := s.StockCandles(context.Background(), "NVDA", "1W", 0, all)
	if err != nil {
		t.Fatal(err)
	}
	days, err := s.StockCandles(context.Background(), "NVDA", "1D", 0, all)
	if err != nil {
		t.Fatal(err)
	}
	var wv, dv float64
	for i, c := range weeks {
		if wd := time.Unix(c.Time, 0).UTC(); wd.Weekday() != time.Monday || wd.Hour() != 0 {
			t.Fatalf("week %d opens %s", i, wd)
		}
		if i > 0 && c.Time-weeks[i-1].Time < 7*day {
			t.Fatalf("weeks %d and %d overlap", i-1, i)
		}
		wv += c.Volume
	}
	for _, c := range days {
		dv += c.Volume
	}
	if len(weeks) != 574 || weeks[0].Time != unix("2012-12-31") || weeks[len(weeks)-1].Time != unix("2023-12-25") || math.Abs(wv-dv) > 1e-9*dv {
		t.Errorf("%d weeks, volume %v vs daily %v", len(weeks), wv, dv)
	}
}

func TestUnknownTickerAndIntervals(t *testing.T) {
	s, err := Load(strings.NewReader("ticker,date,open,high,low,close,volume\nTESTCO,2020-01-06,10,11,9,10.5,1000\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Quote(ctx, "NOPE"); !errors.Is(err, market.ErrNotFound) {
		t.Errorf("Quote unknown: err = %v, want ErrNotFound", err)
	}
	if _, err := s.StockCandles(ctx, "NOPE", "1D", 0, 1<<40); !errors.Is(err, market.ErrNotFound) {
		t.Errorf("StockCandles unknown: err = %v, want ErrNotFound", err)
	}
	for _, iv := range []market.Interval{"1m", "5m", "15m", "1H", "4H"} {
		cs, err := s.StockCandles(ctx, "TESTCO", iv, 0, 1<<40)
		if err != nil || cs == nil || len(cs) != 0 {
			t.Errorf("intraday %s: %v %v, want an empty slice (daily data only)", iv, cs, err)
		}
	}
	_, err = s.StockCandles(ctx, "TESTCO", "2m", 0, 1<<40)
	if err == nil || errors.Is(err, market.ErrNotFound) {
		t.Errorf("unsupported interval: err = %v, want a plain error", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Quote(canceled, "TESTCO"); !errors.Is(err, context.Canceled) {
		t.Errorf("Quote with a canceled context: %v", err)
	}
	if _, err := s.StockCandles(canceled, "TESTCO", "1D", 0, 1<<40); !errors.Is(err, context.Canceled) {
		t.Errorf("StockCandles with a canceled context: %v", err)
	}
}

func TestLoadSynthetic(t *testing.T) {
	// Synthetic rows: out of order, mixed-case tickers, a BOM, CRLF line
	// ends and spaces around fields; one ticker with a single session.
	doc := "\ufeffTicker, Date,Open,High,Low,Close,Volume\r\n" +
		"testco,2020-01-07,11,12,10,11,2000\r\n" +
		"TESTCO, 2020-01-06 ,10,11,9,10,1000\r\n" +
		"ONEDAY,2020-01-06,5,5,5,5,0\r\n"
	s, err := Load(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ONEDAY", "TESTCO"}, s.Tickers()); diff != "" {
		t.Errorf("Tickers (-want +got):\n%s", diff)
	}
	q, err := s.Quote(context.Background(), "TestCo")
	if err != nil {
		t.Fatal(err)
	}
	want := market.StockQuote{Ticker: "TESTCO", PriceUSD: f(11), PreviousCloseUSD: f(10), Volume24hUSD: f(22000),
		PriceChange24hPercent: f(10.000000000000009), AsOf: time.Date(2020, 1, 7, 20, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("Quote (-want +got):\n%s", diff)
	}
	q, err = s.Quote(context.Background(), "oneday")
	if err != nil {
		t.Fatal(err)
	}
	if q.PreviousCloseUSD != nil || q.PriceChange24hPercent != nil || *q.PriceUSD != 5 || *q.Volume24hUSD != 0 {
		t.Errorf("single-session quote %+v", q)
	}
}

func TestLoadMalformed(t *testing.T) {
	const hdr = "ticker,date,open,high,low,close,volume\n"
	const ok = "TESTCO,2020-01-06,10,11,9,10,1000\n"
	tests := []struct {
		name string
		doc  string
		want string // substring of the error
	}{
		{"empty document", "", "empty document"},
		{"header only", hdr, "no data rows"},
		{"wrong header", "symbol,date,open,high,low,close,volume\n" + ok, `line 1: header column 1 is "symbol"`},
		{"columns swapped", "ticker,date,open,high,low,volume,close\n" + ok, "line 1: header column 6"},
		{"short header", "ticker,date,open\n" + ok, "line 1"},
		{"missing field", hdr + ok + "TESTCO,2020-01-07,10,11,9,10\n", "line 3"},
		{"empty ticker", hdr + ok + " ,2020-01-07,10,11,9,10,1\n", "line 3: empty ticker"},
		{"bad date", hdr + "TESTCO,06/01/2020,10,11,9,10,1\n", `line 2: date "06/01/2020"`},
		{"date with time", hdr + "TESTCO,2020-01-06T00:00:00Z,10,11,9,10,1\n", "line 2: date"},
		{"bad number", hdr + ok + "TESTCO,2020-01-07,ten,11,9,10,1\n", `line 3: open "ten" is not a finite number`},
		{"NaN", hdr + "TESTCO,2020-01-07,10,NaN,9,10,1\n", "line 2: high"},
		{"Inf", hdr + "TESTCO,2020-01-07,10,11,9,+Inf,1\n", "line 2: close"},
		{"zero price", hdr + "TESTCO,2020-01-07,10,11,0,10,1\n", `line 2: low "0" is not positive`},
		{"negative volume", hdr + "TESTCO,2020-01-07,10,11,9,10,-1\n", "line 2: volume"},
		{"low above high", hdr + "TESTCO,2020-01-07,10,9,11,10,1\n", "line 2: low 11 above high 9"},
		{"duplicate session", hdr + ok + "OTHER,2020-01-06,1,1,1,1,1\n" + strings.ToLower(ok), "line 4: TESTCO 2020-01-06 repeats line 2"},
		{"bare quote", hdr + `TESTCO,2020-01-07,1"0,11,9,10,1` + "\n", "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(strings.NewReader(tt.doc))
			if err == nil {
				t.Fatalf("Load succeeded: %v", s.Tickers())
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synthetic.csv")
	if err := os.WriteFile(path, []byte("ticker,date,open,high,low,close,volume\nTESTCO,2020-01-06,10,11,9,10,1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"TESTCO"}, s.Tickers()); diff != "" {
		t.Errorf("Tickers (-want +got):\n%s", diff)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("ticker,date,open,high,low,close,volume\nTESTCO,x,1,1,1,1,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad file: %v, want the path and line", err)
	}
}

func TestWeekStart(t *testing.T) {
	tests := []struct {
		at   string // RFC 3339
		want string // Monday, YYYY-MM-DD
	}{
		{"1970-01-01T00:00:00Z", "1969-12-29"}, // a Thursday
		{"1970-01-05T00:00:00Z", "1970-01-05"}, // a Monday
		{"1969-12-28T23:59:59Z", "1969-12-22"}, // a Sunday before the epoch
		{"2020-08-30T23:59:59Z", "2020-08-24"}, // a Sunday
		{"2020-08-31T00:00:00Z", "2020-08-31"}, // a Monday
		{"2023-12-29T00:00:00Z", "2023-12-25"}, // a Friday
	}
	for _, tt := range tests {
		at, err := time.Parse(time.RFC3339, tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Unix(weekStart(at.Unix()), 0).UTC().Format(time.DateOnly); got != tt.want {
			t.Errorf("weekStart(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
}

func BenchmarkQuote(b *testing.B) {
	s := loadMag7(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Quote(ctx, "tsla"); err != nil {
			b.Fatal(err)
		}
	}
}
