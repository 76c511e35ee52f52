package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/dashboard"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/usage"
)

// projects is `assetd projects add-member|members`.
func (c *cli) projects(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("projects", args)
	if err != nil {
		return err
	}
	var name, userID, role string
	return c.withStore(ctx, "projects "+sub, rest, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "project", "", "project name (created on first use, as by keys create)")
		fs.StringVar(&userID, "user-id", "", "user id as /v1/whoami reports it")
		if sub == "add-member" {
			fs.StringVar(&role, "role", "", "owner, admin or member")
		}
	}, func(st store, _ []string) error {
		if sub == "add-member" {
			if err := project.Check(name, userID, role); err != nil {
				return usageError{"projects add-member: " + err.Error()}
			}
			m, err := st.PutProjectMember(ctx, name, userID, role, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s is %s of %s (%s)\n", m.UserID, m.Role, m.Project, m.ProjectID)
			return nil
		}
		var rows []project.Member
		var err error
		switch {
		case name != "":
			rows, err = st.ProjectMembers(ctx, name)
		case userID != "":
			rows, err = st.UserProjects(ctx, userID)
		default:
			return usageError{"projects members: --project or --user-id is required"}
		}
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PROJECT\tPROJECT ID\tUSER\tROLE\tADDED")
		for _, m := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Project, m.ProjectID, m.UserID, m.Role, m.AddedAt.UTC().Format(time.RFC3339))
		}
		return tw.Flush()
	})
}

// newDashboard wires /dashboard/ to the store (keys, usage, flashes),
// the session router, the list service and the list reader (its token
// search and resolution). limits are the server's default limits, which
// the key pages show as the effective ones; storeHint names the store for
// a failed sign-in's message. hooks is the API's webhook service (its SSRF
// guard and validation apply to the dashboard's forms too).
func newDashboard(log *slog.Logger, st store, sessions dashboard.Sessions, svc *lists.Service, views *lists.Views, reader *lists.Reader,
	hooks dashboard.WebhookService, limits ratelimit.Policy, storeHint string) http.Handler {
	return dashboard.New(dashboard.Deps{
		Log: log, Sessions: sessions, Projects: st, Keys: st, KeyManager: apikey.Manager{Store: st, Now: time.Now},
		Lists: svc, Views: views, Tokens: reader, Now: time.Now, Usage: dashboardUsage{st}, Flashes: st, Webhooks: hooks, Limits: limits, Store: storeHint,
	})
}

// dashboardUsage reads the stored per-minute usage aggregates
// (internal/usage) in the dashboard's hour or day buckets.
type dashboardUsage struct {
	st interface {
		UsageBuckets(ctx context.Context, keyID string, sinceMinute, bucketMinutes int64) ([]usage.Bucket, error)
	}
}

func (u dashboardUsage) UsageBuckets(ctx context.Context, keyID string, from time.Time, bucket time.Duration) ([]usage.Bucket, error) {
	m := int64(bucket / time.Minute)
	if m <= 0 || bucket%time.Minute != 0 {
		return nil, fmt.Errorf("dashboard usage: bucket %s is not a whole number of minutes", bucket)
	}
	rows, err := u.st.UsageBuckets(ctx, keyID, usage.MinuteOf(from), m)
	if err != nil {
		return nil, fmt.Errorf("dashboard usage: %w", err)
	}
	return rows, nil
}
