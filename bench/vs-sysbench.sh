#!/usr/bin/env bash
# Side-by-side check of encbench against sysbench 1.0.20 on the same local
# sandboxes, in ABBA pairs (sysbench, encbench, encbench, sysbench, ...) so
# machine drift and the order within a pair hit both tools alike. Prints medians of TPS, p95 latency, client CPU
# seconds per 1,000 transactions, the server's CPU seconds per 1,000
# transactions and statements per transaction as counted by
# the server itself (MariaDB Com_* counters, PostgreSQL pg_stat_statements).
#
# Environment knobs: PAIRS (4; an odd count is rounded up to even), TIME (20), TABLES (4), TABLE_SIZE (100000),
# THREADS ("1 8"), WORKLOADS ("oltp_point_select oltp_read_only oltp_read_write"),
# ENGINES ("postgres mariadb"), KEEP=1 keeps the sandboxes' directory,
# CLIENT_CPUS / SERVER_CPUS pin both tools and the servers (for example 0 and
# 1) so the kernel's thread placement, which moves 1-thread results by 2x on
# a 2-vCPU machine, is the same for both tools; empty (default) pins nothing.
set -euo pipefail

PAIRS=${PAIRS:-4}
# ABBA is balanced only over an even number of pairs: the tool that runs
# first in a pair tends to do a little better (27 of 41 rows recorded in
# bench/README.md gave encbench a higher TPS ratio in the pairs it began;
# bench/order.sh counts them), so an odd count
# hands one tool an extra first place. Round up.
if [ $((PAIRS % 2)) = 1 ]; then
  echo "vs-sysbench: PAIRS=$PAIRS is odd; running $((PAIRS + 1)) so each tool goes first equally often" >&2
  PAIRS=$((PAIRS + 1))
fi
TIME=${TIME:-20}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
THREADS=${THREADS:-"1 8"}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_only oltp_read_write"}
ENGINES=${ENGINES:-"postgres mariadb"}
CLIENT_CPUS=${CLIENT_CPUS:-}
SERVER_CPUS=${SERVER_CPUS:-}
client_pin=()
[ -n "$CLIENT_CPUS" ] && client_pin=(taskset -c "$CLIENT_CPUS")

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
for tool in sysbench /usr/bin/time go; do
  command -v "$tool" >/dev/null || { echo "vs-sysbench: $tool is missing (make deps installs it)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/encbench-vs-sysbench.XXXXXX)
chmod 755 "$work"
# A private copy, so rebuilding bin/encbench meanwhile cannot change the run.
go build -o "$work/encbench" ./cmd/encbench
enc=$work/encbench
cleanup() {
  for e in $ENGINES; do "$enc" sandbox down --dir "$work/$e" 2>/dev/null || true; done
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

# json_field, server_ticks, sysbench_args
. "$top/bench/lib.sh"

# server_statements ENGINE DIR: statements the server has executed so far.
server_statements() {
  local dir=$2
  case $1 in
    mariadb)
      MYSQL_PWD=$(json_field "$dir" admin_password) mariadb --skip-ssl -S "$dir/run/mysqld.sock" -uroot -N -e \
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select','Com_insert','Com_update','Com_delete','Com_begin','Com_commit')" |
        awk '{s+=$2} END {print s}' ;;
    postgres)
      PGPASSWORD=$(json_field "$dir" admin_password) psql -X -q -A -t -h "$dir/run" -p "$(json_field "$dir" port)" -U postgres -d sbtest -c \
        "SELECT coalesce(sum(calls),0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = 'sbtest' AND s.query NOT LIKE '%pg_stat%' AND s.query NOT LIKE '%pg_settings%'" ;;
  esac
}

# server_cpu DIR: CPU seconds of the sandbox's server so far.
server_cpu() { awk -v n="$(server_ticks "$1")" -v t="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f\n", n/t}'; }

# run_one TOOL ENGINE WORKLOAD THREADS -> "tps p95 cpu_per_1000 stmts_per_txn server_cpu_per_1000"
run_one() {
  local tool=$1 engine=$2 wl=$3 th=$4 dir=$work/$2 out=$work/out.txt tm=$work/time.txt
  local before after srv_before srv_after
  before=$(server_statements "$engine" "$dir")
  srv_before=$(server_cpu "$dir")
  case $tool in
    sysbench)
      # libpq would otherwise negotiate TLS whenever a server offers it.
      PGSSLMODE=disable /usr/bin/time -f "%U %S" -o "$tm" "${client_pin[@]}" sysbench "$wl" $(sysbench_args "$engine" "$dir") \
        --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$th" --time="$TIME" --percentile=95 run >"$out" 2>&1 ;;
    encbench)
      /usr/bin/time -f "%U %S" -o "$tm" "${client_pin[@]}" "$enc" run "$wl" --sandbox "$dir" \
        --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$th" --time="$TIME" >"$out" 2>&1 ;;
  esac
  sleep 0.5 # lets the ended backends be reaped, so their CPU is the server's
  srv_after=$(server_cpu "$dir")
  after=$(server_statements "$engine" "$dir")
  local txns tps p95 cpu
  txns=$(awk '/transactions:/ {print $2; exit}' "$out")
  tps=$(awk '/transactions:/ {gsub(/\(/,"",$3); print $3; exit}' "$out")
  p95=$(awk '/95th percentile:/ {print $3; exit}' "$out")
  cpu=$(awk '{print $1+$2}' "$tm")
  awk -v tps="$tps" -v p95="$p95" -v cpu="$cpu" -v txns="$txns" -v d="$((after - before))" -v s0="$srv_before" -v s1="$srv_after" \
    'BEGIN {printf "%s %s %.4f %.3f %.4f\n", tps, p95, cpu/txns*1000, d/txns, (s1-s0)/txns*1000}'
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }

