#!/usr/bin/env bash
# Per-transaction wake-up costs of one client run against a MariaDB or
# PostgreSQL sandbox: the server's CPU, the client's CPU (user and system),
# the client's voluntary and involuntary context switches, and the
# interrupts each CPU received (RES rescheduling, CAL function-call IPIs,
# /proc/interrupts). Used for issue 43 (bench/README.md): on a virtual
# machine an IPI the server sends to wake a client thread is an exit to the
# hypervisor, charged to the server's CPU.
#
# usage: bench/wakeups.sh SANDBOX_DIR TOOL [WORKLOAD]
#   TOOL: sysbench, or the path of an encbench binary.
# Environment: THREADS (8), TIME (10), TABLES (4), TABLE_SIZE (100000),
# CLIENT_CPUS (0): the client runs under taskset -c CLIENT_CPUS. Start the
# sandbox pinned elsewhere (encbench sandbox up --server-cpus 1) and
# prepare its tables with encbench prepare.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/wakeups.sh SANDBOX_DIR TOOL [WORKLOAD]" >&2; exit 2; }
dir=$1 tool=$2 wl=${3:-oltp_point_select}
th=${THREADS:-8} tm=${TIME:-10} tables=${TABLES:-4} size=${TABLE_SIZE:-100000} cpus=${CLIENT_CPUS:-0}
[ -f "$dir/sandbox.json" ] || { echo "wakeups: $dir is not a sandbox (no sandbox.json)" >&2; exit 2; }
jf() { sed -n "s/.*\"$1\": *\"\{0,1\}\([^\",}]*\).*/\1/p" "$dir/sandbox.json" | head -1; }
engine=$(jf engine) pid=$(jf pid) port=$(jf port) pw=$(jf password)
work=$(mktemp -d /tmp/encbench-wakeups.XXXXXX)
trap 'rm -rf "$work"' EXIT

# server_cpu: ticks of the server process and its live children.
server_cpu() {
  { awk '{print $14+$15+$16+$17}' "/proc/$pid/stat"
    for c in $(cat "/proc/$pid/task/"*/children 2>/dev/null || true); do awk '{print $14+$15}' "/proc/$c/stat" 2>/dev/null || true; done
  } | awk '{s+=$1} END {print s}'
}
# irqs: RES and CAL counts of CPU0 and CPU1, in that order.
irqs() { awk '$1=="RES:" {r0=$2; r1=$3} $1=="CAL:" {c0=$2; c1=$3} END {print r0, r1, c0, c1}' /proc/interrupts; }

s0=$(server_cpu); i0=$(irqs)
case $tool in
  sysbench)
    case $engine in
      mariadb) args="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$port --mysql-user=sbtest --mysql-password=$pw --mysql-db=sbtest --mysql-ssl=off" ;;
      postgres) args="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$port --pgsql-user=sbtest --pgsql-password=$pw --pgsql-db=sbtest" ;;
    esac
    PGSSLMODE=disable /usr/bin/time -f "%U %S %c %w" -o "$work/time" taskset -c "$cpus" sysbench "$wl" $args \
      --tables="$tables" --table-size="$size" --threads="$th" --time="$tm" run >"$work/out" 2>&1 ;;
  *)
    /usr/bin/time -f "%U %S %c %w" -o "$work/time" taskset -c "$cpus" "$tool" run "$wl" --sandbox "$dir" \
      --tables="$tables" --table-size="$size" --threads="$th" --time="$tm" >"$work/out" 2>&1 ;;
esac
sleep 0.5
s1=$(server_cpu); i1=$(irqs)
txns=$(awk '/transactions:/ {print $2; exit}' "$work/out")
read -r u s ic vc <"$work/time"
awk -v name="$(basename "$tool")" -v n="$txns" -v tm="$tm" -v s0="$s0" -v s1="$s1" -v tick="$(getconf CLK_TCK)" \
  -v u="$u" -v s="$s" -v ic="$ic" -v vc="$vc" -v i0="$i0" -v i1="$i1" 'BEGIN {
  split(i0, a, " "); split(i1, b, " ")
  printf "%-9s tps %7.0f  per transaction: server %6.2f us  client %6.2f us (user %5.2f, sys %5.2f)  client switches %.3f voluntary %.3f involuntary  RES cpu0 %.3f cpu1 %.3f  CAL cpu0 %.3f cpu1 %.3f\n",
    name, n / tm, (s1 - s0) / tick / n * 1e6, (u + s) / n * 1e6, u / n * 1e6, s / n * 1e6, vc / n, ic / n,
    (b[1] - a[1]) / n, (b[2] - a[2]) / n, (b[3] - a[3]) / n, (b[4] - a[4]) / n
}'
