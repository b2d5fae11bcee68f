#!/usr/bin/env bash
# bench/report.sh regenerates every issue-7 scale figure in one run and
# prints each against its target as a ratio. See bench/README.md.
#
# Environment: N (messages, default 1000000), CONNS (default 64),
# LIVE_COUNT (live load messages, default 2000000), WORK (scratch dir).
set -u
cd "$(dirname "$0")/.."
N=${N:-1000000}
CONNS=${CONNS:-64}
LIVE_COUNT=${LIVE_COUNT:-2000000}
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-bench.XXXXXX)}
BIN=$WORK/usmnscope
CAP=$WORK/scale.pcapng
OUT=$WORK/out.txt # command output goes here (never /dev/null as an output file)
TIMEV=/usr/bin/time

say() { printf '%s\n' "$*"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
# measure NAME CMD...: runs CMD under /usr/bin/time -v with stdout to $OUT and
# sets WALL and CPU (user + system seconds) and RSS (KiB). CPU time is
# printed too because wall time is only meaningful on an idle machine.
measure() {
	local name=$1
	shift
	"$TIMEV" -v "$@" >"$OUT" 2>"$WORK/$name.time"
	WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$WORK/$name.time")
	RSS=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/$name.time")
	CPU=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$WORK/$name.time")
	say "$(printf '%-28s %8.2f s wall %8.2f s CPU  peak RSS %8d KiB' "$name" "$WALL" "$CPU" "$RSS")"
}
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a") print "n/a"; else if (r + 0 >= t + 0) print "HOLDS"; else print "DOES NOT HOLD" }'; }

if [ ! -x "$TIMEV" ]; then
	say "bench-report: $TIMEV missing (apt-get install -y time)"
	exit 1
fi
say "== usmnscope scale report ($(date -u +%FT%TZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), N=$N messages, $CONNS connections)"
CGO_ENABLED=0 go build -o "$BIN" ./cmd/usmnscope || exit 1
"$BIN" gen --scale "$N" --conns "$CONNS" -o "$CAP" || exit 1
say "capture: $CAP ($(stat -c %s "$CAP") bytes)"

say ""
say "== end to end (stdout to a file)"
measure "usmnscope tables --json" "$BIN" tables --json "$CAP"
T_TABLES=$WALL C_TABLES=$CPU
measure "usmnscope dump --json" "$BIN" dump --json "$CAP"
T_DUMP=$WALL C_DUMP=$CPU
if command -v tshark >/dev/null 2>&1; then
	measure "tshark -r" tshark -r "$CAP"
	T_TSHARK=$WALL C_TSHARK=$CPU
	R=$(ratio "$T_TSHARK" "$T_TABLES")
	say "ratio tshark / tables --json = ${R}x wall, $(ratio "$C_TSHARK" "$C_TABLES")x CPU (target >= 20x): $(verdict "$R" 20)"
	R=$(ratio "$T_TSHARK" "$T_DUMP")
	say "ratio tshark / dump --json   = ${R}x wall, $(ratio "$C_TSHARK" "$C_DUMP")x CPU (target >= 5x): $(verdict "$R" 5)"
else
	say "tshark not installed: tshark ratios skipped"
fi

say ""
say "== TUI resident memory (usmnscope open in a detached tmux, VmHWM after loading)"
# tui_hwm CAPTURE: opens CAPTURE in the TUI, waits until the capture has
# loaded (the CPU time stops growing), reads VmHWM and quits with q.
tui_hwm() {
	local s=usmnscope-bench-$$ pid prev=-1 cur i
	tmux new-session -d -s "$s" -x 160 -y 48 "exec $BIN open $1" || return 1
	pid=$(tmux display-message -p -t "$s" '#{pane_pid}')
	for i in $(seq 1 600); do
		sleep 0.5
		cur=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || break
		[ "$cur" = "$prev" ] && break
		prev=$cur
	done
	HWM=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
	tmux send-keys -t "$s" q
	sleep 0.5
	tmux kill-session -t "$s" 2>/dev/null
	true
}
if command -v tmux >/dev/null 2>&1; then
	tui_hwm fixtures/captures/usmn-basic.pcapng
	BASE=$HWM
	tui_hwm "$CAP"
	BIG=$HWM
	PER=$(awk -v b="$BIG" -v a="$BASE" -v n="$N" 'BEGIN { printf "%.1f", (b - a) * 1024 / n }')
	say "VmHWM 22-message capture (the constant): $BASE KiB; $N messages: $BIG KiB"
	say "bytes per message = $PER (target <= 64): ratio target/actual = $(ratio 64 "$PER")x: $(verdict "$(ratio 64 "$PER")" 1)"
	measure "dump (text, no TUI)" "$BIN" dump "$CAP"
else
	say "tmux not installed: TUI memory skipped"
fi

say ""
say "== TUI benchmarks on the decoded $N-message capture"
USMNSCOPE_SCALE_CAPTURE=$CAP go test -run '^$' -bench 'ScaleTUI' -benchtime 50x ./cmd/usmnscope | grep '^Benchmark' | tee "$WORK/tui.bench"
awk '/ScaleTUIOpen/ { printf "first frame %.1f ms (target <= 100 ms): ratio %.1fx: %s\n", $3 / 1e6, 100e6 / $3, ($3 <= 100e6 ? "HOLDS" : "DOES NOT HOLD") }
     /ScaleTUIKey/  { printf "selection move %.1f ms (target <= 16 ms): ratio %.1fx: %s\n", $3 / 1e6, 16e6 / $3, ($3 <= 16e6 ? "HOLDS" : "DOES NOT HOLD") }' "$WORK/tui.bench"

say ""
say "== live on lo: simulate --full-speed against live -i lo"
if [ "$(id -u)" != 0 ] || ! command -v tmux >/dev/null 2>&1; then
	say "needs root and tmux: live skipped"
	exit 0
fi
# live_run AUTOCORK: runs live in tmux, plays LIVE_COUNT load messages and
# samples live's status bar (pkt/s, drops) every half second.
live_run() {
	local s=usmnscope-live-$$ start end max=0 drops=0 line p d
	sysctl -q -w net.ipv4.tcp_autocorking="$1"
	tmux new-session -d -s "$s" -x 200 -y 50 "exec $BIN live -i lo"
	sleep 2
	start=$(date +%s.%N)
	"$BIN" simulate --full-speed --conns 4 --count "$LIVE_COUNT" >"$WORK/sim.out" 2>&1 &
	local sim=$!
	while kill -0 "$sim" 2>/dev/null; do
		sleep 0.5
		line=$(tmux capture-pane -p -t "$s" | grep -o '[0-9]* pkt/s.*[0-9]* drops' | tail -1)
		p=$(printf '%s' "$line" | awk '{ print $1 + 0 }')
		d=$(printf '%s' "$line" | grep -o '[0-9]* drops' | awk '{ print $1 + 0 }')
		[ "${p:-0}" -gt "$max" ] && max=$p
		[ "${d:-0}" -gt "$drops" ] && drops=$d
	done
	wait "$sim"
	end=$(date +%s.%N)
	sleep 1.5
	line=$(tmux capture-pane -p -t "$s" | grep -o '[0-9]* drops' | tail -1)
	d=$(printf '%s' "$line" | awk '{ print $1 + 0 }')
	[ "${d:-0}" -gt "$drops" ] && drops=$d
	tmux send-keys -t "$s" q
	sleep 0.5
	tmux kill-session -t "$s" 2>/dev/null
	local secs
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
	say "$(printf 'autocorking=%s: %d messages in %.2f s = %.0f msg/s; peak %d pkt/s (live status bar); %d kernel drops' "$1" "$LIVE_COUNT" "$secs" "$(awk -v n="$LIVE_COUNT" -v s="$secs" 'BEGIN { print n / s }')" "$max" "$drops")"
	say "  pkt/s ratio to the 200000 target = $(ratio "$max" 200000)x: $(verdict "$(ratio "$max" 200000)" 1)$([ "$drops" -gt 0 ] && echo ' (with drops)')"
}
OLD_CORK=$(sysctl -n net.ipv4.tcp_autocorking 2>/dev/null || echo 1)
live_run 1
live_run 0
sysctl -q -w net.ipv4.tcp_autocorking="$OLD_CORK"
