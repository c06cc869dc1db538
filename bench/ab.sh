#!/usr/bin/env bash
# Two clients alternated on one sandbox in short runs (bench/wakeups.sh),
# for small differences a 20 s ABBA run cannot resolve: each pair's client
# CPU per transaction of B / A, then their median and range.
# usage: bench/ab.sh SANDBOX_DIR TOOL_A TOOL_B [WORKLOAD]
#   TOOL: sysbench, or the path of an encbench binary.
# Environment: PAIRS (12), TIME (3), and bench/wakeups.sh's (THREADS, ...).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: bench/ab.sh SANDBOX_DIR TOOL_A TOOL_B [WORKLOAD]" >&2; exit 2; }
dir=$1 a=$2 b=$3 wl=${4:-oltp_point_select}
here=$(dirname "$0")
# client: TPS and client CPU per transaction (us) from wakeups.sh's first line.
client() { TIME=${TIME:-3} bash "$here/wakeups.sh" "$dir" "$1" "$wl" | awk 'NR == 1 {print $3, $10}'; }
for _ in $(seq "${PAIRS:-12}"); do
  echo "$(client "$a") $(client "$b")"
done | awk '{r = $4 / $2; printf "A tps %s cpu %s us  B tps %s cpu %s us  B/A %.3f\n", $1, $2, $3, $4, r; v[NR] = r}
  END {
    n = NR
    for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
    med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    printf "client CPU per transaction, B / A: median %.3f over %d pairs, range %.3f-%.3f\n", med, n, v[1], v[n]
  }'
