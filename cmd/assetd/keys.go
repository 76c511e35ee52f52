package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/storage"
)

// withStore parses the common flags of a store command, opens the store and
// runs fn with the remaining arguments.
func (c *cli) withStore(ctx context.Context, name string, args []string, extra func(*flag.FlagSet), fn func(store, []string) error) error {
	def, set, err := storeFlagsFromEnv(name)
	if err != nil {
		return err
	}
	var sf storeFlags
	fs := newFlagSet(name)
	addStoreFlags(fs, &sf, def)
	if extra != nil {
		extra(fs)
	}
	if err := c.parse(fs, interleave(fs, args), false); err != nil {
		return err
	}
	for f := range provided(fs) {
		set[f] = true
	}
	sf.resolveDemo(set)
	if err := sf.validate(); err != nil {
		return err
	}
	c.demoStoreHint(sf, set)
	log := newLogger(c.stderr, sf)
	st, err := openStore(ctx, sf, log)
	if err != nil {
		return err
	}
	defer st.Close()
	bus, err := openBus(ctx, sf, st, "assetd "+name, log)
	if err != nil {
		return err
	}
	defer closeBus(bus, log)
	return fn(st, fs.Args())
}

// demoStoreHint warns when a command is about to create the default store
// ./data while the store of `serve --demo` exists: the key or session it
// writes would not reach a demo server (the first request would be a 401).
func (c *cli) demoStoreHint(sf storeFlags, set map[string]bool) {
	if sf.demo || sf.databaseURL != "" || set["data-dir"] || sf.dataDir != defaultDataDir {
		return
	}
	if _, err := os.Stat(defaultDataDir); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if st, err := os.Stat(demoDataDir); err == nil && st.IsDir() {
		fmt.Fprintf(c.stderr, "assetd: note: using a new store in %s; a server started with serve --demo reads %s: add --demo to use its store\n",
			defaultDataDir, demoDataDir)
	}
}

// interleave moves positional arguments after the flags, so both
// "revoke ID --data-dir D" and "revoke --data-dir D ID" work.
func interleave(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
				continue
			}
			if i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		}
	}
	return append(flags, pos...)
}

func (c *cli) keys(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("keys", args)
	if err != nil {
		return err
	}
	mgr := func(st store) apikey.Manager { return apikey.Manager{Store: st, Now: time.Now} }
	switch sub {
	case "create":
		var project, scopes, name string
		return c.withStore(ctx, "keys create", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&project, "project", "", "project name (created on first use)")
			fs.StringVar(&name, "name", "", "display name of the key (at most 64 characters), shown by the dashboard and keys list")
			fs.StringVar(&scopes, "scopes", apikey.DefaultScopeList, "comma-separated scopes: "+strings.Join(apikey.AllScopes[:], ","))
		}, func(st store, pos []string) error {
			if len(pos) > 0 {
				return usageError{fmt.Sprintf("keys create: unexpected argument %q", pos[0])}
			}
			if project == "" {
				return usageError{"keys create: --project is required"}
			}
			sc, err := apikey.ParseScopes(scopes)
			if err != nil {
				return usageError{"keys create: " + err.Error()}
			}
			if _, err := apikey.CleanName(name); err != nil {
				return usageError{"keys create: --name: " + err.Error()}
			}
			plain, k, err := mgr(st).CreateNamed(ctx, project, name, sc)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, plain)
			fmt.Fprintf(c.stderr, "created key %s for project %s with scopes %s; the key is shown once: store it now\n",
				k.ID, k.Project, strings.Join(k.Scopes, ","))
			return nil
		})
	case "list":
		return c.withStore(ctx, "keys list", rest, nil, func(st store, pos []string) error {
			ks, err := st.ListKeys(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			for _, k := range ks {
				named := ""
				if k.Name != "" {
					named = fmt.Sprintf("\tname=%q", k.Name)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\n", k.ID, k.Project, strings.Join(k.Scopes, ","),
					k.CreatedAt.Format(time.RFC3339), k.Status(), limitsText(k.Limits), named)
			}
			return tw.Flush()
		})
	case "revoke":
		return c.withStore(ctx, "keys revoke", rest, nil, func(st store, pos []string) error {
			id, err := oneID("keys revoke", pos)
			if err != nil {
				return err
			}
			if err := mgr(st).Revoke(ctx, id); err != nil {
				return notFoundHint(err, id)
			}
			fmt.Fprintf(c.stderr, "revoked %s\n", id)
			return nil
		})
	case "regenerate":
		return c.withStore(ctx, "keys regenerate", rest, nil, func(st store, pos []string) error {
			id, err := oneID("keys regenerate", pos)
			if err != nil {
				return err
			}
			plain, k, err := mgr(st).Regenerate(ctx, id)
			if err != nil {
				return notFoundHint(err, id)
			}
			fmt.Fprintln(c.stdout, plain)
			fmt.Fprintf(c.stderr, "revoked %s; its replacement is %s (same project, scopes and limits)\n", id, k.ID)
			return nil
		})
	case "rename":
		var name string
		return c.withStore(ctx, "keys rename", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&name, "name", "", "the key's new display name (empty removes it)")
		}, func(st store, pos []string) error {
			id, err := oneID("keys rename", pos)
			if err != nil {
				return err
			}
			if _, err := apikey.CleanName(name); err != nil {
				return usageError{"keys rename: --name: " + err.Error()}
			}
			k, err := mgr(st).Rename(ctx, id, name)
			if err != nil {
				return notFoundHint(err, id)
			}
			fmt.Fprintf(c.stderr, "%s is named %q\n", k.ID, k.Name)
			return nil
		})
	case "usage":
		return c.keysUsage(ctx, rest)
	case "scopes":
		return c.keysScopes(ctx, rest, mgr)
	case "limits":
		var rate, quota string
		var clear bool
		return c.withStore(ctx, "keys limits", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&rate, "rate", "", "per-key rate N/WINDOW, e.g. 100/10s")
			fs.StringVar(&quota, "quota", "", "per-key monthly quota N/month")
			fs.BoolVar(&clear, "clear", false, "remove the overrides (back to the server defaults)")
		}, func(st store, pos []string) error {
			id, err := oneID("keys limits", pos)
			if err != nil {
				return err
			}
			k, err := st.GetKey(ctx, id)
			if err != nil {
				return notFoundHint(err, id)
			}
			l := k.Limits
			if clear {
				l = apikey.Limits{}
			}
			if rate != "" {
				if l.RateRequests, l.RateWindow, err = parseRate(rate); err != nil {
					return usageError{"keys limits: --rate: " + err.Error()}
				}
			}
			if quota != "" {
				if l.QuotaPerMonth, err = parseQuota(quota); err != nil {
					return usageError{"keys limits: --quota: " + err.Error()}
				}
			}
			if rate == "" && quota == "" && !clear {
				return usageError{"keys limits: give --rate, --quota or --clear"}
			}
			if err := st.SetKeyLimits(ctx, id, l); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "limits of %s: %s\n", id, limitsText(l))
			return nil
		})
	}
	return usageError{fmt.Sprintf("keys: unknown subcommand %q", args[0])}
}

