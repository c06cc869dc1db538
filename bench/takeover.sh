#!/usr/bin/env bash
# Connection take-over under a busy client CPU (issue 54): per engine and
# TLS setting, CYCLES connections are set up by the driver (pgconn,
# go-sql-driver), taken over by encbench and asked their first query,
# while two busy loops keep both CPUs loaded, so the drivers' set-up writes
# are often slow (pgconn starts its background reader after 15 ms). Two
# paths each: the connect workload (an admin-style connection per event,
# its first query, then the worker's own), and oltp_point_select with
# --reconnect-per-txn (a worker's raw socket per transaction). A reply
# lost in a take-over would leave a worker waiting: the run would fail at
# its bound (--reconnect-timeout) instead of completing every event, so
# the count of events that completed is the count of replies not lost.
#
# usage: bench/takeover.sh [ENCBENCH_BINARY]
# Environment: CYCLES (10000 per engine and TLS setting and path),
# THREADS (4), ENGINES ("postgres mariadb"), VARIANTS ("plain tls"),
# HOGS (2: busy loops). Starts and stops its own sandboxes.
set -euo pipefail
bin=${1:-bin/encbench}
cycles=${CYCLES:-10000} threads=${THREADS:-4} hogs=${HOGS:-2}
work=$(mktemp -d /tmp/encbench-takeover.XXXXXX)
chmod 755 "$work"
hog_pids=()
cleanup() {
  for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for d in "$work"/*/; do [ -f "$d/sandbox.json" ] && "$bin" sandbox down --dir "$d" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/lib.sh"

echo "take-over under load: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $hogs busy loops, $cycles cycles per row, $threads threads"
printf '%-9s %-6s %-22s %8s %8s %8s %8s\n' engine tls path events failed "wall s" "conn/s"
for engine in ${ENGINES:-postgres mariadb}; do
  for variant in ${VARIANTS:-plain tls}; do
    dir="$work/$engine-$variant"
    "$bin" sandbox up --engine "$engine" --variant "$variant" --dir "$dir" >/dev/null
    "$bin" prepare connect --sandbox "$dir" >/dev/null
    "$bin" prepare oltp_point_select --sandbox "$dir" --tables 1 --table-size 1000 >/dev/null
    for _ in $(seq "$hogs"); do (while :; do :; done) & hog_pids+=($!); done
    for path in connect reconnect-per-txn; do
      if [ "$path" = connect ]; then
        args=(connect --events "$cycles" --time 0)
      else
        args=(oltp_point_select --tables 1 --table-size 1000 --reconnect-per-txn --events "$cycles" --time 0)
      fi
      json="$work/$engine-$variant-$path.json"
      start=$(date +%s.%N)
      rc=0
      "$bin" run "${args[@]}" --sandbox "$dir" --threads "$threads" --json "$json" >"$work/out" 2>&1 || rc=$?
      wall=$(echo "$(date +%s.%N) - $start" | bc)
      events=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t.get("transactions", 0))' "$json" 2>/dev/null || echo 0)
      failed=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(sum(t.get("failed", {}).values()))' "$json" 2>/dev/null || echo "?")
      printf '%-9s %-6s %-22s %8s %8s %8.1f %8.0f\n' "$engine" "$variant" "$path" "$events" "$failed" "$wall" "$(echo "$events / $wall" | bc -l)"
      if [ "$rc" != 0 ] || [ "$events" != "$cycles" ]; then
        echo "  exit $rc, $events of $cycles events: $(tail -1 "$work/out")"
      fi
    done
    for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    hog_pids=()
    "$bin" sandbox down --dir "$dir" >/dev/null
  done
done
