#!/usr/bin/env bash
# bench/attack.sh builds each hostile capture shape of issue 17 ("Bounded
# under attack") at the issue's size, runs `dump --json` and
# `tables --json` on each under /usr/bin/time -v (default limits, stdout
# on /dev/null) and prints wall time and peak RSS against the 160 MB
# target; then times the TUI's load of the 400k-cycle zero-length shape
# against `dump`'s (target: at most 2x). See bench/README.md.
#
# Issue 29 adds the ULinkRPC shapes (a gzip bomb, partial frames on 8 TCP
# connections, held KCP segments on 6 flows), each also measured in text
# dump and the TUI's load, and two hostile schema files, which must be an
# error (exit 1) within 1 s of CPU and 64 MB, as a schema and as a profile.
#
# Environment: SMALL=1 (every size / 100: a quick run), SHAPES (default
# "zero gaps a2s ifaces udp partial gzip frag rpcgzip rpcgzipcap rpcpartial
# rpckcp config configkey"), SECTIONS (default
# "shapes tui"), WORK (scratch dir, default a new /tmp/usmnscope-attack.*),
# CAP_MB (default 160), TIMEOUT (seconds per command, default 900),
# TUI_TIMEOUT (default 600), KEEP=1 (keep the capture files; by default
# each is deleted once measured), and per-shape sizes N_ZERO N_GAPS N_A2S
# N_IFACES N_UDP N_PARTIAL N_GZIP N_FRAG TUI_CYCLES.
set -u
cd "$(dirname "$0")/.."
S=1
[ -n "${SMALL:-}" ] && [ "${SMALL:-0}" != 0 ] && S=100
N_ZERO=${N_ZERO:-$((10000 / S))}         # client packets of 100 cycles (1M cycles)
N_GAPS=${N_GAPS:-$((1000000 / S))}       # 6-byte packets, each past a 1-byte hole
N_A2S=${N_A2S:-$((1000000 / S))}         # A2S_INFO replies, names alternating
N_IFACES=${N_IFACES:-$((1000000 / S))}   # pcapng interfaces, a packet each
N_UDP=${N_UDP:-$((3000000 / S))}         # distinct UDP peers of port 27016
N_PARTIAL=${N_PARTIAL:-$((10000 / S))}   # flows, each a 65,000-byte partial frame a side
N_GZIP=${N_GZIP:-$((800 / S))}           # packets of 21,000 1-byte messages, gzipped
N_FRAG=${N_FRAG:-$((10000 / S))}         # fragmented segments of 100 messages
# issue 29's ULinkRPC and config shapes (SMALL: the smallest that still
# shows the shape)
N_RPCGZIP=${N_RPCGZIP:-$(( S == 1 ? 6 : 1 ))}       # frames of a gzipped 64 MiB envelope
N_RPCGZIPCAP=${N_RPCGZIPCAP:-$(( S == 1 ? 2048 : 64 ))} # frames each inflating to just under the 1 MiB display cap
N_RPCPARTIAL=${N_RPCPARTIAL:-$(( S == 1 ? 40 : 1 ))} # MiB of partial frame on each of 8 TCP flows
N_RPCKCP=${N_RPCKCP:-$(( S == 1 ? 60 : 2 ))}         # MiB of held KCP segments on each of 6 UDP flows
N_CONFIG=${N_CONFIG:-60000}                          # bytes of one nested inline table in a schema
N_CONFIGKEY=${N_CONFIGKEY:-400000}                   # bytes of one dotted key in a schema
TUI_CYCLES=${TUI_CYCLES:-$((400000 / S))} # zero-length cycles for the TUI load
SHAPES=${SHAPES:-zero gaps a2s ifaces udp partial gzip frag rpcgzip rpcgzipcap rpcpartial rpckcp config configkey}
SECTIONS=${SECTIONS:-shapes tui}
CAP_MB=${CAP_MB:-160}
TIMEOUT=${TIMEOUT:-900}
TUI_TIMEOUT=${TUI_TIMEOUT:-600}
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-attack.XXXXXX)}
BIN=$WORK/usmnscope # a copy of bin/usmnscope: others may rebuild bin/ during the run
GEN=$WORK/shapes
TIMEV=/usr/bin/time
INDEX_BYTES=36 # the per-message index record issue 17 allows on top, until streaming lands

