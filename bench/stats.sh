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

. ./bench/lib.sh

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
	pair "tables --json" "stats --json" -- "$BIN" tables --json "$cap" -- "$BIN" stats --json "$cap"
	SRSS[$n]=$RSS_B
	say "stats --json / tables --json at $n = ${PAIR}x wall (median of paired ratios; ${PAIR_CPU}x CPU; target <= 1.3x): $(atmost "$PAIR" 1.3)"
	last=$n
done
first=${SIZES%% *}
if [ "$first" != "$last" ]; then
	R=$(ratio "${SRSS[$last]}" "${SRSS[$first]}")
	say "stats --json peak RSS at $last / at $first = ${R}x (${SRSS[$last]} / ${SRSS[$first]} KiB; memory flat in the messages: target <= 1.25x): $(atmost "$R" 1.25)"
fi
