#!/usr/bin/env bash
# bench/ulinkrpc.sh prints issue 15's performance must-hold as a paired
# ratio with HOLDS / DOES NOT HOLD (bench/README.md "ULinkRPC at scale"):
# on a generated RPC_N-frame ULinkRPC capture (`gen --scale N --protocol
# ulinkrpc`), `usmnscope tables --json F > /dev/null` at least 20x faster
# than tshark's plain pass `tshark -n -r F > /dev/null`. bench/report.sh
# runs it as its section "ulinkrpc"; it runs on its own too. Issue 28's
# rows follow (ROWS28=0 skips them): dump --json against tshark and
# tables --json, the TUI's full load against tables --json and its
# resident bytes a frame.
#
# Environment: RPC_N (frames, default 1000000), RPC_CONNS (default 32),
# RPC_TRANSPORT (tcp, websocket or kcp; default tcp), RUNS (paired runs,
# default 5), WORK (scratch directory; the capture is generated once and
# kept there, so a second run over the same WORK reuses it).
set -u
cd "$(dirname "$0")/.."
RPC_N=${RPC_N:-1000000}
RPC_CONNS=${RPC_CONNS:-32}
RPC_TRANSPORT=${RPC_TRANSPORT:-tcp}
RUNS=${RUNS:-5}
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-ulinkrpc.XXXXXX)}
mkdir -p "$WORK" || exit 1
BIN=$WORK/usmnscope
CAP=$WORK/ulinkrpc-$RPC_TRANSPORT-$RPC_N-$RPC_CONNS.pcapng
TIMEV=/usr/bin/time
TARGET=20

say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
# atleast R T: HOLDS when ratio R >= T
atleast() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a") print "DOES NOT HOLD"; else if (r + 0 >= t + 0) print "HOLDS"; else print "DOES NOT HOLD" }'; }
# run CMD...: one run, stdout to /dev/null (a shell redirection, as the
# figure is defined); sets WALL (s, from the shell's clock), CPU (user +
# system s) and RSS (KiB) from /usr/bin/time; OK=0 when it failed.
run() {
	local t0 t1 st
	t0=$(now)
	"$TIMEV" -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err"
	st=$?
	t1=$(now)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	CPU=$(tail -1 "$WORK/time" | awk '{ print $2 + $3 }')
	RSS=$(tail -1 "$WORK/time" | awk '{ print $4 }')
	OK=1
	if [ $st != 0 ]; then
		OK=0
		say "  (exit $st: $(grep -v '^Running as user' "$WORK/err" | head -c 200))"
	fi
}

say "== issue 15: ULinkRPC at scale ($(date -u +%FT%TZ), $(nproc) CPUs, load average $(load), $RUNS paired runs, $RPC_N frames over $RPC_CONNS $RPC_TRANSPORT connections)"
if [ ! -x "$TIMEV" ]; then
	say "ulinkrpc: $TIMEV missing (apt-get install -y time)"
	exit 1
fi
if ! command -v tshark >/dev/null 2>&1; then
	say "tshark not installed: tables --json / tshark -n -r: DOES NOT HOLD (not measured)"
	exit 0
fi
CGO_ENABLED=0 go build -o "$BIN" ./cmd/usmnscope || exit 1
if [ ! -f "$CAP" ]; then
	"$BIN" gen --scale "$RPC_N" --conns "$RPC_CONNS" --protocol ulinkrpc --transport "$RPC_TRANSPORT" -o "$CAP.tmp" >/dev/null && mv "$CAP.tmp" "$CAP" || exit 1
fi
say "capture: $CAP ($(stat -c %s "$CAP") bytes)"

# RUNS pairs, the order alternating so that neither command always runs
# on a warmer cache; the verdict is the median of the per-pair ratios.
tw=() tc=() uw=() uc=() ur=() pr=() pc=() bad=0
for i in $(seq 1 "$RUNS"); do
	if [ $((i % 2)) = 1 ]; then
		run tshark -n -r "$CAP"; tw+=("$WALL") tc+=("$CPU") tok=$OK
		run "$BIN" tables --json "$CAP"; uw+=("$WALL") uc+=("$CPU") ur+=("$RSS") uok=$OK
	else
		run "$BIN" tables --json "$CAP"; uw+=("$WALL") uc+=("$CPU") ur+=("$RSS") uok=$OK
		run tshark -n -r "$CAP"; tw+=("$WALL") tc+=("$CPU") tok=$OK
	fi
	[ "$tok$uok" = 11 ] || bad=1
	pr+=("$(ratio "${tw[-1]}" "${uw[-1]}")") pc+=("$(ratio "${tc[-1]}" "${uc[-1]}")")
	say "  pair $i: tshark -n -r ${tw[-1]} s, tables --json ${uw[-1]} s: ${pr[-1]}x wall (${pc[-1]}x CPU)"
