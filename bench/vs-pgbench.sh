#!/usr/bin/env bash
# Side-by-side check of encbench's script workload against pgbench 15 on
# one PostgreSQL sandbox, in ABBA pairs (pgbench, encbench, encbench,
# pgbench, ...): pgbench's built-in tpcb-like and a custom script with
# \gset and \if (bench/scripts/gset-if.sql), both tools in prepared mode
# (pgbench -M prepared). Prints medians of TPS and of client CPU seconds
# per 1,000 transactions with each pair's ratio, and the statements per
# transaction the server counted (pg_stat_statements): the same statement
# texts, and the same number per transaction for each statement that runs
# in every transaction and in all (a statement under \if runs as often
# as the data send the transaction its way, which differs run to run).
#
# Environment knobs: PAIRS (4; odd is rounded up), TIME (20), SCALE (10),
# THREADS ("1 8"), SCRIPTS ("tpcb-like gset-if"), KEEP=1 keeps the
# sandbox's directory, CLIENT_CPUS / SERVER_CPUS pin both tools and the
# server (for example 0 and 1), as bench/vs-sysbench.sh does, so the
# kernel's thread placement is the same for both tools. PGBENCH_JOBS sets
# pgbench's -j (default: min(clients, CPUs)), for example 8 to give it a
# thread per client as encbench has. COUNTS=1 runs each tool under perf
# stat and adds its system calls and context switches per transaction to
# the table of where the client's CPU goes (user and system time per
# transaction, always printed); the counting itself slows every system
# call a little, pgbench's more as it makes more, so parity is judged on
# runs without it. ENCBENCH=PATH runs that encbench binary instead of
# building the tree's (to compare an older build; the header then names
# the binary, not the tree's commit).
set -euo pipefail

PAIRS=${PAIRS:-4}
if [ $((PAIRS % 2)) = 1 ]; then
  echo "vs-pgbench: PAIRS=$PAIRS is odd; running $((PAIRS + 1)) so each tool goes first equally often" >&2
  PAIRS=$((PAIRS + 1))