. bench/lib.sh # tui_load; the helpers below are attack.sh's own
say() { printf '%s\n' "$*"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
now() { date +%s.%N; }
HOLD=0 FAIL=0 FAILS=""
# tally VERDICT LABEL: counts a verdict for the summary.
tally() {
	if [ "$1" = HOLDS ]; then
		HOLD=$((HOLD + 1))
	else
		FAIL=$((FAIL + 1))
		FAILS="$FAILS
  $2"
	fi
}

if [ ! -x "$TIMEV" ]; then
	say "bench-attack: $TIMEV missing (apt-get install -y time)"
	exit 1
fi
command -v timeout >/dev/null 2>&1 || {
	say "bench-attack: timeout missing (coreutils)"
	exit 1
}
say "== usmnscope attack shapes, issue 17 ($(date -u +%FT%TZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $([ "$S" = 1 ] && echo "issue sizes" || echo "SMALL: sizes / $S"), sections: $SECTIONS)"
say "work: $WORK"

# The tree is shared with others who edit it: a failed build is retried a
# few times, a minute apart.
for try in 1 2 3 4 5 6; do
	if CGO_ENABLED=0 go build -o bin/usmnscope ./cmd/usmnscope 2>"$WORK/build.err"; then
		break
	fi
	if [ "$try" = 6 ]; then
		say "bench-attack: go build ./cmd/usmnscope failed 6 times:"
		cat "$WORK/build.err"
		exit 1
	fi
	say "go build ./cmd/usmnscope failed (try $try: $(head -1 "$WORK/build.err")); retrying in 60 s"
	sleep 60
done
cp bin/usmnscope "$BIN" || exit 1
CGO_ENABLED=0 go build -o "$GEN" ./bench/shapes || exit 1
say "built bin/usmnscope (copied to $BIN) and the shape generator"

# shape_file NAME: the capture file of a shape.
shape_file() {
	case $1 in
	ifaces) echo "$WORK/$1.pcapng" ;;
	gzip) echo "$WORK/$1.pcap.gz" ;;
	config | configkey) echo "$WORK/$1.toml" ;;
	*) echo "$WORK/$1.pcap" ;;
	esac
}
# shape_size NAME: the size parameter of a shape and what it counts.
shape_size() {
	case $1 in
	zero) echo "$N_ZERO packets of 100 zero-length cycles" ;;
	gaps) echo "$N_GAPS packets past 1-byte holes, 3 s apart" ;;
	a2s) echo "$N_A2S A2S_INFO replies" ;;
	ifaces) echo "$N_IFACES pcapng interfaces" ;;
	udp) echo "$N_UDP UDP peers" ;;
	partial) echo "$N_PARTIAL flows of partial frames" ;;
	gzip) echo "$N_GZIP packets of 21,000 messages, gzipped" ;;
	frag) echo "$N_FRAG fragmented segments" ;;
	rpcgzip) echo "$N_RPCGZIP ULinkRPC frames of a gzipped 64 MiB envelope" ;;
	rpcgzipcap) echo "$N_RPCGZIPCAP ULinkRPC frames each inflating to 1 MiB - 64 bytes" ;;
	rpcpartial) echo "8 ULinkRPC TCP flows, each a $N_RPCPARTIAL MiB partial frame" ;;
	rpckcp) echo "6 ULinkRPC KCP flows, each $N_RPCKCP MiB held behind a missing sn" ;;
	config) echo "a schema of one $N_CONFIG-byte nested inline table" ;;
	configkey) echo "a schema of one $N_CONFIGKEY-byte dotted key" ;;
	esac
}
shape_n() {
	case $1 in
	zero) echo "$N_ZERO" ;; gaps) echo "$N_GAPS" ;; a2s) echo "$N_A2S" ;;
	ifaces) echo "$N_IFACES" ;; udp) echo "$N_UDP" ;; partial) echo "$N_PARTIAL" ;;
	gzip) echo "$N_GZIP" ;; frag) echo "$N_FRAG" ;;
	rpcgzip) echo "$N_RPCGZIP" ;; rpcgzipcap) echo "$N_RPCGZIPCAP" ;; rpcpartial) echo "$N_RPCPARTIAL" ;; rpckcp) echo "$N_RPCKCP" ;;
	config) echo "$N_CONFIG" ;; configkey) echo "$N_CONFIGKEY" ;;
	esac
}
# generate NAME FILE [ARGS...]: writes a shape; sets MSGS (the messages its
# data holds when framed whole, from the generator's line).
generate() {
	local name=$1 file=$2
	shift 2
	if ! "$GEN" -shape "$name" -o "$file" "$@" 2>"$WORK/gen.err"; then
		say "shapes -shape $name failed: $(head -c 300 "$WORK/gen.err")"
		return 1
	fi
	MSGS=$(sed -n 's/.*, \([0-9]*\) messages when framed whole.*/\1/p' "$WORK/gen.err")
}
# measure LABEL CMD...: runs CMD under /usr/bin/time -v (and timeout) with
# stdout on /dev/null; sets WALL, CPU (user + system s), RSS (KiB) and
# STATUS, and prints one line.
measure() {
	local label=$1
	shift
	"$TIMEV" -v -o "$WORK/run.time" timeout -k 10 "$TIMEOUT" "$@" >/dev/null 2>"$WORK/run.err"
	WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$WORK/run.time")
	RSS=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/run.time")
	CPU=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$WORK/run.time")
	STATUS=$(awk -F': ' '/Exit status/ { print $2 }' "$WORK/run.time")
	[ -n "$STATUS" ] || STATUS=$(sed -n 's/.*terminated by signal \([0-9]*\).*/signal \1/p' "$WORK/run.time")
	LINE=$(printf '%-11s %-14s %8.2f s wall %8.2f s CPU  peak RSS %8.1f MB (%7.1f MiB)' \
		"$SHAPE" "$label" "${WALL:-0}" "${CPU:-0}" "$(awk -v k="${RSS:-0}" 'BEGIN { print k * 1024 / 1e6 }')" "$(awk -v k="${RSS:-0}" 'BEGIN { print k / 1024 }')")
}
# cap_verdict: HOLDS when the run exited 0 within its time and peak RSS is
# at most CAP_MB (decimal MB); notes the per-message index allowance.
cap_verdict() {
	local mb idx v note=""
	mb=$(awk -v k="${RSS:-0}" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
	idx=$(awk -v m="${MSGS:-0}" -v b="$INDEX_BYTES" 'BEGIN { printf "%.1f", m * b / 1e6 }')
	v=$(awk -v r="$mb" -v c="$CAP_MB" 'BEGIN { print (r <= c) ? "HOLDS" : "DOES NOT HOLD" }')
	if [ "$STATUS" = 124 ] || [ "$STATUS" = 137 ]; then
		v="DOES NOT HOLD"
		note=" (timed out after ${TIMEOUT} s)"
	elif [ "$STATUS" != 0 ]; then
		v="DOES NOT HOLD"
		note=" (exit $STATUS: $(head -c 200 "$WORK/run.err" | tr '\n' ' '))"
	elif [ "$v" != HOLDS ] && awk -v r="$mb" -v c="$CAP_MB" -v i="$idx" 'BEGIN { exit !(r <= c + i) }'; then
		note=" (within $CAP_MB MB + the index allowance)"
	fi
	say "$LINE  index allowance <= $idx MB: $v$note"
	tally "$v" "$SHAPE $1: $mb MB$note"
}

# config_verdict LABEL: a hostile config file HOLDS when it is an error
# (exit 1) naming the file, within 1 s of CPU and 64 MB. CPU, not wall:
# on a machine shared by many (load average 40-50 when this was written)
# the wall time of a 0.03 s process is the scheduler's, not the file's.
config_verdict() {
	local mb v note=""
	mb=$(awk -v k="${RSS:-0}" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
	v=$(awk -v r="$mb" -v c="${CPU:-99}" 'BEGIN { print (r <= 64 && c <= 1) ? "HOLDS" : "DOES NOT HOLD" }')
	if [ "$STATUS" != 1 ] || ! grep -q "$SHAPE.toml" "$WORK/run.err"; then
		v="DOES NOT HOLD"
		note=" (exit $STATUS, not an error naming the file)"
	fi
	say "$LINE  exit $STATUS: $(head -c 160 "$WORK/run.err" | tr '\n' ' '): $v$note (target: an error within 1 s of CPU and 64 MB)"
	tally "$v" "$SHAPE $1: $mb MB, ${CPU} s CPU$note"
}

# tui_verdict FILE: the TUI's load of a ULinkRPC shape, its VmHWM against
# CAP_MB.
tui_verdict() {
	local mb v
	if ! command -v tmux >/dev/null 2>&1; then
		say "tmux not installed: the TUI's load of $SHAPE skipped"
		tally "DOES NOT HOLD" "$SHAPE open: tmux missing"
		return
	fi
	tui_load "$1"
	mb=$(awk -v k="${TUI_HWM:-0}" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
	v=$(awk -v r="$mb" -v c="$CAP_MB" -v w="$TUI_WALL" 'BEGIN { print (w != -1 && r > 0 && r <= c) ? "HOLDS" : "DOES NOT HOLD" }')
	say "$(printf '%-11s %-14s %8.2f s load %8s s CPU  peak RSS %8s MB' "$SHAPE" "open (TUI)" "$TUI_WALL" "${TUI_CPU:-?}" "$mb"): $v"
	tally "$v" "$SHAPE open (TUI): $mb MB"
}

section_shapes() {
	say ""
	say "== dump --json and tables --json per shape (default limits, stdout on /dev/null): peak RSS <= $CAP_MB MB"
	say "   (MB = 10^6 bytes; index allowance = $INDEX_BYTES B x the messages the shape's data holds when framed whole, an upper bound: issue 17 lets the per-message index come on top until streaming lands)"
	local file
	for SHAPE in $SHAPES; do
		file=$(shape_file "$SHAPE")
		generate "$SHAPE" "$file" -n "$(shape_n "$SHAPE")" || {
			tally "DOES NOT HOLD" "$SHAPE: not generated"
			continue
		}
		say "-- $SHAPE: $(shape_size "$SHAPE"): $(stat -c %s "$file") bytes, $MSGS messages when framed whole"
		case $SHAPE in
		config | configkey)
			measure "dump --schema" "$BIN" dump --schema "$file" fixtures/captures/usmn-basic.pcapng
			config_verdict "dump --schema"
			measure "dump --profile" "$BIN" dump --profile "$file" fixtures/captures/usmn-basic.pcapng
			config_verdict "dump --profile"
			[ -n "${KEEP:-}" ] || rm -f "$file"
			continue
			;;
		rpc*)
			measure "dump" "$BIN" dump "$file"
			cap_verdict "dump"
			;;
		esac
		measure "dump --json" "$BIN" dump --json "$file"
		cap_verdict "dump --json"
		measure "tables --json" "$BIN" tables --json "$file"
		cap_verdict "tables --json"
		case $SHAPE in
		rpc*) tui_verdict "$file" ;;
		esac
		[ -n "${KEEP:-}" ] || rm -f "$file"
	done
}

