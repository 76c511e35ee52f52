package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
)

func (c *cli) sessions(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("sessions", args)
	if err != nil {
		return err
	}
	local := func(st store) session.Local { return session.Local{Store: st, Now: time.Now} }
	switch sub {
	case "create":
		var userID, email string
		var ttl time.Duration
		return c.withStore(ctx, "sessions create", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&userID, "user-id", "", "user id reported by /v1/whoami")
			fs.StringVar(&email, "email", "", "primary email reported by /v1/whoami")
			fs.DurationVar(&ttl, "ttl", session.DefaultTTL, "session lifetime (docs/auth.md: why 7 days)")
		}, func(st store, pos []string) error {
			if len(pos) > 0 {
				return usageError{fmt.Sprintf("sessions create: unexpected argument %q", pos[0])}
			}
			if userID == "" || email == "" {
				return usageError{"sessions create: --user-id and --email are required"}
			}
			token, s, err := local(st).Create(ctx, userID, email, ttl)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, token)
			fmt.Fprintf(c.stderr, "created session %s for %s, expires %s\n", s.ID, userID, s.ExpiresAt.Format(time.RFC3339))
			return nil
		})
	case "list":
		var userID string
		return c.withStore(ctx, "sessions list", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&userID, "user-id", "", "only this user's sessions (default: every user's)")
		}, func(st store, pos []string) error {
			if len(pos) > 0 {
				return usageError{fmt.Sprintf("sessions list: unexpected argument %q", pos[0])}
			}
			ss, err := st.ListSessions(ctx, userID)
			if err != nil {
				return err
			}
			now := time.Now()
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			for _, s := range ss {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.UserID, s.Email,
					s.CreatedAt.Format(time.RFC3339), s.ExpiresAt.Format(time.RFC3339), s.Status(now))
			}
			return tw.Flush()
		})
	case "revoke":
		return c.withStore(ctx, "sessions revoke", rest, nil, func(st store, pos []string) error {
			if len(pos) != 1 {
				return usageError{"sessions revoke: want exactly one session ID"}
			}
			id := pos[0]
			if err := local(st).Revoke(ctx, id); err != nil {
				if errors.Is(err, storage.ErrNotFound) {
					return fmt.Errorf("no session with id %s (see assetd sessions list)", id)
				}
				return err
			}
			fmt.Fprintf(c.stderr, "revoked session %s; every server refuses its token from now on\n", id)
			return nil
		})
	}
	return usageError{fmt.Sprintf("sessions: unknown subcommand %q", sub)}
}
