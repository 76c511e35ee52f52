package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/assetd/assetd/internal/onchain"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/watch"
)

// registryStore is what registry loading and import need from a store.
type registryStore interface {
	PutRegistryDocument(ctx context.Context, d storage.RegistryDocument) (bool, error)
	DeleteRegistryDocument(ctx context.Context, source string) error
	ListRegistryDocuments(ctx context.Context) ([]storage.RegistryDocument, error)
}

// loadRegistry builds the registry snapshot: the embedded seed overlaid by
// every imported document in import order. extra documents (not yet
// stored) go last.
func loadRegistry(ctx context.Context, st registryStore, extra ...registry.Document) (*registry.Snapshot, *registry.Report, error) {
	docs, err := st.ListRegistryDocuments(ctx)
	if err != nil {
		return nil, nil, err
	}
	return buildRegistry(docs, extra...)
}

// errRegistryUnchanged: the stored registry documents are those the
// snapshot in service was built from.
var errRegistryUnchanged = errors.New("registry documents unchanged")

// registryLoader loads a server's registry and remembers which stored
// documents its snapshot was built from, so that a reload that finds the
// same documents (the poller's first Sync, right after start-up) does not
// parse and build a large registry again. With versions it reads the
// registry topic's version before the documents, and a reload that finds
// the version of the last successful load does not even read them (the
// store bumps the version in the transaction that changes a document).
// Not safe for concurrent use.
type registryLoader struct {
	st       registryStore
	versions watch.VersionSource // optional
	last     [sha256.Size]byte
	version  int64 // registry topic version read before the last successful load
	loaded   bool
	// extra documents go over the stored ones (--demo: the synthetic
	// depegging stablecoin, demo.SyntheticStablecoin).
	extra []registry.Document
}

// load builds the snapshot of the stored documents, or returns
// errRegistryUnchanged when they are those of the last successful load.
func (l *registryLoader) load(ctx context.Context) (*registry.Snapshot, *registry.Report, error) {
	version, versioned := int64(0), false
	if l.versions != nil {
		if v, err := l.versions.Versions(ctx); err == nil {
			version, versioned = v[storage.TopicRegistry], true
			if l.loaded && version == l.version {
				return nil, nil, errRegistryUnchanged
			}
		}
	}
	docs, err := l.st.ListRegistryDocuments(ctx)
	if err != nil {
		return nil, nil, err
	}
	h := sha256.New()
	for _, d := range docs {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", d.Source, d.Format, len(d.Body))
		h.Write(d.Body)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	remember := func() {
		l.last, l.loaded = sum, true
		if versioned {
			l.version = version
		} else {
			l.version = -1 // unknown: the next load reads the documents
		}
	}
	if l.loaded && sum == l.last {
		remember()
		return nil, nil, errRegistryUnchanged
	}
	snap, rep, err := buildRegistry(docs, l.extra...)
	if err == nil {
		remember()
	}
	return snap, rep, err
}

// buildRegistry builds the snapshot of the seed overlaid by docs, then
// extra.
func buildRegistry(docs []storage.RegistryDocument, extra ...registry.Document) (*registry.Snapshot, *registry.Report, error) {
	seed, err := registry.Seed()
	if err != nil {
		return nil, nil, fmt.Errorf("embedded seed: %w", err)
	}
	overlays := make([]registry.Document, 0, len(docs)+len(extra))
	for i := range docs {
		doc, err := registry.ParseDocumentBytes(docs[i].Body)
		if err != nil {
			return nil, nil, fmt.Errorf("imported registry source %q: %w", docs[i].Source, err)
		}
		overlays = append(overlays, doc)
		docs[i].Body = nil // decoded: the bytes are garbage from here on
	}
	build := registry.BuildParsed // the seed and the stored documents were validated when parsed, and are ours
	if len(extra) > 0 {
		overlays = append(overlays, extra...)
		build = registry.Build // extra documents are the caller's
	}
	snap, rep, err := build(seed, overlays...)
	if err != nil {
		return nil, rep, fmt.Errorf("build registry: %w", err)
	}
	return snap, rep, nil
}

func (c *cli) registry(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("registry", args)
	if err != nil {
		return err
	}
	switch sub {
	case "import":
		return c.importCommand(ctx, "registry import", rest, func(st store, path, source string, dryRun bool) error {
			return c.importRegistry(ctx, st, path, source, dryRun)
		})
	case "list":
		return c.withStore(ctx, "registry list", rest, nil, func(st store, pos []string) error {
			docs, err := st.ListRegistryDocuments(ctx)
			if err != nil {
				return err
			}
			for _, d := range docs {
				fmt.Fprintf(c.stdout, "%s\t%s\t%d bytes\t%s\n", d.Source, d.Format, len(d.Body), storage.FromMs(d.ImportedAt).Format(time.RFC3339))
			}
			return nil
		})
	case "remove":
		return c.withStore(ctx, "registry remove", rest, nil, func(st store, pos []string) error {
			if len(pos) != 1 {
				return usageError{"registry remove: want exactly one SOURCE"}
			}
			if err := st.DeleteRegistryDocument(ctx, pos[0]); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "removed registry source %s\n", pos[0])
			return nil
		})
	}
	return usageError{fmt.Sprintf("registry: unknown subcommand %q", args[0])}
}

