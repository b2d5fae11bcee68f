#!/usr/bin/env bash
# bench/floor.sh prints the issue-18 figures as paired ratios with HOLDS /
# DOES NOT HOLD (bench/README.md "Against the floor"): `tables --json` over
# the floor (bench/floor) at each size, peak RSS of tables --json and dump
# --json at the smallest size against the largest, dump --json over tables
# --json, and the TUI's full load over tables --json. bench/report.sh runs
# it as its section "floor"; it runs on its own too.
#
# Environment: SIZES (messages, default "200000 1000000 4000000"), CONNS
# (default 64), RUNS (paired runs per figure, default 5), MID (the size of
# the dump and TUI figures, default 1000000), WORK (scratch directory),
# TUI_TIMEOUT (default 300 s), KEEP=1 keeps the captures (and a capture
# already in WORK is used again), ROWS (default "floor dump at rss tui"):
# which figures to run: floor (tables --json / floor), dump (dump --json /
# tables --json, and the peak RSS both print), at (tables --at AT, default
# 1000, / tables --json at each size: the cut reads only the beginning),
# rss (the peak RSS rows, from the dump figure's runs), tui, export
# (issue 27: export --format parquet against dump --json at the largest
# size, wall <= 1.5x and peak RSS < 96 MiB), text (issue 28: plain dump
# against dump --json at MID, wall <= 1.5x, and the same bytes as before
# is bench/samebytes.sh's), cores (issue 28: tables --json with both
# cores against GOMAXPROCS=1 at the largest size, wall <= 0.75x; the same
# bytes either way is checked by the row).
set -u
cd "$(dirname "$0")/.."
SIZES=${SIZES:-200000 1000000 4000000}
CONNS=${CONNS:-64}
RUNS=${RUNS:-5}
MID=${MID:-1000000}
TUI_TIMEOUT=${TUI_TIMEOUT:-300}
ROWS=${ROWS:-floor dump text at rss tui export cores}
AT=${AT:-1000}
row() { case " $ROWS " in *" $1 "*) return 0 ;; esac; return 1; }
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-floor.XXXXXX)}
mkdir -p "$WORK" || exit 1
BIN=$WORK/usmnscope
FLOOR=$WORK/floor
TIMEV=/usr/bin/time

. ./bench/lib.sh

say "== issue 18: against the floor ($(date -u +%FT%TZ), $(nproc) CPUs, load average $(load), $RUNS paired runs a figure, sizes $SIZES, $CONNS connections)"
CGO_ENABLED=0 go build -o "$BIN" ./cmd/usmnscope || exit 1
CGO_ENABLED=0 go build -o "$FLOOR" ./bench/floor || exit 1
if [ ! -x "$TIMEV" ]; then
	say "floor: $TIMEV missing (apt-get install -y time)"
	exit 1
fi

declare -A TRSS DRSS ATWALL
for n in $SIZES; do
	cap=$WORK/scale-$n.pcapng
	[ -f "$cap" ] || "$BIN" gen --scale "$n" --conns "$CONNS" -o "$cap" >/dev/null || exit 1
	say ""
	say "-- $n messages ($(stat -c %s "$cap") bytes; load average $(load))"
	if row floor; then
		pair "floor" "tables --json" -- "$FLOOR" "$cap" -- "$BIN" tables --json "$cap"
		TRSS[$n]=$RSS_B
		say "tables --json / floor at $n = ${PAIR}x wall (median of paired ratios; ${PAIR_CPU}x CPU; target <= 4x, aim 3x): $(atmost "$PAIR" 4)"
	fi
	if row dump || row rss; then
		pair "tables --json" "dump --json" -- "$BIN" tables --json "$cap" -- "$BIN" dump --json "$cap"
		TRSS[$n]=$RSS_A DRSS[$n]=$RSS_B
		if { [ "$n" = "$MID" ] || [ "$n" = "${SIZES##* }" ]; } && row dump; then
			say "dump --json / tables --json at $n = ${PAIR}x wall (${PAIR_CPU}x CPU; target <= 1.8x, issue 28): $(atmost "$PAIR" 1.8)"
		fi
	fi
	if row text && [ "$n" = "$MID" ]; then
		# Issue 28: plain dump's lines, written on a second goroutine as
		# dump --json's records are, against dump --json.
		pair "dump --json" "dump" -- "$BIN" dump --json "$cap" -- "$BIN" dump "$cap"
		say "dump / dump --json at $n = ${PAIR}x wall (median of paired ratios; ${PAIR_CPU}x CPU; target <= 1.5x): $(atmost "$PAIR" 1.5)"
	fi
	if row at; then
		# The cut (issue 18): tables --at AT stops reading once message AT
		# is final, so its cost is that of the beginning, not of the file.
		# The verdict is on the largest size, and on the cut's time
		# across the sizes: at the smallest, tables --json itself takes
		# a few times the process's start-up, which the cut pays too.
		pair "tables --json" "tables --at $AT" -- "$BIN" tables --json "$cap" -- "$BIN" tables --json --at "$AT" "$cap"
		ATWALL[$n]=$MED_B PAIR_AT=$PAIR
		say "tables --at $AT / tables --json at $n = ${PAIR}x wall (${PAIR_CPU}x CPU)"
	fi
	if row export && [ "$n" = "${SIZES##* }" ]; then
		# Issue 27: the Parquet export of the largest capture, paired with
		# dump --json (both to standard output, /dev/null here: -o - and
		# a shell redirection, so that nothing can delete /dev/null).
		pair "dump --json" "export parquet" -- "$BIN" dump --json "$cap" -- "$BIN" export --format parquet -o - "$cap"
		v=$(awk -v p="$PAIR" -v r="$RSS_B" 'BEGIN { print (p != "n/a" && p + 0 <= 1.5 && r < 98304) ? "HOLDS" : "DOES NOT HOLD" }')
		say "export --format parquet / dump --json at $n = ${PAIR}x wall (${PAIR_CPU}x CPU), peak RSS $(awk -v r="$RSS_B" 'BEGIN { printf "%.1f", r / 1024 }') MiB (target <= 1.5x and < 96 MiB): $v"
	fi
	if row cores && [ "$n" = "${SIZES##* }" ]; then
		# Issue 28: both cores against one, the same bytes either way.
		pair "tables --json (1 core)" "tables --json" -- env GOMAXPROCS=1 "$BIN" tables --json "$cap" -- "$BIN" tables --json "$cap"
		same=$(cmp -s <(GOMAXPROCS=1 "$BIN" tables --json "$cap") <("$BIN" tables --json "$cap") && echo "same bytes" || echo "OUTPUTS DIFFER")
		v=$(atmost "$PAIR" 0.75)
		[ "$same" = "same bytes" ] || v="DOES NOT HOLD"
		say "tables --json both cores / GOMAXPROCS=1 at $n = ${PAIR}x wall (${PAIR_CPU}x CPU; $same; target <= 0.75x): $v"
	fi
	[ -n "${KEEP:-}" ] || [ "$n" = "$MID" ] || rm -f "$cap"
