#!/usr/bin/env bash
# TPC-C at SERIALIZABLE on a PostgreSQL sandbox (issue 57): throughput,
# retries and the predicate (SIRead) locks a run holds, by granularity and
# relation. It starts its own sandbox (server on CPU 1), loads one
# warehouse at LEVEL, and runs RUNS times, each run after a VACUUM
# (ANALYZE) and a CHECKPOINT as the suites do between blocks, sampling
# pg_locks every 0.5 s. This tree's encbench sets enable_seqscan = off for
# a SERIALIZABLE session; give BIN an encbench built at 81b95a8 to see the
# planner's sequential scans of warehouse and district locked whole:
#   git worktree add /tmp/old 81b95a8 && (cd /tmp/old && go build -o /tmp/encbench-81b95a8 ./cmd/encbench)
#   BIN=/tmp/encbench-81b95a8 bash bench/ssi-locks.sh
#   bash bench/ssi-locks.sh
# Environment: BIN (this tree's, built), LEVEL (0; 20, 50 or 100 encrypt
# columns, keys in the work directory), THREADS (8), TIME (8), RUNS (2).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
level=${LEVEL:-0} threads=${THREADS:-8} tm=${TIME:-8} runs=${RUNS:-2}
bin=${BIN:-}
if [ -z "$bin" ]; then
  (cd "$top" && go build -o bin/encbench ./cmd/encbench)
  bin=$top/bin/encbench
fi
work=$(mktemp -d /tmp/encbench-ssi.XXXXXX)
chmod 711 "$work" # the server runs as postgres
sb=$work/pg
trap '"$bin" sandbox down --dir "$sb" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bin" sandbox up --engine postgres --dir "$sb" --server-cpus 1 >/dev/null
mkdir -m 700 "$work/keys"
keys=(--master-key-file "$work/keys/master.json" --keyset "$work/keys/keyset.json")
"$bin" prepare tpcc --sandbox "$sb" --warehouses 1 --encrypt-columns "$level" "${keys[@]}" >/dev/null

sql() {
  PGPASSWORD=$(json_field "$sb" admin_password) psql -h "$sb/run" -p "$(json_field "$sb" port)" -U postgres -d sbtest -Atq "$@"
}

for r in $(seq "$runs"); do
  sql -c "VACUUM (ANALYZE)" -c "CHECKPOINT"
  "$bin" run tpcc --sandbox "$sb" --isolation serializable --retry-input new --threads "$threads" --time "$tm" \
    --encrypt-columns "$level" "${keys[@]}" >"$work/run.log" 2>&1 &
  run=$!
  sleep 2
  : >"$work/locks"
  while kill -0 "$run" 2>/dev/null; do
    sql -c "SELECT locktype, relation::regclass, count(*) FROM pg_locks WHERE mode = 'SIReadLock' GROUP BY 1, 2" >>"$work/locks" || true
    echo --- >>"$work/locks"
    sleep 0.5
  done
  wait "$run" || { cat "$work/run.log" >&2; exit 1; }
  tps=$(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.).*/\1/p' "$work/run.log" | head -1)
  txns=$(sed -n 's/^ *transactions: *\([0-9]*\) .*/\1/p' "$work/run.log" | head -1)
  retries=$(sed -n 's/.*retried transactions:.*(\([0-9]*\) retries).*/\1/p' "$work/run.log" | head -1)
  samples=$(grep -c -- '^---$' "$work/locks" || true)
  printf 'ssi-locks: level %s, run %d: %s TPS, %s retries per transaction; SIRead locks per sample:\n' "$level" "$r" "$tps" \
    "$(awk -v a="${retries:-0}" -v b="$txns" 'BEGIN {printf "%.2f", a / b}')"
  awk -F'|' -v n="$samples" '$0 != "---" && NF == 3 {s[$1 " " $2] += $3} END {for (k in s) printf "  %-34s %6.1f\n", k, s[k] / n}' "$work/locks" |
    sort -k3 -rn | head -12
done