// importCommand runs an "import FILE [--source NAME] [--dry-run]"
// subcommand.
func (c *cli) importCommand(ctx context.Context, name string, args []string, run func(st store, path, source string, dryRun bool) error) error {
	var source string
	var dryRun bool
	return c.withStore(ctx, name, args, func(fs *flag.FlagSet) {
		fs.StringVar(&source, "source", "", "name of this data set (default: the file name); re-importing a source replaces it")
		fs.BoolVar(&dryRun, "dry-run", false, "parse, validate and report without storing")
	}, func(st store, pos []string) error {
		if len(pos) != 1 {
			return usageError{name + ": want exactly one FILE"}
		}
		return run(st, pos[0], source, dryRun)
	})
}

// importRegistry parses FILE in any supported format, checks that the
// registry still builds with it, and stores the normalised document.
func (c *cli) importRegistry(ctx context.Context, st store, path, source string, dryRun bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("registry import: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(c.stderr, "parsing %s\n", path)
	doc, rep, err := registry.DetectAndParse(f)
	if err != nil {
		return fmt.Errorf("registry import %s: %w", path, err)
	}
	variants := 0
	for _, a := range doc.Assets {
		variants += len(a.Variants)
	}
	members := 0
	for _, l := range doc.CuratedLists {
		members += len(l.Members)
	}
	fmt.Fprintf(c.stderr, "format %s: %d assets, %d variants, %d curated members, %d LST index entries\n",
		rep.Format, len(doc.Assets), variants, members, len(doc.LSTIndex))
	if s := rep.Summary(); s != "" {
		fmt.Fprintf(c.stderr, "normalisations: %s\n", s)
	}
	snap, brep, err := loadRegistry(ctx, st, doc)
	if err != nil {
		return fmt.Errorf("registry import %s rejected, nothing stored: %w", path, err)
	}
	stats := snap.Stats()
	fmt.Fprintf(c.stderr, "registry with this import: %d assets, %d variants (%d from the LST index)\n",
		stats.Assets, stats.Variants, stats.LSTIndexVariants)
	if s := brep.Summary(); s != "" {
		fmt.Fprintf(c.stderr, "merge: %s\n", s)
	}
	if dryRun {
		fmt.Fprintln(c.stdout, "dry run: nothing stored")
		return nil
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("registry import: encode: %w", err)
	}
	sum := sha256.Sum256(body)
	// The registry in service before this import: its symbol, name and
	// logo changes go to the mints' change log (docs/onchain.md).
	before, _, beforeErr := loadRegistry(ctx, st)
	if source == "" {
		source = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	changed, err := st.PutRegistryDocument(ctx, storage.RegistryDocument{Source: source, Format: rep.Format, Body: body,
		Hash: hex.EncodeToString(sum[:]), ImportedAt: time.Now().UnixMilli()})
	if err != nil {
		return err
	}
	if changed && beforeErr == nil {
		if after, _, err := loadRegistry(ctx, st); err == nil {
			if ch := onchain.IdentityChanges(before, after, time.Now().UnixMilli(), onchain.SourceRegistry); len(ch) > 0 {
				if err := st.PutMintFacts(ctx, nil, ch); err != nil {
					return fmt.Errorf("registry import: change log: %w", err)
				}
				fmt.Fprintf(c.stderr, "change log: %d symbol, name or logo changes\n", len(ch))
			}
		}
	}
	if changed {
		fmt.Fprintf(c.stdout, "imported %s as source %q: %d assets, %d variants, %d curated members\n", path, source, len(doc.Assets), variants, members)
	} else {
		fmt.Fprintf(c.stdout, "source %q unchanged: nothing to do\n", source)
	}
	return nil
}