fi
TIME=${TIME:-20}
SCALE=${SCALE:-10}
THREADS=${THREADS:-"1 8"}
SCRIPTS=${SCRIPTS:-"tpcb-like gset-if"}
CLIENT_CPUS=${CLIENT_CPUS:-}
PGBENCH_JOBS=${PGBENCH_JOBS:-}
SERVER_CPUS=${SERVER_CPUS:-}
COUNTS=${COUNTS:-0}
client_pin=()
[ -n "$CLIENT_CPUS" ] && client_pin=(taskset -c "$CLIENT_CPUS")
counting=()
server_pin=()
[ -n "$SERVER_CPUS" ] && server_pin=(--server-cpus "$SERVER_CPUS")

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
for tool in pgbench psql /usr/bin/time go; do
  command -v "$tool" >/dev/null || { echo "vs-pgbench: $tool is missing (make deps installs it)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/encbench-vs-pgbench.XXXXXX)
if [ "$COUNTS" = 1 ]; then
  command -v perf >/dev/null || { echo "vs-pgbench: COUNTS=1 needs perf (apt-get install linux-perf)" >&2; exit 2; }
  counting=(perf stat -x, -e raw_syscalls:sys_enter,context-switches -o "$work/perf.txt" --)
fi
chmod 755 "$work"
if [ -n "${ENCBENCH:-}" ]; then
  [ -x "$ENCBENCH" ] || { echo "vs-pgbench: ENCBENCH=$ENCBENCH is not an executable" >&2; exit 2; }
  enc=$ENCBENCH
  built="binary $ENCBENCH"
else
  go build -o "$work/encbench" ./cmd/encbench
  enc=$work/encbench
  built="commit $(git rev-parse --short HEAD)"
fi
dir=$work/postgres
cleanup() {
  "$enc" sandbox down --dir "$dir" 2>/dev/null || true
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
. "$top/bench/lib.sh"

"$enc" sandbox up --engine postgres --dir "$dir" --stat-statements "${server_pin[@]}" >/dev/null
"$enc" prepare pgbench --sandbox "$dir" --scale "$SCALE" --threads 2 >/dev/null
port=$(json_field "$dir" port)
admin() { PGPASSWORD=$(json_field "$dir" admin_password) psql -X -q -A -t -F' ' -h "$dir/run" -p "$port" -U postgres -d sbtest -c "$1"; }
server_cpu() { awk -v n="$(server_ticks "$dir")" -v t="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f\n", n/t}'; }

# run_one TOOL SCRIPT THREADS -> "tps cpu_per_1000 srv_per_1000
# user_per_1000 sys_per_1000 syscalls_per_txn switches_per_txn" (the last
# two 0 without COUNTS=1), and the statements per transaction in
# $work/TOOL.stmts
run_one() {
  local tool=$1 sc=$2 th=$3 out=$work/out.txt tm=$work/time.txt s0 s1 txns tps
  local pgargs=(-b "$sc") encargs=(pgbench --builtin "$sc")
  if [ "$sc" != tpcb-like ] && [ "$sc" != simple-update ] && [ "$sc" != select-only ]; then
    pgargs=(-f "bench/scripts/$sc.sql"); encargs=(script --file "bench/scripts/$sc.sql" --scale "$SCALE")
  fi
  admin "SELECT pg_stat_statements_reset()" >/dev/null
  s0=$(server_cpu)
  case $tool in
    pgbench)
      PGPASSWORD=$(json_field "$dir" password) PGSSLMODE=disable /usr/bin/time -f "%U %S" -o "$tm" "${counting[@]}" "${client_pin[@]}" \
        pgbench -h 127.0.0.1 -p "$port" -U sbtest -n -M prepared -s "$SCALE" -c "$th" -j "${PGBENCH_JOBS:-$(( th < $(nproc) ? th : $(nproc) ))}" \
        -T "$TIME" "${pgargs[@]}" sbtest >"$out" 2>&1
      txns=$(awk '/number of transactions actually processed/ {split($NF,a,"/"); print a[1]; exit}' "$out")
      tps=$(awk '/^tps =/ {print $3; exit}' "$out") ;;
    encbench)
      /usr/bin/time -f "%U %S" -o "$tm" "${counting[@]}" "${client_pin[@]}" "$enc" run "${encargs[@]}" --sandbox "$dir" --threads "$th" --time "$TIME" >"$out" 2>&1
      txns=$(awk '/transactions:/ {print $2; exit}' "$out")
      tps=$(awk '/transactions:/ {gsub(/\(/,"",$3); print $3; exit}' "$out") ;;
  esac
  sleep 0.5
  s1=$(server_cpu)
  admin "SELECT calls, regexp_replace(query, '\s+', ' ', 'g') FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = 'sbtest' AND (query ILIKE '%pgbench_%' OR query IN ('BEGIN', 'END', 'COMMIT'))
           AND query NOT ILIKE '%count(%' AND query NOT ILIKE '%pg_%stat%' AND query NOT ILIKE 'vacuum%' AND query NOT ILIKE '%truncate%'" |
    awk -v n="$txns" '{c=$1; $1=""; printf "%.3f %s\n", c/n, $0}' | sort -k2 >"$work/$tool.stmts"
  local calls=0 switches=0
  if [ "$COUNTS" = 1 ]; then
    calls=$(awk -F, '/raw_syscalls:sys_enter/ {print $1}' "$work/perf.txt")
    switches=$(awk -F, '/context-switches/ {print $1}' "$work/perf.txt")
  fi
  awk -v tps="$tps" -v u="$(tail -1 "$tm" | awk '{print $1}')" -v sy="$(tail -1 "$tm" | awk '{print $2}')" -v n="$txns" -v a="$s0" -v b="$s1" \
    -v calls="$calls" -v sw="$switches" \
    'BEGIN {printf "%s %.4f %.4f %.4f %.4f %.2f %.2f\n", tps, (u+sy)/n*1000, (b-a)/n*1000, u/n*1000, sy/n*1000, calls/n, sw/n}'
}

# same_statements A B: the same statement texts; the same count per
# transaction (3 decimals) of each statement that one tool ran once per
# transaction; the same total per transaction (2 decimals).
same_statements() {
  [ "$(cut -d' ' -f2- "$1")" = "$(cut -d' ' -f2- "$2")" ] || return 1
  paste -d'|' "$1" "$2" | awk -F'|' '{split($1,a," "); split($2,b," "); if ((a[1]=="1.000" || b[1]=="1.000") && a[1]!=b[1]) bad=1; ta+=a[1]; tb+=b[1]}
    END {exit (bad || sprintf("%.2f",ta)!=sprintf("%.2f",tb))}'
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }

echo "encbench vs $(pgbench --version), $(date -u +%Y-%m-%d), $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $PAIRS pairs x ${TIME}s, scale $SCALE, $built"
echo "medians; ratio = median over pairs of encbench / pgbench; pgbench -M prepared -j ${PGBENCH_JOBS:-min(clients, CPUs)}"
echo "placement: clients on CPUs ${CLIENT_CPUS:-any}, server on CPUs ${SERVER_CPUS:-any}"
printf '\n| %-9s | %3s | %8s | %8s | %5s | %8s | %8s | %5s | %8s | %8s | %5s | %-13s |\n' script thr "pg TPS" "enc TPS" ratio "pg cpu" "enc cpu" ratio "pg srv" "enc srv" ratio "stmts per txn"
printf '|%s|\n' "-----------|-----|----------|----------|-------|----------|----------|-------|----------|----------|-------|---------------"
: >"$work/pairs.md"; : >"$work/stmts.md"; : >"$work/split.md"
for sc in $SCRIPTS; do
  for th in $THREADS; do
    : >"$work/pgbench.rows"; : >"$work/encbench.rows"; same=identical
    for p in $(seq "$PAIRS"); do
      order="pgbench encbench"
      [ $((p % 2)) = 0 ] && order="encbench pgbench"
      for tool in $order; do run_one "$tool" "$sc" "$th" >>"$work/$tool.rows"; done
      if ! same_statements "$work/pgbench.stmts" "$work/encbench.stmts"; then
        same=differ
        { echo "$sc $th pair $p: pgbench"; cat "$work/pgbench.stmts"; echo "encbench"; cat "$work/encbench.stmts"; } >>"$work/stmts.md"
      fi
    done
    cp "$work/encbench.stmts" "$work/$sc.$th.stmts"
    col() { awk -v c="$2" '{print $c}' "$work/$1.rows" | median; }
    pair_ratio() { paste -d' ' "$work/pgbench.rows" "$work/encbench.rows" | awk -v c="$1" '{n=NF/2; print ($c>0 ? $(c+n)/$c : 0)}' | median; }
    pair_list() { paste -d' ' "$work/pgbench.rows" "$work/encbench.rows" |
      awk -v c="$1" '{n=NF/2; printf "%s%.2f", (NR > 1 ? " " : ""), ($c>0 ? $(c+n)/$c : 0)} END {print ""}'; }
    printf '| %-9s | %3s | %s | %s | %s |\n' "$sc" "$th" "$(pair_list 1)" "$(pair_list 2)" "$(pair_list 3)" >>"$work/pairs.md"
    printf '| %-9s | %3s | %7.4f | %8.4f | %6.4f | %7.4f | %8s | %9s | %11s | %12s |\n' "$sc" "$th" \
      "$(col pgbench 4)" "$(col encbench 4)" "$(col pgbench 5)" "$(col encbench 5)" \
      "$(col pgbench 6)" "$(col encbench 6)" "$(col pgbench 7)" "$(col encbench 7)" >>"$work/split.md"
    printf '| %-9s | %3s | %8.0f | %8.0f | %5.2f | %8.4f | %8.4f | %5.2f | %8.4f | %8.4f | %5.2f | %-13s |\n' "$sc" "$th" \
      "$(col pgbench 1)" "$(col encbench 1)" "$(pair_ratio 1)" "$(col pgbench 2)" "$(col encbench 2)" "$(pair_ratio 2)" \
      "$(col pgbench 3)" "$(col encbench 3)" "$(pair_ratio 3)" "$same"
  done
done
echo
echo "cpu = client CPU seconds (user+sys of the tool's process) per 1,000 transactions; srv = the server's"
echo
echo "where the client's CPU goes (medians; user and sys seconds per 1,000 transactions$( [ "$COUNTS" = 1 ] && echo "; system calls and context switches per transaction, perf stat"))"
echo
echo "| script    | thr | pg user | enc user | pg sys | enc sys | pg calls | enc calls | pg switches | enc switches |"
echo "|-----------|-----|---------|----------|--------|---------|----------|-----------|-------------|--------------|"
cat "$work/split.md"
echo
echo "each pair's encbench / pgbench, in run order (odd pairs: pgbench first)"
echo
echo "| script    | thr | TPS | client cpu | server cpu |"
echo "|-----------|-----|-----|------------|------------|"
cat "$work/pairs.md"
echo
echo "statements per transaction (pg_stat_statements calls / transactions), encbench's last run of each:"
for f in "$work"/*.*.stmts; do echo; echo "$(basename "$f" .stmts):"; sed 's/^/    /' "$f"; done
if [ -s "$work/stmts.md" ]; then echo; echo "pairs whose counts differed:"; cat "$work/stmts.md"; fi
