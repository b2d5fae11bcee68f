#!/usr/bin/env bash
# make test's runner: `go test -json ARGS` summarised by bench/testsum,
# which prints what plain `go test ARGS` prints and, before each package's
# result line, every skipped test with its reason (issue 16 defect 11:
# plain go test hides them). The exit status is go test's, or 1 when
# testsum saw a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
sum=$(mktemp -d)
trap 'rm -rf "$sum"' EXIT
"$GO" build -o "$sum/testsum" ./bench/testsum || exit 1
"$GO" test -json "$@" | "$sum/testsum"