section_tui() {
	say ""
	say "== TUI load of the zero-length shape at $TUI_CYCLES cycles against dump (target: TUI load <= 2x dump)"
	if ! command -v tmux >/dev/null 2>&1; then
		say "tmux not installed (apt-get install -y tmux): TUI load skipped"
		tally "DOES NOT HOLD" "tui: tmux missing"
		return
	fi
	local file=$WORK/zero-cycles.pcap v r
	SHAPE=zero-$TUI_CYCLES
	generate zero "$file" -cycles "$TUI_CYCLES" || return
	say "-- $(stat -c %s "$file") bytes, $MSGS messages when framed whole"
	measure "dump" "$BIN" dump "$file"
	say "$LINE  (exit $STATUS)"
	local dwall=$WALL
	tui_load "$file"
	say "$(printf '%-11s %-14s %8.2f s load %8s s CPU  VmHWM %8s KiB' "$SHAPE" "open (TUI)" "$TUI_WALL" "${TUI_CPU:-?}" "${TUI_HWM:-?}")"
	say "   status bar: $(printf '%s' "$TUI_STATUS" | sed 's/^ *//; s/ *$//')"
	if [ "$TUI_WALL" = -1 ]; then
		r=n/a v="DOES NOT HOLD"
	else
		r=$(ratio "$TUI_WALL" "$dwall")
		v=$(awk -v r="$r" 'BEGIN { print (r != "n/a" && r + 0 <= 2) ? "HOLDS" : "DOES NOT HOLD" }')
	fi
	say "TUI load / dump = ${r}x (target <= 2x; the load is timed from the usmnscope process's start to the first status bar without \"loading\", polled every 0.02 s (bench/lib.sh tui_load)): $v"
	tally "$v" "TUI load of $TUI_CYCLES cycles: ${r}x dump"
	[ -n "${KEEP:-}" ] || rm -f "$file"
}

want shapes && section_shapes
want tui && section_tui
say ""
say "== summary ($(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)): $HOLD HOLD, $FAIL DO NOT HOLD${FAILS:+:$FAILS}"
exit 0
