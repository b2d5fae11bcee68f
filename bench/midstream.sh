#!/usr/bin/env bash
# bench/midstream.sh times `dump --json` on a 1M-message load capture read
# from its start against the same capture joined mid-stream (issue 13:
# target at most 1.5x). The mid-stream copy keeps packets K.. of the first
# (editcap -r), so every connection starts with no SYN, no markers and no
# definitions: framing resynchronises, the widening and the
# Serverside_ID_Bit_Count are inferred, messages are numbered by arrival.
# Runs alternate (start, mid, start, mid, …) and the median of each is
# compared. See bench/README.md.
#
# Environment: N (messages, default 1000000), CONNS (default 16), K (first
# packet kept, default 1001: past every handshake), RUNS (default 3), WORK
# (scratch dir, default a new /tmp/usmnscope-midstream.*).
set -u
cd "$(dirname "$0")/.."
N=${N:-1000000}
CONNS=${CONNS:-16}
K=${K:-1001}
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-midstream.XXXXXX)}
BIN=$WORK/usmnscope
command -v editcap >/dev/null || { echo "midstream.sh: needs editcap (wireshark-common)"; exit 1; }
go build -o "$BIN" ./cmd/usmnscope || exit 1
"$BIN" gen --scale "$N" --conns "$CONNS" -o "$WORK/start.pcapng" || exit 1
editcap -r "$WORK/start.pcapng" "$WORK/mid.pcapng" "$K-$((N * 2))" || exit 1
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
: >"$WORK/start.t"
: >"$WORK/mid.t"
for _ in $(seq "$RUNS"); do
	for f in start mid; do
		/usr/bin/time -f '%e %M' -o "$WORK/one.t" "$BIN" dump --json "$WORK/$f.pcapng" >"$WORK/$f.ndjson" || exit 1
		cat "$WORK/one.t" >>"$WORK/$f.t"
	done
done
S=$(cut -d' ' -f1 "$WORK/start.t" | median)
M=$(cut -d' ' -f1 "$WORK/mid.t" | median)
printf '== usmnscope mid-stream dump --json (%s, %s CPUs, load %s, N=%s, %s connections, from packet %s, %s runs)\n' \
	"$(date -u +%FT%TZ)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$N" "$CONNS" "$K" "$RUNS"
printf 'from the start: %s messages, median %s s, peak RSS %s KB\n' "$(wc -l <"$WORK/start.ndjson")" "$S" "$(cut -d' ' -f2 "$WORK/start.t" | median)"
printf 'mid-stream:     %s messages, median %s s, peak RSS %s KB (%s inference findings on messages)\n' \
	"$(wc -l <"$WORK/mid.ndjson")" "$M" "$(cut -d' ' -f2 "$WORK/mid.t" | median)" "$(grep -c '"group":"inference"' "$WORK/mid.ndjson")"
awk -v s="$S" -v m="$M" 'BEGIN { r = m / s; printf "ratio %.2fx (target <= 1.5x): %s\n", r, (r <= 1.5 ? "HOLDS" : "DOES NOT HOLD") }'
