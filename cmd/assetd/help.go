package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// commandDoc is what `assetd COMMAND -h` prints above the flags.
type commandDoc struct {
	args  string      // positional synopsis, e.g. "ID"
	about string      // what the command does
	argv  [][2]string // each positional argument and its meaning
	// noStore: the command opens no store (no --data-dir/--database-url).
	noStore bool
}

// commandDocs documents every command; a group ("keys") lists the
// subcommands whose names start with it. Read-only.
var commandDocs = map[string]commandDoc{
	"serve":   {about: "Run the API server (and the admin listener with --admin-addr). Applies pending migrations first."},
	"migrate": {about: "Apply pending database migrations and exit (serve also applies them)."},
	"version": {about: "Print the module version, the VCS revision and commit time the binary was built from, and the Go version " +
		"(go build stamps them in a git checkout; go run does not stamp the revision)."},
	"projects add-member": {about: "Add a user (as /v1/whoami reports it) to a project with a role; the project is created on first use."},
	"projects members":    {about: "List a project's members (--project), or the projects of a user (--user-id)."},
	"keys create": {about: "Create an API key for a project (created on first use). The key is printed once on stdout; " +
		"a running server accepts it within the reload interval."},
	"keys list":   {about: "List every API key: id, project, scopes, creation time, status, limits and name."},
	"keys revoke": {args: "ID", about: "Revoke an API key; a running server refuses it within the reload interval.", argv: [][2]string{{"ID", "key id, as printed by assetd keys list"}}},
	"keys regenerate": {args: "ID", about: "Revoke a key and create its replacement with the same project, scopes and limits; prints the new key once.",
		argv: [][2]string{{"ID", "key id, as printed by assetd keys list"}}},
	"keys rename": {args: "ID", about: "Set (--name) or remove (--name '') a key's display name, shown by the dashboard and keys list.",
		argv: [][2]string{{"ID", "key id, as printed by assetd keys list"}}},
	"keys limits": {args: "ID", about: "Set or clear a key's rate and monthly quota overrides (the server defaults apply otherwise).",
		argv: [][2]string{{"ID", "key id, as printed by assetd keys list"}}},
	"keys scopes": {args: "ID", about: "Replace (--set) or edit (--add, --remove) an active key's scopes; a running server applies them within the reload interval.",
		argv: [][2]string{{"ID", "key id, as printed by assetd keys list"}}},
	"keys usage": {args: "ID", about: "Print a key's stored usage per day, route and status (UTC days, newest first), and its requests this month.",
		argv: [][2]string{{"ID", "key id, as printed by assetd keys list"}}},
	"sessions create": {about: "Create a local session token for /v1/whoami and the dashboard; printed once on stdout."},
	"sessions list":   {about: "List local sessions, newest first: id, user, email, created, expires and status (active, expired, revoked)."},
	"sessions revoke": {args: "ID", about: "Revoke a local session; every server refuses its token at once (sessions are read from the store on each use).",
		argv: [][2]string{{"ID", "session id, as printed by assetd sessions list"}}},
	"registry import": {args: "FILE", about: "Import a reference registry, token list or LST list; re-importing a source replaces it. " +
		"A running server reloads the registry within the reload interval.", argv: [][2]string{{"FILE", "JSON document (docs/registry.md)"}}},
	"tokens import": {args: "FILE", about: "Import a token index source (CSV, token-list JSON or a Jupiter-style array); re-importing a source replaces it.",
		argv: [][2]string{{"FILE", "CSV, token-list JSON or Jupiter-style JSON array"}}},
	"tokens stats":     {about: "Print the stored token sources and the in-memory index they build."},
	"registry list":    {about: "List the imported registry sources."},
	"registry remove":  {args: "SOURCE", about: "Remove an imported registry source.", argv: [][2]string{{"SOURCE", "source name, as printed by assetd registry list"}}},
	"advisories set":   {args: "MINT", about: "Flag a mint as caution, compromised or blocked.", argv: [][2]string{{"MINT", "base58 mint address"}}},
	"advisories clear": {args: "MINT", about: "Remove a mint's advisory.", argv: [][2]string{{"MINT", "base58 mint address"}}},
	"advisories list":  {about: "List the flagged mints."},
	"trades decode": {args: "FILE...", about: "Decode recorded getTransaction/getBlock responses (JSON-RPC envelope, bare result or one-element array; " +
		"encoding json or jsonParsed) and print the trade events of their USD-stable swap legs as NDJSON (every leg with --all-legs); " +
		"a summary per file goes to stderr. No store is opened.",
		argv: [][2]string{{"FILE...", "recorded JSON-RPC response files"}}, noStore: true},
	"advisories reports": {args: "list | accept ID | reject ID", about: "Review advisory reports (docs/advisories.md): list them (--status pending by default, \"\" for all), accept one (--status caution, compromised or blocked sets the linked advisory; --reason) or reject it (--note).",
		argv: [][2]string{{"list", "the reports with --status"}, {"accept ID", "accept report ID and set its advisory"}, {"reject ID", "reject report ID"}}},
	"ingest replay": {args: "FILE", about: "Replay NDJSON trades (docs/analytics.md) into the stored candles.",
		argv: [][2]string{{"FILE", "NDJSON file of trades"}}},
	"trades backfill": {about: "Fetch the blocks of slots --from-slot..--to-slot through the Solana RPC trade source into the store " +
		"(docs/tradesource.md); resumable and exactly-once: an interrupted run resumes at its cursor, a re-run stores only duplicates."},
}

