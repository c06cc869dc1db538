#!/usr/bin/env bash
# Soak: one long oltp_read_write run against a local sandbox, with
# encbench's resident memory, goroutines and live heap sampled every
# minute (ENCBENCH_RUNTIME_STATS). Prints the samples and whether they
# stay flat: resident memory and live heap of the last third of the run
# within 10% (and 4 MiB) of the first third's (after 2 minutes of warm-up),
# and the same goroutine count throughout.
#   MINUTES=30 ENGINE=mariadb THREADS=8 bash bench/soak.sh
set -euo pipefail
MINUTES=${MINUTES:-30}
ENGINE=${ENGINE:-mariadb}
THREADS=${THREADS:-8}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
INTERVAL=${INTERVAL:-60s}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
work=$(mktemp -d /tmp/encbench-soak.XXXXXX)
chmod 755 "$work"
go build -o "$work/encbench" ./cmd/encbench
enc=$work/encbench
cleanup() { "$enc" sandbox down --dir "$work/sb" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$enc" sandbox up --engine "$ENGINE" --dir "$work/sb" >/dev/null
"$enc" prepare oltp_read_write --sandbox "$work/sb" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$TABLES" >/dev/null
ENCBENCH_RUNTIME_STATS=$work/stats ENCBENCH_RUNTIME_STATS_INTERVAL=$INTERVAL \
  "$enc" run oltp_read_write --sandbox "$work/sb" --tables="$TABLES" --threads="$THREADS" \
  --time=$((MINUTES * 60)) --report-interval=$((MINUTES * 60 / 10)) >"$work/run.txt"
echo "encbench soak, $(date -u +%Y-%m-%d), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $ENGINE, oltp_read_write, $THREADS threads, $MINUTES min"
grep -E '^\[ *[0-9]+s \]' "$work/run.txt" | sed 's/^/    /' || true
grep -E 'transactions:' "$work/run.txt" | sed 's/^/    /'
echo
awk -v minutes="$MINUTES" '
NR == 1 { next }
{ n++; t[n] = $1; rss[n] = $2; g[n] = $3; heap[n] = $4 }
function median(a, lo, hi,   i, j, k, m, s) {
  m = 0; for (i = lo; i <= hi; i++) s[++m] = a[i]
  for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (s[j] < s[i]) { k = s[i]; s[i] = s[j]; s[j] = k }
  return (m % 2) ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
}
END {
  printf "| minute | RSS MiB | goroutines | live heap MiB |\n|---|---|---|---|\n"
  for (i = 1; i <= n; i++) printf "| %.1f | %.1f | %d | %.1f |\n", (t[i] - t[1]) / 60, rss[i] / 1024, g[i], heap[i] / 1024
  # Steady state: from the third sample (2 min) to the one before the last
  # (the last is written after the run ended and its workers exited).
  lo = 3; hi = n - 1; third = int((hi - lo + 1) / 3)
  if (third < 1) { print "too few samples for a verdict"; exit 1 }
  r1 = median(rss, lo, lo + third - 1); r2 = median(rss, hi - third + 1, hi)
  h1 = median(heap, lo, lo + third - 1); h2 = median(heap, hi - third + 1, hi)
  gmin = g[lo]; gmax = g[lo]
  for (i = lo; i <= hi; i++) { if (g[i] < gmin) gmin = g[i]; if (g[i] > gmax) gmax = g[i] }
  flat = (r2 <= r1 * 1.10 || r2 - r1 <= 4096) && (h2 <= h1 * 1.10 || h2 - h1 <= 4096) && gmin == gmax
  printf "\nfirst third vs last third (medians): RSS %.1f -> %.1f MiB, live heap %.1f -> %.1f MiB; goroutines %d..%d: %s\n", \
    r1 / 1024, r2 / 1024, h1 / 1024, h2 / 1024, gmin, gmax, flat ? "flat" : "GROWS"
  exit flat ? 0 : 1
}' "$work/stats"
