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
# size, wall <= 1.5x and peak RSS < 96 MiB).
set -u
cd "$(dirname "$0")/.."
SIZES=${SIZES:-200000 1000000 4000000}
CONNS=${CONNS:-64}
RUNS=${RUNS:-5}
MID=${MID:-1000000}
TUI_TIMEOUT=${TUI_TIMEOUT:-300}
ROWS=${ROWS:-floor dump at rss tui export}
AT=${AT:-1000}
row() { case " $ROWS " in *" $1 "*) return 0 ;; esac; return 1; }
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-floor.XXXXXX)}
mkdir -p "$WORK" || exit 1
BIN=$WORK/usmnscope
FLOOR=$WORK/floor
TIMEV=/usr/bin/time

say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
# atmost R T: HOLDS when ratio R <= T
atmost() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a") print "DOES NOT HOLD"; else if (r + 0 <= t + 0) print "HOLDS"; else print "DOES NOT HOLD" }'; }
# run CMD...: one run, stdout to /dev/null; sets WALL, CPU (s) and RSS (KiB)
# (wall from the shell's clock in ns: time's %e has 10 ms steps).
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
load() { cut -d' ' -f1-3 /proc/loadavg; }

# pair NAME_A NAME_B -- CMD_A... -- CMD_B...: RUNS paired runs, the order
# alternating; sets MED_A, MED_B (median wall), CPU_A, CPU_B (median CPU),
# RSS_A, RSS_B (median peak RSS, KiB), PAIR (median of the per-pair wall
# ratios B/A) and PAIR_CPU.
pair() {
	local na=$1 nb=$2
	shift 3
	local a=() b=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	local wa=() wb=() ca=() cb=() ra=() rb=() pr=() pc=() i
	for i in $(seq 1 "$RUNS"); do
		if [ $((i % 2)) = 1 ]; then
			run "${a[@]}"; wa+=("$WALL") ca+=("$CPU") ra+=("$RSS")
			run "${b[@]}"; wb+=("$WALL") cb+=("$CPU") rb+=("$RSS")
		else
			run "${b[@]}"; wb+=("$WALL") cb+=("$CPU") rb+=("$RSS")
			run "${a[@]}"; wa+=("$WALL") ca+=("$CPU") ra+=("$RSS")
		fi
		pr+=("$(ratio "${wb[-1]}" "${wa[-1]}")") pc+=("$(ratio "${cb[-1]}" "${ca[-1]}")")
	done
	MED_A=$(median "${wa[@]}") MED_B=$(median "${wb[@]}")
	CPU_A=$(median "${ca[@]}") CPU_B=$(median "${cb[@]}")
	RSS_A=$(median "${ra[@]}") RSS_B=$(median "${rb[@]}")
	PAIR=$(median "${pr[@]}") PAIR_CPU=$(median "${pc[@]}")
	say "$(printf '  %-22s median %7.3f s wall %6.2f s CPU  peak RSS %7d KiB' "$na" "$MED_A" "$CPU_A" "$RSS_A")"
	say "$(printf '  %-22s median %7.3f s wall %6.2f s CPU  peak RSS %7d KiB' "$nb" "$MED_B" "$CPU_B" "$RSS_B")"
}

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
		if [ "$n" = "$MID" ] && row dump; then
			say "dump --json / tables --json at $n = ${PAIR}x wall (${PAIR_CPU}x CPU; target <= 2x): $(atmost "$PAIR" 2)"
		fi
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
say "-- TUI full load of $MID messages against tables --json (usmnscope open in a detached 160x48 tmux, timed from starting tmux until the status bar no longer says loading, polled every 0.05 s)"
if ! command -v tmux >/dev/null 2>&1 || [ ! -f "$cap" ]; then
	say "tmux not installed or no $MID-message capture: TUI load / tables --json: DOES NOT HOLD (not measured)"
else
	# tui_load FILE: sets TUI_WALL (s, -1 when it did not finish) and TUI_CPU.
	tui_load() {
		local sock=usmnscope-floor-$$ pid t0 line
		TUI_WALL=-1 TUI_CPU=n/a
		t0=$(now)
		tmux -L "$sock" new-session -d -s floor -x 160 -y 48 "exec $BIN open $1" || return
		pid=$(tmux -L "$sock" display-message -p -t floor '#{pane_pid}')
		while :; do
			sleep 0.05
			line=$(tmux -L "$sock" capture-pane -p -t floor 2>/dev/null | grep ' msgs │' | tail -1) || break
			# Loaded: the bar says no loading, counts some messages, and
			# the TUI still runs (a run once read 0.13 s: a bar taken for
			# loaded that was not the loaded TUI's).
			if [ -n "$line" ] && ! printf '%s' "$line" | grep -q loading &&
				printf '%s' "$line" | grep -q '│ [1-9][0-9]* msgs │' && kill -0 "$pid" 2>/dev/null; then
				TUI_WALL=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
				break
			fi
			awk -v a="$t0" -v b="$(now)" -v t="$TUI_TIMEOUT" 'BEGIN { exit !(b - a > t) }' && break
		done
		TUI_CPU=$(awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$pid/stat" 2>/dev/null)
		local path
		path=$(tmux -L "$sock" display-message -p '#{socket_path}' 2>/dev/null)
		tmux -L "$sock" kill-server 2>/dev/null
		[ -n "$path" ] && rm -f "$path"
	}
	tw=() tc=() pw=() pc=()
	for i in $(seq 1 "$RUNS"); do
		run "$BIN" tables --json "$cap"
		tui_load "$cap"
		tw+=("$TUI_WALL") tc+=("$TUI_CPU")
		pw+=("$(ratio "$TUI_WALL" "$WALL")") pc+=("$(ratio "$TUI_CPU" "$CPU")")
	done
	r=$(median "${pw[@]}")
	say "  TUI load runs (s): ${tw[*]}; their ratios: ${pw[*]}"
	say "  TUI load median $(median "${tw[@]}") s wall, $(median "${tc[@]}") s CPU (the CPU includes the first frame and idling until polled)"
	say "TUI full load of $MID / tables --json = ${r}x wall ($(median "${pc[@]}")x CPU; target <= 2x): $(atmost "$r" 2)"
fi
fi
[ -n "${KEEP:-}" ] || rm -f "$cap"
say ""
say "== load average at the end: $(load)"
