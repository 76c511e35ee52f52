package extprovider

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/url"
	"strings"

	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// usdNumber is a per-currency object of which only "usd" is read.
type usdNumber struct {
	USD upstream.Number `json:"usd"`
}

// usdString is a per-currency object of strings (ath_date).
type usdString struct {
	USD string `json:"usd"`
}

type coinLinks struct {
	Homepage  []string `json:"homepage"`
	Twitter   string   `json:"twitter_screen_name"`
	Telegram  string   `json:"telegram_channel_identifier"`
	ChatURL   []string `json:"chat_url"`
	Subreddit string   `json:"subreddit_url"`
	ReposURL  struct {
		GitHub []string `json:"github"`
	} `json:"repos_url"`
}

type coinMarketData struct {
	CurrentPrice         usdNumber       `json:"current_price"`
	MarketCap            usdNumber       `json:"market_cap"`
	FDV                  usdNumber       `json:"fully_diluted_valuation"`
	TotalVolume          usdNumber       `json:"total_volume"`
	PriceChange24h       upstream.Number `json:"price_change_percentage_24h"`
	PriceChange24hInCurr usdNumber       `json:"price_change_percentage_24h_in_currency"`
	PriceChange1hInCurr  usdNumber       `json:"price_change_percentage_1h_in_currency"`
	CirculatingSupply    upstream.Number `json:"circulating_supply"`
	TotalSupply          upstream.Number `json:"total_supply"`
	MaxSupply            upstream.Number `json:"max_supply"`
	ATH                  usdNumber       `json:"ath"`
	ATHDate              usdString       `json:"ath_date"`
	LastUpdated          string          `json:"last_updated"`
}

// coinDoc is the part of a /coins/{id} answer the adapter reads.
type coinDoc struct {
	ID          string `json:"id"`
	Symbol      string `json:"symbol"`
	Name        string `json:"name"`
	Description struct {
		En string `json:"en"`
	} `json:"description"`
	Image struct {
		Thumb string `json:"thumb"`
		Small string `json:"small"`
		Large string `json:"large"`
	} `json:"image"`
	Links       coinLinks       `json:"links"`
	MarketData  *coinMarketData `json:"market_data"`
	LastUpdated string          `json:"last_updated"`
}

// Coin returns the profile and USD market stats of a coin from
// GET /coins/{id}. An unknown id wraps market.ErrNotFound.
func (c *Client) Coin(ctx context.Context, id string) (market.Coin, error) {
	path, err := coinPath(id, "")
	if err != nil {
		return market.Coin{}, err
	}
	q := url.Values{
		"localization":   {"false"},
		"tickers":        {"false"},
		"market_data":    {"true"},
		"community_data": {"false"},
		"developer_data": {"false"},
		"sparkline":      {"false"},
	}
	body, err := c.get(ctx, path, q)
	if err != nil {
		return market.Coin{}, err
	}
	coin, err := parseCoin(body)
	if err == nil {
		bounds.Coin(&coin, c.http.Nulled)
	}
	return coin, err
}

// parseCoin decodes a /coins/{id} answer. One without an id is
// malformed.
func parseCoin(body []byte) (market.Coin, error) {
	var d coinDoc
	if err := json.Unmarshal(body, &d); err != nil {
		return market.Coin{}, upstream.Malformed(name, "coin", err)
	}
	if strings.TrimSpace(d.ID) == "" {
		return market.Coin{}, upstream.Malformed(name, "coin", errors.New("no id in the response"))
	}
	return d.coin(), nil
}

