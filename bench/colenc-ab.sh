#!/usr/bin/env bash
# Two builds' column encryption costs side by side (issue 56): the
# BenchmarkColenc binaries of two commits alternate, ROUNDS rounds each,
# and each line is a sub-benchmark's ns/op, its ratio to raw AES-256-GCM
# of the same run, and its allocations.
#   git worktree add /tmp/before REV && (cd /tmp/before && go test -c -o /tmp/before.test ./internal/encryption/colenc/)
#   go test -c -o /tmp/after.test ./internal/encryption/colenc/
#   ROUNDS=5 BENCHTIME=400ms bash bench/colenc-ab.sh /tmp/before.test /tmp/after.test
set -euo pipefail
before=$1 after=$2
ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-400ms}
for i in $(seq "$ROUNDS"); do
  for v in before after; do
    bin=$before
    [ "$v" = after ] && bin=$after
    "$bin" -test.run '^$' -test.bench 'BenchmarkColenc' -test.benchtime "$BENCHTIME" -test.benchmem 2>/dev/null |
      awk -v v="$v" -v r="$i" '
        /raw-aes-gcm/ { raw = $3 }
        /^BenchmarkColenc\// {
          n = $1; sub(/^BenchmarkColenc\//, "", n); sub(/-[0-9]+$/, "", n); a = "-"
          for (k = 3; k < NF; k++) if ($(k+1) == "allocs/op") a = $k
          printf "%s round %d %-26s %10.1f ns %6.2fx gcm %s allocs\n", v, r, n, $3, $3 / raw, a
        }'
  done
done
