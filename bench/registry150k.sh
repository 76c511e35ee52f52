#!/usr/bin/env bash
# bench/registry150k.sh: assetd with a large, VISIBLY SYNTHETIC registry
# (bench/registrygen: syn-NNNNNN ids, SYNNNNNNN symbols, "Synthetic asset N"
# names, generated mints). Prints start to ready, idle CPU, RSS and search
# latency (issue 17 acceptance "With a 150k-asset registry").
#
#   bench/registry150k.sh [-n 150000] [-idle 30] [-warm 10] [-d 20s] [-c 8] [-demo] [-bin PATH]
#
# Without -demo the server runs with no market provider (registry only);
# with -demo it serves the simulated market world over the same registry.
# Figures: "start to ready" is process start to the first /readyz 200
# (polled every 20 ms), in wall time and in the CPU-seconds the process
# used until then; idle CPU is utime+stime from /proc/PID/stat over
# -idle seconds after -warm seconds of warm-up, as CPU-seconds and % of one
# core; RSS is VmRSS (and VmHWM, the peak) from /proc/PID/status; search
# runs bench/load twice: distinct queries (mostly not in the body cache)
# and the curated symbols (cached bodies). The machine's load average is
# printed beside the figures: rerun on a quiet machine for real numbers.
set -euo pipefail

n=150000 idle=30 warm=10 dur=20s conns=8 demo="" bin=""
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;; -idle) idle=$2; shift 2 ;; -warm) warm=$2; shift 2 ;; -d) dur=$2; shift 2 ;;
	-c) conns=$2; shift 2 ;; -bin) bin=$2; shift 2 ;; -demo) demo=--demo; shift ;;
	*) echo "usage: $0 [-n N] [-idle SECONDS] [-warm SECONDS] [-d DUR] [-c CONNS] [-demo] [-bin PATH]" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
work=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$work/assetd" ./cmd/assetd)
	bin=$work/assetd
fi
(cd "$root" && go build -o "$work/load" ./bench/load && go run ./bench/registrygen -n "$n" >"$work/registry.json")
data=$work/data
"$bin" registry import "$work/registry.json" --source synthetic --data-dir "$data" 2>"$work/import.log" || { cat "$work/import.log" >&2; exit 1; }
key=$("$bin" keys create --project bench --scopes assets:read --data-dir "$data" 2>/dev/null)

port=$(free_port)
url=http://127.0.0.1:$port
clk=$(getconf CLK_TCK)
t0=$(date +%s%N)
"$bin" serve $demo --data-dir "$data" --addr "127.0.0.1:$port" --marketdata-b=false --news-feed none \
	--access-log off --rate-limit 1000000000/10s >"$work/serve.log" 2>&1 &
pid=$!
ready=""
for _ in $(seq 3000); do
	if curl -fs -o /dev/null "$url/readyz" 2>/dev/null; then ready=$(date +%s%N); readycpu=$(awk '{print $14+$15}' "/proc/$pid/stat"); break; fi
	kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
	sleep 0.02
done
[ -n "$ready" ] || { echo "not ready after 60 s" >&2; tail "$work/serve.log" >&2; exit 1; }

cpu() { awk '{print $14+$15}' "/proc/$pid/stat"; }
rss() { awk '/^VmRSS/{r=$2} /^VmHWM/{h=$2} END{printf "RSS %d MB (peak %d MB)", r/1024, h/1024}' "/proc/$pid/status"; }

echo "registry: $(grep -o 'registry with this import: [^)]*)' "$work/import.log" || true)"
echo "mode: ${demo:-registry only, no market provider}"
echo "cores: $(nproc); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "start to ready: $(( (ready - t0) / 1000000 )) ms wall, $(awk -v c="$readycpu" -v hz="$clk" 'BEGIN{printf "%.2f", c/hz}') CPU-seconds (the CPU figure is what a busy machine distorts least)"
echo "after ready: $(rss)"
sleep "$warm"
c1=$(cpu); s1=$(date +%s%N)
sleep "$idle"
c2=$(cpu); s2=$(date +%s%N)
awk -v c="$((c2 - c1))" -v hz="$clk" -v ns="$((s2 - s1))" 'BEGIN{s=ns/1e9; printf "idle CPU: %.2f CPU-seconds over %.1f s = %.2f%% of one core\n", c/hz, s, 100*c/hz/s}'
echo "idle: $(rss); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# Distinct queries: synthetic ids, symbols and name fragments of several
# lengths, shuffled, plus short and no-match queries.
awk -v n="$n" 'BEGIN{srand(7); for (i = 0; i < 6000; i++) { k = int(rand()*n); r = rand();
	if (r < .25) q = sprintf("SYN%06d", k); else if (r < .45) q = sprintf("syn%04d", int(k/100));
	else if (r < .65) q = sprintf("Synthetic%%20asset%%20%d", k); else if (r < .75) q = sprintf("asset%%20%d", int(k/10));
	else if (r < .85) q = substr("abcdefghijklmnopqrstuvwxyz", 1+int(rand()*26), 1) substr("abcdefghijklmnopqrstuvwxyz", 1+int(rand()*26), 1);
	else if (r < .95) q = sprintf("wsyn%05d", int(k/10)); else q = sprintf("zzq%d", k);
	printf "/v1/assets/search?q=%s\n", q } }' >"$work/search.paths"
echo "search, distinct queries (-d $dur -c $conns; the load tool shares the machine):"
"$work/load" -url "$url" -key "$key" -paths "$work/search.paths" -d "$dur" -c "$conns" | sed 's/^/  /'
echo "search, curated symbols (cached bodies):"
"$work/load" -url "$url" -key "$key" -scenario search -d "$dur" -c "$conns" | sed 's/^/  /'
echo "after load: $(rss); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