done
R=$(median "${pr[@]}")
[ $bad = 0 ] || R=n/a
say "$(printf '  %-24s median %7.3f s wall %6.2f s CPU' "tshark -n -r" "$(median "${tw[@]}")" "$(median "${tc[@]}")")"
say "$(printf '  %-24s median %7.3f s wall %6.2f s CPU  peak RSS %7d KiB' "usmnscope tables --json" "$(median "${uw[@]}")" "$(median "${uc[@]}")" "$(median "${ur[@]}")")"
say "tshark -n -r / tables --json on $RPC_N ULinkRPC frames = ${R}x wall (median of paired ratios; $(median "${pc[@]}")x CPU; target >= ${TARGET}x): $(atleast "$R" "$TARGET")"

# Issue 28's ULinkRPC rows on the same capture (ROWS28=0 skips them):
# dump --json against tshark's plain pass (>= 15x) and against tables
# --json (<= 2x), paired; the TUI's full load (bench/lib.sh tui_load: the
# status bar no longer says loading) against tables --json's median
# (<= 1.5x) and its resident memory a frame, VmHWM over that of a
# 12-frame fixture (<= 96 B).
if [ "${ROWS28:-1}" = 1 ]; then
	. bench/lib.sh # pair and tui_load (its run replaces this script's)
	say "-- issue 28 rows ($RPC_TRANSPORT, $RPC_N frames, load average $(load))"
	pair "dump --json" "tshark -n -r" -- "$BIN" dump --json "$CAP" -- tshark -n -r "$CAP"
	say "tshark -n -r / dump --json on $RPC_N ULinkRPC $RPC_TRANSPORT frames = ${PAIR}x wall (median of paired ratios; ${PAIR_CPU}x CPU; target >= 15x): $(atleast "$PAIR" 15)"
	pair "tables --json" "dump --json" -- "$BIN" tables --json "$CAP" -- "$BIN" dump --json "$CAP"
	say "dump --json / tables --json on $RPC_N ULinkRPC $RPC_TRANSPORT frames = ${PAIR}x wall (median of paired ratios; ${PAIR_CPU}x CPU; target <= 2x): $(atmost "$PAIR" 2)"
	if command -v tmux >/dev/null 2>&1; then
		# the 12-frame fixture's VmHWM (the runtime's and the TUI's own
		# share, which swings by 2 MB from load to load): a median of 3
		sh=()
		for i in 1 2 3; do
			tui_load fixtures/ulinkrpc/tcp-json.pcapng
			sh+=("$TUI_HWM")
		done
		SMALL_HWM=$(median "${sh[@]}")
		# RUNS loads, each paired with a tables --json run just before it
		tw=() tc=() th=() pw=() pc=()
		for i in $(seq 1 "$RUNS"); do
			run "$BIN" tables --json "$CAP"
			tui_load "$CAP"
			tw+=("$TUI_WALL") tc+=("$TUI_CPU") th+=("$TUI_HWM")
			if [ "$TUI_WALL" = -1 ]; then
				pw+=(n/a) pc+=(n/a)
			else
				pw+=("$(ratio "$TUI_WALL" "$WALL")") pc+=("$(ratio "$TUI_CPU" "$CPU")")
			fi
		done
		T=$(median "${pw[@]}") TUI_HWM=$(median "${th[@]}")
		say "  TUI load runs (s): ${tw[*]}; their ratios: ${pw[*]}"
		say "$(printf '  %-22s %7.2f s wall %6s s CPU  VmHWM %7s KiB (12-frame fixture: %s KiB)' "open (TUI full load)" "$(median "${tw[@]}")" "$(median "${tc[@]}")" "$TUI_HWM" "$SMALL_HWM")"
		say "TUI full load / tables --json on $RPC_N ULinkRPC $RPC_TRANSPORT frames = ${T}x wall (median of $RUNS paired ratios, $(median "${pc[@]}")x CPU; from the process's start, polled every 0.02 s; target <= 1.5x): $(atmost "$T" 1.5)"
		PER=$(awk -v b="$TUI_HWM" -v a="$SMALL_HWM" -v n="$RPC_N" 'BEGIN { if (b + 0 > 0) printf "%.1f", (b - a) * 1024 / n; else print "n/a" }')
		say "TUI resident memory a frame on $RPC_N ULinkRPC $RPC_TRANSPORT frames = $PER B (VmHWM over the fixture's; target <= 96 B): $(atmost "$PER" 96)"
	else
		say "tmux not installed: TUI full load / tables --json: DOES NOT HOLD (not measured)"
	fi
fi
say "== load average at the end: $(load)"
