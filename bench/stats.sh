#!/usr/bin/env bash
# bench/stats.sh prints the issue-26 figures as paired ratios with HOLDS /
# DOES NOT HOLD (bench/README.md "stats"): `stats --json` over `tables
# --json` on an N-message capture (target <= 1.3x wall), and the peak RSS
# of `stats --json` at the largest size over the smallest (memory flat in
# the messages: target <= 1.25x). bench/report.sh runs it as its section
# "stats"; it runs on its own too.
#
# Environment: SIZES (messages, default "200000 1000000"; the ratio row is
# at the largest), CONNS (default 64), RUNS (paired runs, default 5), WORK
# (scratch directory; a capture already there is used again).
set -u
cd "$(dirname "$0")/.."
SIZES=${SIZES:-200000 1000000}
CONNS=${CONNS:-64}
RUNS=${RUNS:-5}
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-stats.XXXXXX)}
mkdir -p "$WORK" || exit 1
BIN=$WORK/usmnscope
TIMEV=/usr/bin/time

say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
atmost() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a") print "DOES NOT HOLD"; else if (r + 0 <= t + 0) print "HOLDS"; else print "DOES NOT HOLD" }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# run CMD...: one run, stdout to /dev/null; sets WALL, CPU (s), RSS (KiB).
run() {
	local t0 t1
	t0=$(now)
	"$TIMEV" -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err"
	local st=$?
	t1=$(now)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	CPU=$(tail -1 "$WORK/time" | awk '{ print $2 + $3 }')
	RSS=$(tail -1 "$WORK/time" | awk '{ print $4 }')
	[ $st = 0 ] || say "  (exit $st: $(head -c 200 "$WORK/err"))"
}

if [ ! -x "$TIMEV" ]; then
	say "stats: $TIMEV missing (apt-get install -y time)"
	exit 1
fi
say "== issue 26: stats ($(date -u +%FT%TZ), $(nproc) CPUs, load average $(load), $RUNS paired runs, sizes $SIZES, $CONNS connections)"
CGO_ENABLED=0 go build -o "$BIN" ./cmd/usmnscope || exit 1
declare -A SRSS
last=""
for n in $SIZES; do
	cap=$WORK/scale-$n.pcapng
	[ -f "$cap" ] || "$BIN" gen --scale "$n" --conns "$CONNS" -o "$cap" >/dev/null || exit 1
	say ""
	say "-- $n messages ($(stat -c %s "$cap") bytes; load average $(load))"
	wa=() wb=() ca=() cb=() rb=() pr=() pc=()
	for i in $(seq 1 "$RUNS"); do
		if [ $((i % 2)) = 1 ]; then
			run "$BIN" tables --json "$cap"; wa+=("$WALL") ca+=("$CPU")
			run "$BIN" stats --json "$cap"; wb+=("$WALL") cb+=("$CPU") rb+=("$RSS")
		else
			run "$BIN" stats --json "$cap"; wb+=("$WALL") cb+=("$CPU") rb+=("$RSS")
			run "$BIN" tables --json "$cap"; wa+=("$WALL") ca+=("$CPU")
		fi
		pr+=("$(ratio "${wb[-1]}" "${wa[-1]}")") pc+=("$(ratio "${cb[-1]}" "${ca[-1]}")")
	done
	SRSS[$n]=$(median "${rb[@]}")
	say "$(printf '  %-16s median %7.3f s wall %6.2f s CPU' "tables --json" "$(median "${wa[@]}")" "$(median "${ca[@]}")")"
	say "$(printf '  %-16s median %7.3f s wall %6.2f s CPU  peak RSS %7d KiB' "stats --json" "$(median "${wb[@]}")" "$(median "${cb[@]}")" "${SRSS[$n]}")"
	PAIR=$(median "${pr[@]}") PAIR_CPU=$(median "${pc[@]}")
	say "stats --json / tables --json at $n = ${PAIR}x wall (median of paired ratios; ${PAIR_CPU}x CPU; target <= 1.3x): $(atmost "$PAIR" 1.3)"
	last=$n
done
first=${SIZES%% *}
if [ "$first" != "$last" ]; then
	R=$(ratio "${SRSS[$last]}" "${SRSS[$first]}")
	say "stats --json peak RSS at $last / at $first = ${R}x (${SRSS[$last]} / ${SRSS[$first]} KiB; memory flat in the messages: target <= 1.25x): $(atmost "$R" 1.25)"
fi