done

set -- $SIZES
small=$1
eval "large=\${$#}"
if row at; then
	say ""
	say "-- tables --at $AT: the cut reads the capture only until message $AT is final (target: at $large no slower than 1.25x at $small, and <= 0.1x tables --json at $large)"
	r=$(ratio "${ATWALL[$large]}" "${ATWALL[$small]}")
	v=$(awk -v r="$r" -v p="$PAIR_AT" 'BEGIN { print (r != "n/a" && r + 0 <= 1.25 && p != "n/a" && p + 0 <= 0.1) ? "HOLDS" : "DOES NOT HOLD" }')
	say "tables --at $AT: ${ATWALL[$small]} s at $small, ${ATWALL[$large]} s at $large = ${r}x; / tables --json at $large = ${PAIR_AT}x: $v"
fi
row rss || row dump || row floor || set -- # no RSS figures
[ $# = 0 ] || say ""
[ $# = 0 ] || say "-- peak RSS, $small against $large messages (target: $large <= 1.25x $small and < 64 MiB)"
for cmd in tables dump; do
	[ $# = 0 ] && break
	# dump's RSS comes from the dump figure's runs: without them, no row.
	[ $cmd = dump ] && ! row dump && break
	if [ $cmd = tables ]; then s=${TRSS[$small]} l=${TRSS[$large]}; else s=${DRSS[$small]} l=${DRSS[$large]}; fi
	r=$(ratio "$l" "$s")
	v=$(awk -v r="$r" -v l="$l" 'BEGIN { print (r != "n/a" && r + 0 <= 1.25 && l < 65536) ? "HOLDS" : "DOES NOT HOLD" }')
	say "peak RSS $cmd --json: $s KiB at $small, $l KiB at $large = ${r}x, $(awk -v l="$l" 'BEGIN { printf "%.1f", l / 1024 }') MiB: $v"
done

cap=$WORK/scale-$MID.pcapng
if row tui; then
say ""
say "-- TUI full load of $MID messages against tables --json (bench/lib.sh tui_load: usmnscope open in a detached 300x48 tmux, timed from the process's start until the status bar no longer says loading, polled every 0.02 s)"
if ! command -v tmux >/dev/null 2>&1 || [ ! -f "$cap" ]; then
	say "tmux not installed or no $MID-message capture: TUI load / tables --json: DOES NOT HOLD (not measured)"
else
	tw=() tc=() pw=() pc=()
	for i in $(seq 1 "$RUNS"); do
		run "$BIN" tables --json "$cap"
		tui_load "$cap"
		tw+=("$TUI_WALL") tc+=("$TUI_CPU")
		if [ "$TUI_WALL" = -1 ]; then
			pw+=(n/a) pc+=(n/a)
		else
			pw+=("$(ratio "$TUI_WALL" "$WALL")") pc+=("$(ratio "$TUI_CPU" "$CPU")")
		fi
	done
	r=$(median "${pw[@]}")
	say "  TUI load runs (s): ${tw[*]}; their ratios: ${pw[*]}"
	say "  TUI load median $(median "${tw[@]}") s wall, $(median "${tc[@]}") s CPU (the CPU includes the first frame and idling until polled)"
	say "TUI full load of $MID / tables --json = ${r}x wall ($(median "${pc[@]}")x CPU; target <= 1.5x, issue 28): $(atmost "$r" 1.5)"
fi
fi
[ -n "${KEEP:-}" ] || rm -f "$cap"
say ""
say "== load average at the end: $(load)"
