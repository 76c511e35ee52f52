package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/dashboard"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
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

// newDashboard wires /dashboard/ to the store, the session router, the
// list service and the list reader (its token search and resolution).
// storeHint names the store for a failed sign-in's message.
func newDashboard(log *slog.Logger, st store, sessions dashboard.Sessions, svc *lists.Service, views *lists.Views, reader *lists.Reader, storeHint string) http.Handler {
	return dashboard.New(dashboard.Deps{
		Log: log, Sessions: sessions, Projects: st, Keys: st, KeyManager: apikey.Manager{Store: st, Now: time.Now},
		Lists: svc, Views: views, Tokens: reader, Now: time.Now, Usage: dashboardUsage{st}, Store: storeHint,
	})
}

// dashboardUsage sums the stored per-minute usage aggregates (internal/usage)
// into the dashboard's requests per UTC day.
type dashboardUsage struct {
	st interface {
		UsageByDay(ctx context.Context, keyID string, sinceMinute int64) ([]usage.DayCount, error)
	}
}

func (u dashboardUsage) UsageByDay(ctx context.Context, keyID string, from, to time.Time) ([]dashboard.DayCount, error) {
	rows, err := u.st.UsageByDay(ctx, keyID, usage.MinuteOf(from))
	if err != nil {
		return nil, fmt.Errorf("dashboard usage: %w", err)
	}
	var out []dashboard.DayCount
	for _, r := range rows {
		if r.Day.Before(from) || !r.Day.Before(to) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Day.Equal(r.Day) {
			out[n-1].Count += r.Requests
			continue
		}
		out = append(out, dashboard.DayCount{Day: r.Day, Count: r.Requests})
	}
	slices.SortFunc(out, func(a, b dashboard.DayCount) int { return a.Day.Compare(b.Day) })
	return out, nil
}
