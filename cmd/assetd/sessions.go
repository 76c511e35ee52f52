package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/session"
)

func (c *cli) sessions(ctx context.Context, args []string) error {
	_, rest, err := c.subcommand("sessions", args)
	if err != nil {
		return err
	}
	var userID, email string
	var ttl time.Duration
	return c.withStore(ctx, "sessions create", rest, func(fs *flag.FlagSet) {
		fs.StringVar(&userID, "user-id", "", "user id reported by /v1/whoami")
		fs.StringVar(&email, "email", "", "primary email reported by /v1/whoami")
		fs.DurationVar(&ttl, "ttl", 30*24*time.Hour, "session lifetime")
	}, func(st store, pos []string) error {
		if userID == "" || email == "" {
			return usageError{"sessions create: --user-id and --email are required"}
		}
		token, s, err := session.Local{Store: st, Now: time.Now}.Create(ctx, userID, email, ttl)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, token)
		fmt.Fprintf(c.stderr, "created session %s for %s, expires %s\n", s.ID, userID, s.ExpiresAt.Format(time.RFC3339))
		return nil
	})
}
