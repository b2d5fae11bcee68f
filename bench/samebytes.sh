#!/usr/bin/env bash
# samebytes.sh: proves that two usmnscope binaries print the same bytes.
#
#   bench/samebytes.sh record BIN > manifest     one line per (capture, command): sha256 of
#                                                stdout, stderr and the exit code
#   bench/samebytes.sh compare OLD_BIN NEW_BIN   records both and prints the differences and a
#                                                summary line; exits 1 when any output differs
#
# It runs dump, dump -V, dump --json, tables, tables --json, tables --at N (N = 3 and 40),
# stats, stats --json and export (ndjson and parquet to standard output) on every fixture
# capture (fixtures/captures, fixtures/ulinkrpc, the real-stack captures of internal/realnet)
# and every file of ../shared/corpus/tcpdump. The architecture issue
# (12) requires all of them byte-identical across the reorganisation.
# SAMEBYTES_ARGS, when set, replaces those commands: argument lists split
# by ';' ("stats;stats --json;stats --by message --csv").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${CORPUS:-$root/../shared/corpus/tcpdump}

captures() {
  ls "$root"/fixtures/captures/*.pcap* "$root"/fixtures/captures/*/*.pcap* "$root"/fixtures/ulinkrpc/*.pcap* \
    "$root"/internal/realnet/testdata/*.pcap* 2>/dev/null
  [ -d "$corpus" ] && ls "$corpus"/* 2>/dev/null
  true
}

one() { # BIN FILE
  local bin=$1 f=$2 name
  name=${f#"$root"/}
  name=${name#../shared/}
  case "$f" in "$corpus"/*) name=corpus/${f##*/} ;; esac
  local sets=("dump" "dump -V" "dump --json" "tables" "tables --json" "tables --at 3" "tables --at 40"
    "stats" "stats --json" "export --format ndjson -o -" "export --format parquet -o -")
  [ -n "${SAMEBYTES_ARGS:-}" ] && IFS=';' read -r -a sets <<<"$SAMEBYTES_ARGS"
  for args in "${sets[@]}"; do
    # shellcheck disable=SC2086
    h=$( { timeout 60 "$bin" $args "$f" 2>&1; echo "exit=$?"; } | sha256sum | cut -c1-16)
    printf '%s\t%s\t%s\n' "$name" "$args" "$h"
  done
}
export -f one
export root corpus

record() {
  captures | xargs -P "${JOBS:-2}" -I{} bash -c 'one "$0" "$1"' "$1" {} | sort
}

case "${1:-}" in
record) record "$2" ;;
compare)
  a=$(mktemp) b=$(mktemp)
  record "$2" >"$a"
  record "$3" >"$b"
  n=$(wc -l <"$a")
  files=$(cut -f1 "$a" | sort -u | wc -l)
  if diff "$a" "$b" >/dev/null; then
    echo "samebytes: $n outputs over $files captures: all identical"
    rm -f "$a" "$b"
  else
    # diff exits 1 when the files differ, and head closes the pipe after
    # 50 lines: under pipefail either would end the script before its
    # summary, so the differences go to a file first.
    d=$(mktemp)
    diff "$a" "$b" | grep '^>' >"$d" || true
    diff "$a" "$b" | grep '^[<>]' >"$d.both" || true
    head -50 "$d.both"
    if [ "$(wc -l <"$d.both")" -gt 50 ]; then echo "... ($(($(wc -l <"$d.both") - 50)) more lines)"; fi
    # Which commands differ, and how often.
    cut -f2 "$d" | sort | uniq -c | sed 's/^/samebytes: differ: /'
    echo "samebytes: $n outputs over $files captures: $(wc -l <"$d") differ"
    rm -f "$a" "$b" "$d" "$d.both"
    exit 1
  fi
  ;;
*) echo "usage: $0 record BIN | compare OLD_BIN NEW_BIN" >&2; exit 2 ;;
esac