// newFlagSet returns a flag set that reports errors only through its
// return value; -h is answered by printUsage.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses a command's flags (see parseFlags) and answers -h with the
// command's usage on stdout.
func (c *cli) parse(fs *flag.FlagSet, args []string, env bool) error {
	err := parseFlags(fs, args, env)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(c.stdout, fs, env)
	}
	return err
}

// printUsage writes the synopsis, description, positional arguments and
// flags (with their environment variables) of the command fs parses.
func printUsage(w io.Writer, fs *flag.FlagSet, env bool) {
	doc := commandDocs[fs.Name()]
	fmt.Fprintf(w, "Usage: assetd %s [flags]", fs.Name())
	if doc.args != "" {
		fmt.Fprintf(w, " %s", doc.args)
	}
	fmt.Fprintf(w, "\n\n%s\n", doc.about)
	if len(doc.argv) > 0 {
		fmt.Fprintln(w, "\nArguments:")
		for _, a := range doc.argv {
			fmt.Fprintf(w, "  %-8s %s\n", a[0], a[1])
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s", f.Name)
		if typ != "" {
			fmt.Fprintf(w, " %s", typ)
		}
		fmt.Fprintf(w, "\n      %s", usage)
		var notes []string
		if f.DefValue != "" && f.DefValue != "false" {
			notes = append(notes, fmt.Sprintf("default %q", f.DefValue))
		}
		if env || storeFlagNames[f.Name] {
			notes = append(notes, "env "+envName(f.Name))
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(notes, ", "))
		}
		fmt.Fprintln(w)
	})
}

// subcommand splits args of a command group ("keys") into the subcommand
// and its arguments; with none, -h or an unknown one it prints the group's
// subcommands.
func (c *cli) subcommand(group string, args []string) (string, []string, error) {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			printGroupUsage(c.stdout, group)
			return "", nil, flag.ErrHelp
		}
		if _, ok := commandDocs[group+" "+args[0]]; ok {
			return args[0], args[1:], nil
		}
	}
	printGroupUsage(c.stderr, group)
	if len(args) == 0 {
		return "", nil, usageError{group + ": want a subcommand"}
	}
	return "", nil, usageError{fmt.Sprintf("%s: unknown subcommand %q", group, args[0])}
}

func printGroupUsage(w io.Writer, group string) {
	var subs []string
	for name := range commandDocs {
		if sub, ok := strings.CutPrefix(name, group+" "); ok {
			subs = append(subs, sub)
		}
	}
	sort.Strings(subs)
	fmt.Fprintf(w, "Usage: assetd %s SUBCOMMAND [flags] [args]\n\nSubcommands:\n", group)
	for _, s := range subs {
		d := commandDocs[group+" "+s]
		fmt.Fprintf(w, "  %-22s %s\n", strings.TrimSpace(s+" "+d.args), d.about)
	}
	fmt.Fprintf(w, "\nRun \"assetd %s SUBCOMMAND -h\" for its flags.\n", group)
}
