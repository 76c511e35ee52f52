package marketcache

import (
	"context"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// MetaFreshTTL is how long looked-up token metadata stays fresh.
const MetaFreshTTL = 24 * time.Hour

func metaKey(mint string) string { return "t:" + mint }

// TokenIdentity returns a mint's symbol and name for mints the registry
// does not know: from the cached market snapshot's token metadata, else
// from the token metadata provider (a lookup is scheduled when missing).
func (c *Cache) TokenIdentity(mint string) (symbol, name string, ok bool) {
	now := c.o.Now()
	if it := c.snaps.get(mint, now); it != nil && (it.val.meta.Symbol != "" || it.val.meta.Name != "") {
		return it.val.meta.Symbol, it.val.meta.Name, true
	}
	it := c.meta.read(mint, now, MetaFreshTTL)
	if c.o.Metadata != nil && (it == nil || now.Sub(it.fetchedAt) >= MetaFreshTTL) && c.claim(metaKey(mint)) {
		c.submit(job{keys: []string{metaKey(mint)}, run: func(ctx context.Context) error {
			var res map[string]market.TokenMeta
			err := c.call(ctx, "token_metadata", func(ctx context.Context) error {
				var err error
				res, err = c.o.Metadata.Lookup(ctx, []string{mint})
				return err
			})
			if err != nil {
				return err
			}
			c.meta.put(mint, res[mint], c.o.Now()) // zero value: unknown, cached as such
			return nil
		}})
	}
	if it == nil || (it.val.Symbol == "" && it.val.Name == "") {
		return "", "", false
	}
	return it.val.Symbol, it.val.Name, true
}
