// Package buildinfo reports what the running binary was built from: the
// module version, the VCS revision and commit time the go command stamps
// into it (runtime/debug.ReadBuildInfo), and the Go version.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Info describes a build. Fields the go command did not stamp are empty
// (`go run` and `go test` stamp no VCS data; `go build` in a git checkout
// does).
type Info struct {
	// Version is the main module's version: a tag (v1.2.3), a
	// pseudo-version derived from the commit (v0.0.0-20261127113319-
	// 507506b1c2d3, +dirty with local changes) or "(devel)".
	Version string `json:"version"`
	// Revision is the VCS commit (vcs.revision); Time its commit time
	// (vcs.time, RFC 3339, UTC); Modified that the work tree had
	// uncommitted changes (vcs.modified).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
}

// Devel is the version of a build without module version information.
const Devel = "(devel)"

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: Devel}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts Info from bi.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if in.Version == "" {
		in.Version = Devel
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one-line form `assetd version` prints, e.g.
// "assetd v0.0.0-20261127113319-507506b1c2d3 (revision 507506b1c2d3…, committed 2026-11-27T11:33:19Z, go1.26.8)".
func (in Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "assetd %s", in.Version)
	var parts []string
	if in.Revision != "" {
		rev := "revision " + in.Revision
		if in.Modified {
			rev += " with uncommitted changes"
		}
		parts = append(parts, rev)
	} else {
		parts = append(parts, "no VCS revision stamped (built by go run or go test, outside a git checkout, or with -buildvcs=false)")
	}
	if in.Time != "" {
		parts = append(parts, "committed "+in.Time)
	}
	if in.GoVersion != "" {
		parts = append(parts, in.GoVersion)
	}
	fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	return b.String()
}