for e in $ENGINES; do
  extra=""
  [ "$e" = postgres ] && extra="--stat-statements"
  [ -n "$SERVER_CPUS" ] && extra="$extra --server-cpus $SERVER_CPUS"
  "$enc" sandbox up --engine "$e" --dir "$work/$e" $extra >/dev/null
  "$enc" prepare oltp_read_write --sandbox "$work/$e" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$TABLES" >/dev/null
done

echo "encbench vs sysbench $(sysbench --version | awk '{print $2}'), $(date -u +%Y-%m-%d), $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $PAIRS pairs x ${TIME}s, $TABLES tables x $TABLE_SIZE rows"
echo "medians; ratio = median over pairs of encbench / sysbench; statements per transaction counted by the server"
echo "placement: clients on CPUs ${CLIENT_CPUS:-any}, servers on CPUs ${SERVER_CPUS:-any}"
printf '\n| %-8s | %-17s | %3s | %9s | %9s | %5s | %8s | %8s | %5s | %8s | %8s | %5s | %9s | %9s | %8s | %8s | %5s |\n' \
  engine workload thr "sb TPS" "enc TPS" ratio "sb p95" "enc p95" ratio "sb cpu" "enc cpu" ratio "sb stmt" "enc stmt" "sb srv" "enc srv" ratio
printf '|%s|\n' "----------|-------------------|-----|-----------|-----------|-------|----------|----------|-------|----------|----------|-------|-----------|-----------|----------|----------|-------"
: >"$work/pairs.md"
for e in $ENGINES; do
  for wl in $WORKLOADS; do
    for th in $THREADS; do
      : >"$work/sysbench.rows"; : >"$work/encbench.rows"
      # ABBA: the tool that runs first alternates, so neither always
      # inherits the other's server state (caches, purge, thread cache).
      for p in $(seq "$PAIRS"); do
        order="sysbench encbench"
        [ $((p % 2)) = 0 ] && order="encbench sysbench"
        for tool in $order; do run_one "$tool" "$e" "$wl" "$th" >>"$work/$tool.rows"; done
      done
      col() { awk -v c="$2" '{print $c}' "$work/$1.rows" | median; }
      # ratio of each pair (adjacent runs share the machine's drift), then the median
      pair_ratio() { paste -d' ' "$work/sysbench.rows" "$work/encbench.rows" |
        awk -v c="$1" '{n=NF/2; print ($c>0 ? $(c+n)/$c : 0)}' | median; }
      sb_tps=$(col sysbench 1); en_tps=$(col encbench 1)
      sb_p95=$(col sysbench 2); en_p95=$(col encbench 2)
      sb_cpu=$(col sysbench 3); en_cpu=$(col encbench 3)
      sb_st=$(col sysbench 4); en_st=$(col encbench 4)
      sb_srv=$(col sysbench 5); en_srv=$(col encbench 5)
      r_tps=$(pair_ratio 1); r_p95=$(pair_ratio 2); r_cpu=$(pair_ratio 3); r_srv=$(pair_ratio 5)
      # each pair's ratio, in run order, so a reader can see how far one
      # pair's machine differed from the next before trusting a median
      pair_list() { paste -d' ' "$work/sysbench.rows" "$work/encbench.rows" |
        awk -v c="$1" '{n=NF/2; printf "%s%.2f", (NR > 1 ? " " : ""), ($c>0 ? $(c+n)/$c : 0)} END {print ""}'; }
      printf '| %-8s | %-17s | %3s | %s | %s | %s |\n' "$e" "$wl" "$th" "$(pair_list 1)" "$(pair_list 3)" "$(pair_list 5)" >>"$work/pairs.md"
      awk -v e="$e" -v w="$wl" -v t="$th" -v a="$sb_tps" -v b="$en_tps" -v c="$sb_p95" -v d="$en_p95" \
        -v f="$sb_cpu" -v g="$en_cpu" -v h="$sb_st" -v i="$en_st" -v j="$sb_srv" -v k="$en_srv" -v rt="$r_tps" -v rp="$r_p95" -v rc="$r_cpu" -v rs="$r_srv" 'BEGIN {
          printf "| %-8s | %-17s | %3s | %9.0f | %9.0f | %5.2f | %8.2f | %8.2f | %5.2f | %8.4f | %8.4f | %5.2f | %9.2f | %9.2f | %8.4f | %8.4f | %5.2f |\n",
            e, w, t, a, b, rt, c, d, rp, f, g, rc, h, i, j, k, rs }'
    done
  done
done
echo
echo "cpu = client CPU seconds (user+sys of the tool's process) per 1,000 transactions; srv = the server's CPU seconds per 1,000 transactions"
echo
echo "each pair's encbench / sysbench, in run order (odd pairs: sysbench first)"
echo
echo "| engine   | workload          | thr | TPS | client cpu | server cpu |"
echo "|----------|-------------------|-----|-----|------------|------------|"
cat "$work/pairs.md"
