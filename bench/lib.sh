# bench/lib.sh: the paired-run helpers the bench scripts share (sourced,
# not run): say, now, load, median, ratio, atmost, atleast, run, pair and
# tui_load (which reads TUI_TIMEOUT, default 600 s).
# A script that sources it sets WORK (a scratch directory for run's
# files) and TIMEV (/usr/bin/time) first, and RUNS for pair.

say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
# atmost R T: HOLDS when ratio R <= T
atmost() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a") print "DOES NOT HOLD"; else if (r + 0 <= t + 0) print "HOLDS"; else print "DOES NOT HOLD" }'; }
# atleast R T: HOLDS when ratio R >= T
atleast() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a") print "DOES NOT HOLD"; else if (r + 0 >= t + 0) print "HOLDS"; else print "DOES NOT HOLD" }'; }
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

# pair NAME_A NAME_B -- CMD_A... -- CMD_B...: RUNS paired runs, the order
# alternating; sets MED_A, MED_B (median wall), CPU_A, CPU_B (median CPU),
# RSS_A, RSS_B (median peak RSS, KiB), PAIR (median of the per-pair wall
# ratios B/A) and PAIR_CPU, and prints both commands' medians.
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

# uptime_cs: centiseconds since boot (/proc/uptime, the clock a process's
# start time in /proc/PID/stat is on) into UP_CS, read by the shell
# itself: tui_load's poll starts no process.
uptime_cs() {
	local up
	read -r up _ </proc/uptime
	UP_CS=$((10#${up%.*} * 100 + 10#${up#*.}))
}

# tui_cc CMD: sends CMD to tui_load's control-mode client (tmux -C) and
# reads its answer (the lines between %begin and %end) into CC_LINES;
# fails when the client is gone or says nothing for 5 s.
tui_cc() {
	local line in=0
	CC_LINES=()
	printf '%s\n' "$1" 2>/dev/null >&"$CC_IN" || return 1
	while IFS= read -r -t 5 -u "$CC_OUT" line; do
		case $line in
		"%begin "*) in=1 ;;
		"%end "* | "%error "*) [ $in = 1 ] && return 0 ;;
		*) [ $in = 1 ] && CC_LINES+=("$line") ;;
		esac
	done
	return 1
}

# tui_load FILE: opens FILE in the TUI in a detached 300x48 tmux session
# (wide, so the status bar is never cut short with "…" before its
# "loading"; a bar that is cut short counts as still loading)
# on a private server and waits until the status bar shows the capture
# loaded: its line with "N msgs │" (or "1 msg │") no longer says
# "loading", and the TUI still runs (a bar read once as loaded was not
# the loaded TUI's). It polls every 0.02 s. It sets TUI_WALL (s, -1 when
# it did not finish), TUI_HWM (KiB), TUI_CPU (s) and TUI_STATUS (the last
# status line), then quits with q.
# TUI_WALL runs from the usmnscope process's own start (field 22 of
# /proc/PID/stat, which exec keeps) to the poll that saw it loaded, both
# on /proc/uptime's clock: the time tmux's server takes to start is not
# the TUI's, as a user's terminal is already running.
# The poll starts no process: one control-mode client (tmux -C, its pane
# output off) asks for the pane's text, the shell's own read waits the
# 0.02 s, and the shell's builtins test the line. A poll that ran tmux,
# grep and awk 50 times a second (some 400 processes a second) took a
# share of the two cores from the TUI it timed.
tui_load() {
	local sock=usmnscope-tui-$$ pid t0 st line path l tick deadline
	TUI_WALL=-1 TUI_HWM=? TUI_CPU=? TUI_STATUS=""
	tmux -L "$sock" new-session -d -s tui -x 300 -y 48 "exec $BIN open $1" || return 1
	path=${TMUX_TMPDIR:-/tmp}/tmux-$UID/$sock # tmux -L's socket, also when the server is gone
	tmux -L "$sock" set-option -g window-size manual >/dev/null 2>&1 # the client below keeps 300x48
	pid=$(tmux -L "$sock" display-message -p -t tui '#{pane_pid}' 2>/dev/null)
	read -r st 2>/dev/null </proc/"${pid:-0}"/stat
	st=${st##*) }
	set -- $st
	if [ -n "${20:-}" ]; then
		t0=$((${20} * 100 / $(getconf CLK_TCK)))
	else
		uptime_cs
		t0=$UP_CS
	fi
	deadline=$((t0 + ${TUI_TIMEOUT:-600} * 100))
	coproc TUI_CC { exec tmux -L "$sock" -C attach -t tui 2>&1; }
	CC_IN=${TUI_CC[1]} CC_OUT=${TUI_CC[0]}
	exec {tick}<> <(:) # never written: a read on it waits out its -t
	tui_cc "refresh-client -f no-output"
	while :; do
		read -r -t 0.02 -u "$tick" _
		tui_cc "capture-pane -p -t tui" || {
			TUI_STATUS="the TUI exited before it finished loading"
			break
		}
		line=""
		for l in "${CC_LINES[@]}"; do
			[[ $l =~ \ msgs?\ │ ]] && line=$l
		done
		[ -n "$line" ] && TUI_STATUS=$line
		if [ -n "$line" ] && [[ $line != *loading* && $line != *…* ]] && [ -d /proc/"$pid" ]; then
			uptime_cs
			TUI_WALL=$(((UP_CS - t0) / 100)).$(printf '%02d' $(((UP_CS - t0) % 100)))
			break
		fi
		uptime_cs
		if [ "$UP_CS" -gt "$deadline" ]; then
			TUI_STATUS="still loading after ${TUI_TIMEOUT:-600} s: $TUI_STATUS"
			break
		fi
	done
	exec {tick}<&-
	TUI_HWM=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	TUI_CPU=$(awk -v t="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$pid/stat" 2>/dev/null)
	tmux -L "$sock" send-keys -t tui q 2>/dev/null
	sleep 0.5
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "${TUI_CC_PID:-}" ] && wait "$TUI_CC_PID" 2>/dev/null
	[ -n "$path" ] && rm -f "$path" # the private server's socket file
	true
}