func (d coinDoc) coin() market.Coin {
	out := market.Coin{
		ID:          strings.TrimSpace(d.ID),
		Symbol:      strings.ToUpper(strings.TrimSpace(d.Symbol)),
		Name:        strings.TrimSpace(d.Name),
		Description: htmlToText(d.Description.En),
		ImageURL:    firstURL(d.Image.Large, d.Image.Small, d.Image.Thumb),
		Links:       d.Links.links(),
		LastUpdated: parseTime(d.LastUpdated),
	}
	m := d.MarketData
	if m == nil {
		return out
	}
	out.PriceUSD = m.CurrentPrice.USD.Ptr()
	out.MarketCapUSD = m.MarketCap.USD.Ptr()
	out.FDVUSD = m.FDV.USD.Ptr()
	out.Volume24hUSD = m.TotalVolume.USD.Ptr()
	out.PriceChange24hPercent = m.PriceChange24h.Ptr()
	if out.PriceChange24hPercent == nil {
		out.PriceChange24hPercent = m.PriceChange24hInCurr.USD.Ptr()
	}
	out.PriceChange1hPercent = m.PriceChange1hInCurr.USD.Ptr()
	out.CirculatingSupply = m.CirculatingSupply.Ptr()
	out.TotalSupply = m.TotalSupply.Ptr()
	out.MaxSupply = m.MaxSupply.Ptr()
	out.AllTimeHighUSD = m.ATH.USD.Ptr()
	out.AllTimeHighAt = parseTime(m.ATHDate.USD)
	if t := parseTime(m.LastUpdated); !t.IsZero() {
		out.LastUpdated = t
	}
	return out
}

func (l coinLinks) links() market.CoinLinks {
	out := market.CoinLinks{
		Website: firstURL(l.Homepage...),
		Twitter: handleURL("https://x.com/", l.Twitter),
		// Telegram identifiers are channel names; some listings carry a
		// full t.me URL instead.
		Telegram: handleURL("https://t.me/", l.Telegram),
		Reddit:   pathURL(l.Subreddit),
		GitHub:   firstURL(l.ReposURL.GitHub...),
	}
	for _, u := range l.ChatURL {
		if strings.Contains(strings.ToLower(u), "discord") {
			if out.Discord = httpURL(u); out.Discord != "" {
				break
			}
		}
	}
	return out
}

// firstURL returns the first of urls that is an absolute http(s) URL.
func firstURL(urls ...string) string {
	for _, u := range urls {
		if v := httpURL(u); v != "" {
			return v
		}
	}
	return ""
}

// pathURL is httpURL for links that must name a page: a bare host
// ("https://www.reddit.com", the provider's placeholder for "no
// subreddit") gives "".
func pathURL(s string) string {
	s = httpURL(s)
	if u, err := url.Parse(s); err != nil || strings.Trim(u.Path, "/") == "" {
		return ""
	}
	return s
}

// handleURL turns an account handle into prefix+handle. A leading "@" is
// dropped; a value that is already an http(s) URL is kept as it is; a
// handle with a slash, space or query character gives "".
func handleURL(prefix, handle string) string {
	h := strings.TrimPrefix(strings.TrimSpace(handle), "@")
	if h == "" {
		return ""
	}
	if u := httpURL(h); u != "" {
		return u
	}
	if strings.ContainsAny(h, "/?#:% \t\r\n") {
		return ""
	}
	return prefix + h
}

// isBlockTag reports whether the tags of an HTML element separate
// words.
func isBlockTag(name string) bool {
	switch name {
	case "br", "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
		"tr", "td", "th", "table", "blockquote", "hr":
		return true
	}
	return false
}

// htmlToText turns the provider's HTML description into plain text: tags
// are removed (block-level ones leave a space, inline ones like <a> or
// <b> nothing), entities are unescaped and whitespace runs collapse into
// one space. A "<" that does not open a tag is kept as text.
func htmlToText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '<' || !opensTag(s[i+1:]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			b.WriteString(s[i:]) // unterminated: text
			break
		}
		if isBlockTag(tagName(s[i+1 : i+end])) {
			b.WriteByte(' ')
		}
		i += end + 1
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}

// opensTag reports whether s (what follows a "<") starts a tag, a
// closing tag, a comment or a declaration.
func opensTag(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '/' || c == '!' || c == '?' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// tagName returns the lower-case element name of a tag's inside
// ("a href=..." → "a", "/p" → "p", "br/" → "br").
func tagName(s string) string {
	s = strings.TrimPrefix(s, "/")
	end := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '/' || r == '\t' || r == '\n' || r == '\r' })
	if end >= 0 {
		s = s[:end]
	}
	return strings.ToLower(s)
}
