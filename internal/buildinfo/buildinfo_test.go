package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/assetd/assetd", Version: "v0.0.0-20261127113319-507506b1c2d3+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "507506b1c2d3e4f5"},
			{Key: "vcs.time", Value: "2026-11-27T11:33:19Z"}, {Key: "vcs.modified", Value: "true"}}}
	in := FromBuildInfo(bi)
	want := Info{Version: "v0.0.0-20261127113319-507506b1c2d3+dirty", Revision: "507506b1c2d3e4f5", Time: "2026-11-27T11:33:19Z", Modified: true, GoVersion: "go1.26.8"}
	if in != want {
		t.Fatalf("FromBuildInfo = %+v, want %+v", in, want)
	}
	s := in.String()
	for _, part := range []string{"assetd v0.0.0-20261127113319-507506b1c2d3+dirty", "revision 507506b1c2d3e4f5 with uncommitted changes", "committed 2026-11-27T11:33:19Z", "go1.26.8"} {
		if !strings.Contains(s, part) {
			t.Errorf("String() = %q lacks %q", s, part)
		}
	}
	// go run / go test: no VCS settings, version (devel).
	bare := FromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8"})
	if bare.Version != Devel || bare.Revision != "" || !strings.Contains(bare.String(), "no VCS revision stamped") {
		t.Fatalf("bare build: %+v %q", bare, bare.String())
	}
}
