#!/usr/bin/env bash
# bench/infer.sh prints issue 25's must-hold figures with HOLDS / DOES NOT
# HOLD (bench/README.md "Profile inference"): bench/report.sh runs it as
# its section "infer"; it runs on its own too.
#
#  1. The random family: TestInferRandomProfiles over INFER_PROFILES
#     profiles (default 200, seeded), each generated whole and cut after
#     the handshake: every decidable key recovered in >= 97 % of the
#     profiles, no wrong claim, every miss listed as undecided.
#  2. Bounded: `usmnscope profile infer F` on a generated N-message
#     capture (`gen --scale N --conns CONNS`), paired with `usmnscope
#     tables --json F` (RUNS pairs, order alternating): under 2 s wall and
#     100 MB peak RSS (medians). CPU time is printed because wall time only
#     means something on an idle machine (see the load average).
#
# Environment: INFER_PROFILES (default 200), N (default 1000000), CONNS
# (default 64), RUNS (default 3), WORK (scratch directory; the capture is
# generated once and kept there).
set -u
cd "$(dirname "$0")/.."
INFER_PROFILES=${INFER_PROFILES:-200}
N=${N:-1000000}
CONNS=${CONNS:-64}
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/usmnscope-infer.XXXXXX)}
mkdir -p "$WORK" || exit 1
BIN=$WORK/usmnscope
CAP=$WORK/scale-$N-$CONNS.pcapng
TIMEV=/usr/bin/time

say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
# run CMD...: one run, stdout to /dev/null; sets WALL (s), CPU (user +
# system s), RSS (KiB); OK=0 when it failed.
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
		say "  (exit $st: $(head -c 200 "$WORK/err"))"
	fi
}

say "== issue 25: profile inference ($(date -u +%FT%TZ), $(nproc) CPUs, load average $(load), $INFER_PROFILES random profiles, $N messages over $CONNS connections, $RUNS paired runs)"
if [ ! -x "$TIMEV" ]; then
	say "infer: $TIMEV missing (apt-get install -y time)"
	exit 1
fi

# 1. The random family (a Go test: the generator and the search in one
# process; its FIGURES lines carry the verdicts).
out=$(USMNSCOPE_INFER_PROFILES=$INFER_PROFILES CGO_ENABLED=0 go test -count=1 -timeout 60m -run '^TestInferRandomProfiles$' -v ./unturned/infer/ 2>&1)
st=$?
printf '%s\n' "$out" | grep -o 'FIGURES.*' | sed 's/^FIGURES /  random profiles, /'
printf '%s\n' "$out" | grep -o 'miss: .*' | cut -c1-240 | head -5 | sed 's/^/  /'
[ $st = 0 ] || say "  the random-profile test failed (exit $st): DOES NOT HOLD"

# 2. Bounded on a large capture, paired with tables --json.
CGO_ENABLED=0 go build -o "$BIN" ./cmd/usmnscope || exit 1
if [ ! -f "$CAP" ]; then
	"$BIN" gen --scale "$N" --conns "$CONNS" -o "$CAP.tmp" >/dev/null && mv "$CAP.tmp" "$CAP" || exit 1
fi
say "capture: $CAP ($(stat -c %s "$CAP") bytes)"
"$BIN" profile infer "$CAP" 2>/dev/null | grep '^# searched' | sed 's/^# /  profile infer: /'
iw=() ic=() ir=() tw=() tc=() pr=() bad=0
for i in $(seq 1 "$RUNS"); do
	if [ $((i % 2)) = 1 ]; then
		run "$BIN" profile infer "$CAP"; iw+=("$WALL") ic+=("$CPU") ir+=("$RSS") iok=$OK
		run "$BIN" tables --json "$CAP"; tw+=("$WALL") tc+=("$CPU") tok=$OK
	else
		run "$BIN" tables --json "$CAP"; tw+=("$WALL") tc+=("$CPU") tok=$OK
		run "$BIN" profile infer "$CAP"; iw+=("$WALL") ic+=("$CPU") ir+=("$RSS") iok=$OK
	fi
	[ "$iok$tok" = 11 ] || bad=1
	pr+=("$(ratio "${iw[-1]}" "${tw[-1]}")")
	say "  pair $i: profile infer ${iw[-1]} s (${ic[-1]} s CPU, ${ir[-1]} KiB), tables --json ${tw[-1]} s (${tc[-1]} s CPU): ${pr[-1]}x"
done
W=$(median "${iw[@]}") C=$(median "${ic[@]}") R=$(median "${ir[@]}")
verdict=$(awk -v w="$W" -v r="$R" -v bad="$bad" 'BEGIN { if (bad == 0 && w + 0 < 2 && r * 1024 < 100e6) print "HOLDS"; else print "DOES NOT HOLD" }')
say "profile infer on $N messages: median $W s wall ($C s CPU), peak RSS $R KiB ($(awk -v r="$R" 'BEGIN { printf "%.1f", r * 1024 / 1e6 }') MB); $(median "${pr[@]}")x tables --json's wall (median of paired ratios; tables --json $(median "${tw[@]}") s, $(median "${tc[@]}") s CPU); target < 2 s and < 100 MB: $verdict"
say "== load average at the end: $(load)"
