#!/usr/bin/env bash
# bench/coldbuild.sh: how long a fresh clone's first build and first run take
# (docs/build.md). Each run uses a new, empty GOCACHE (the modules stay in
# GOMODCACHE: downloading is not compiling) and prints wall clock, user+sys
# CPU seconds and the load average before and after.
#
#   bash bench/coldbuild.sh build      # go build ./cmd/assetd, cold
#   bash bench/coldbuild.sh packages   # the same with every compile timed; CPU seconds per module
#   bash bench/coldbuild.sh run        # go run ./cmd/assetd serve --demo until /v1/health answers 200
#
# On a shared machine compare the CPU seconds, not the wall clock: CPU/2
# approximates the wall clock of an idle 2-core machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/lib.sh

mode=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOCACHE="$work/gocache"
mkdir -p "$GOCACHE"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
case "$mode" in
build)
	/usr/bin/time -f "go build: wall %e s, user %U s, sys %S s" go build -o "$work/assetd" ./cmd/assetd
	;;
packages)
	# toolexec wrapper: one line per tool run: tool, package, user+sys seconds.
	cat >"$work/tx.sh" <<'TX'
#!/usr/bin/env bash
pkg=- prev=
for a in "$@"; do [ "$prev" = -p ] && pkg=$a; prev=$a; done
/usr/bin/time -f "$(basename "$1") $pkg %U %S" -a -o "$TXLOG" "$@"
TX
	chmod +x "$work/tx.sh"
	export TXLOG="$work/tx.log"
	/usr/bin/time -f "go build: wall %e s, user %U s, sys %S s" go build -toolexec "$work/tx.sh" -o "$work/assetd" ./cmd/assetd
	go list -deps -f '{{.ImportPath}} {{with .Module}}{{.Path}}{{else}}std{{end}}' ./cmd/assetd >"$work/mods"
	echo "CPU seconds of the compiler, assembler and linker per module:"
	awk 'NR==FNR { m[$1] = $2; next }
		NF == 4 { g = ($1 == "link") ? "(link)" : m[$2]; if (g == "") g = ($2 == "main") ? "github.com/assetd/assetd" : "std"
			c[g] += $3 + $4; t += $3 + $4 }
		END { for (g in c) printf "%7.1f %5.1f%%  %s\n", c[g], 100 * c[g] / t, g; printf "%7.1f total\n", t }' \
		"$work/mods" "$TXLOG" | sort -rn | head -20
	;;
run)
	port=$(free_port)
	start=$(date +%s.%N)
	setsid /usr/bin/time -q -f "go run (until stopped): wall %e s, user %U s, sys %S s" -o "$work/time" \
		go run ./cmd/assetd serve --demo --addr "127.0.0.1:$port" --data-dir "$work/data" >"$work/log" 2>&1 &
	pid=$!
	until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health")" = 200 ]; do
		kill -0 "$pid" 2>/dev/null || { cat "$work/log"; echo "assetd exited before answering" >&2; exit 1; }
		sleep 0.5
	done
	echo "first 200 after $(echo "$(date +%s.%N) - $start" | bc) s"
	kill -INT -- "-$pid"
	wait "$pid" || true
	cat "$work/time"
	;;
*)
	echo "usage: $0 build|packages|run" >&2
	exit 2
	;;
esac
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