// keysScopes replaces (--set) or edits (--add, --remove) an active key's
// scopes; running servers apply the change within one key reload.
func (c *cli) keysScopes(ctx context.Context, args []string, mgr func(store) apikey.Manager) error {
	var set, add, remove string
	return c.withStore(ctx, "keys scopes", args, func(fs *flag.FlagSet) {
		fs.StringVar(&set, "set", "", "comma-separated scopes replacing the key's: "+strings.Join(apikey.AllScopes[:], ","))
		fs.StringVar(&add, "add", "", "comma-separated scopes to grant")
		fs.StringVar(&remove, "remove", "", "comma-separated scopes to take away")
	}, func(st store, pos []string) error {
		id, err := oneID("keys scopes", pos)
		if err != nil {
			return err
		}
		if set == "" && add == "" && remove == "" {
			return usageError{"keys scopes: give --set, or --add and/or --remove"}
		}
		if set != "" && (add != "" || remove != "") {
			return usageError{"keys scopes: --set replaces the scopes; do not combine it with --add or --remove"}
		}
		k, err := st.GetKey(ctx, id)
		if err != nil {
			return notFoundHint(err, id)
		}
		next := slices.Clone(k.Scopes)
		if set != "" {
			next = splitScopes(set)
		}
		next = append(next, splitScopes(add)...)
		drop := splitScopes(remove)
		next = slices.DeleteFunc(next, func(s string) bool { return slices.Contains(drop, s) })
		k, err = mgr(st).SetScopes(ctx, id, next)
		if errors.Is(err, apikey.ErrNoScopes) || (err != nil && strings.Contains(err.Error(), "unknown scope")) {
			return usageError{"keys scopes: " + err.Error()}
		}
		if err != nil {
			return notFoundHint(err, id)
		}
		fmt.Fprintf(c.stderr, "scopes of %s: %s\n", id, strings.Join(k.Scopes, ","))
		return nil
	})
}

func splitScopes(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func limitsText(l apikey.Limits) string {
	rate, quota := "default", "default"
	if l.RateRequests > 0 {
		rate = fmt.Sprintf("%d/%s", l.RateRequests, l.RateWindow)
	}
	if l.QuotaPerMonth > 0 {
		quota = fmt.Sprintf("%d/month", l.QuotaPerMonth)
	}
	return "rate=" + rate + " quota=" + quota
}

func oneID(cmd string, pos []string) (string, error) {
	if len(pos) != 1 {
		return "", usageError{cmd + ": want exactly one key ID"}
	}
	return pos[0], nil
}

func notFoundHint(err error, id string) error {
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("no key with id %s (see assetd keys list)", id)
	}
	return err
}

func (c *cli) migrate(ctx context.Context, args []string) error {
	return c.withStore(ctx, "migrate", args, nil, func(st store, pos []string) error {
		fmt.Fprintf(c.stderr, "%s store is up to date\n", st.Engine())
		return nil
	})
}
