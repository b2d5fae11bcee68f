#!/usr/bin/env bash
# samecli.sh: proves that two usmnscope binaries have the same command line:
# the --help of every command and subcommand (and `help CMD`), `profile show`
# with and without --max-* flags and profiles, shell completions, the usage
# and input errors of bad invocations, and the outputs of bits and gen. Each
# invocation's stdout, stderr and exit code are compared byte for byte.
#
#   bench/samecli.sh compare OLD_BIN NEW_BIN   prints the differences and a summary line;
#                                              exits 1 when any invocation differs
#
# samebytes.sh covers dump and tables over the captures; this covers the rest
# of the surface that the command wiring (cmd/usmnscope/root.go) could change.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cap=$root/fixtures/captures/usmn-basic.pcapng
scen=$root/fixtures/scenarios/usmn-basic.toml

invocations() {
  local cmds=("" bits dump gen live open profile "profile show" simulate tables completion
    "completion bash" "completion zsh" "completion fish" "completion powershell" help)
  for c in "${cmds[@]}"; do
    printf '%s\n' "$c --help" "$c -h"
    [ -n "$c" ] && printf '%s\n' "help $c"
  done
  cat <<EOF
profile show
profile show --max-flows 500
profile show --max-flow-buffer 64KiB --max-total-buffer 1GiB --max-message 1KiB --max-table-entries 7 --max-unresolved 3
--max-flows 0 profile show
--max-flow-buffer 1MB profile show
--max-message 65536 profile show
--max-flows x profile show
--profile /nonexistent.toml profile show
--profile $TMPD/bad.toml profile show
--profile $TMPD/zero.toml profile show
--profile $TMPD/good.toml profile show
--profile $TMPD/good.toml --max-flows 9 profile show
profile
profile show extra
profile bogus
bogus
--bogus
dump
dump --bogus $cap
dump --json -V $cap
dump --filter ( $cap
dump --filter msg==Nope $cap
dump /nonexistent.pcapng
dump --max-flows 0 $cap
dump --max-flows 1 $cap
dump --profile $TMPD/good.toml $cap
dump --max-message 3 $cap
tables
tables --at -1 $cap
tables --at 99999 $cap
tables --at x $cap
tables --json --at 2 $cap
bits
bits --dir x 00
bits --id-bits 40 00
bits --id-bits -1 00
bits zz
bits 0
bits --dir s2c 8c 00 00 62 79 65
bits --dir s2c 6a 70 00 33 2e 32 36 2e 33 2e 34
bits --dir c2s --widened --id-bits 2 --json 31 00
bits --dir c2s --widened --id-bits 2 31 00
bits --profile $TMPD/bad.toml 00
bits --dir s2c -
gen
gen -o
gen -o $TMPD/x.pcapng
gen $scen --scale 3 -o $TMPD/x.pcapng
gen /nonexistent.toml -o $TMPD/x.pcapng
gen $scen -o -
gen $scen --pcap -o -
gen --scale 50 --conns 3 --seed 7 -o -
gen --scale 50 --link sll -o -
gen --scale 50 --link bogus -o -
gen --scale 5 --profile $TMPD/bad.toml -o -
gen --scale 5 --profile $TMPD/good.toml -o -
gen $scen --profile $TMPD/good.toml -o -
simulate
simulate x
simulate --count -1
simulate --count 1 --conns 0
simulate --count 1 --speed 0
simulate --count 1 --speed 2 --full-speed
simulate --count 1 -i lo
simulate --count 1 --inject --addr 1.2.3.4:5
simulate --count 1 --inject --nagle
simulate --scenario /nonexistent.toml
simulate --count 1 --profile $TMPD/bad.toml
simulate --count 1 --profile $TMPD/bad.toml --inject
live
live x
live -i lo --snaplen -1
live -i lo --max-arena -1
live -i lo --max-arena 1073741825
live -i lo --count -1
live -i lo --duration -1s
live -i lo
live -i lo --profile $TMPD/bad.toml --stats --count 1
open
open $cap
open /nonexistent.pcapng
open --profile $TMPD/bad.toml $cap
__complete bits --dir c
__complete d
__complete profile s
__complete dump --
__complete --max
EOF
}

one() { # BIN LINE: stdout, stderr and the exit code, each hashed
  local bin=$1 line=$2 out err code
  out=$(mktemp) err=$(mktemp)
  # shellcheck disable=SC2086
  set +e
  timeout 20 "$bin" $line <"$TMPD/stdin" >"$out" 2>"$err"
  code=$?
  set -e
  printf '%s\tout=%s err=%s exit=%s\n' "$line" "$(sha256sum <"$out" | cut -c1-16)" "$(sha256sum <"$err" | cut -c1-16)" "$code"
  rm -f "$out" "$err"
}

record() { # BIN
  invocations | while IFS= read -r line; do one "$1" "$line"; done
}

case "${1:-}" in
compare)
  TMPD=$(mktemp -d)
  trap 'rm -rf "$TMPD"' EXIT
  printf '[limits]\nmax_flows = "x"\n' >"$TMPD/bad.toml"
  printf '[limits]\nmax_flows = 0\n' >"$TMPD/zero.toml"
  printf 'game = "3.24"\n[limits]\nmax_total_buffer = "2MiB"\nmax_unresolved = 9\n' >"$TMPD/good.toml"
  printf '8c 00 00 62 79 65\n' >"$TMPD/stdin"
  a=$(record "$2") b=$(record "$3")
  n=$(printf '%s\n' "$a" | wc -l)
  if [ "$a" = "$b" ]; then
    echo "samecli: $n invocations: all identical"
  else
    diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | grep '^[<>]' | head -50
    d=$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | grep -c '^>' || true)
    echo "samecli: $n invocations: $d differ"
    exit 1
  fi
  ;;
*) echo "usage: $0 compare OLD_BIN NEW_BIN" >&2; exit 2 ;;
esac
