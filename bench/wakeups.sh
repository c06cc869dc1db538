#!/usr/bin/env bash
# Per-transaction costs of one client run against a MariaDB or PostgreSQL
# sandbox: the server's CPU and context switches, the client's CPU (user
# and system) and context switches, the interrupts each CPU received (RES
# rescheduling, CAL function-call IPIs, /proc/interrupts), TCP segments
# each way (/proc/net/snmp) and, on MariaDB, what the server counted
# (bytes each way, executed statements, index reads). Used for issue 43
# (bench/README.md): on a virtual machine an IPI the server sends to wake
# a client thread is an exit to the hypervisor, charged to the server's CPU.
#
# usage: bench/wakeups.sh SANDBOX_DIR TOOL [WORKLOAD]
#   TOOL: sysbench, or the path of an encbench binary.
# Environment: THREADS (8), TIME (10), TABLES (4), TABLE_SIZE (100000),
# CLIENT_CPUS (0): the client runs under taskset -c CLIENT_CPUS. Start the
# sandbox pinned elsewhere (encbench sandbox up --server-cpus 1) and
# prepare its tables with encbench prepare. IDLE_POLL=1 holds
# /dev/cpu_dma_latency at 0 for the run, so idle CPUs poll instead of
# halting (root; it changes the machine, not the tools: for experiments,
# never for the side-by-side check). A sandbox, not a DSN: the server's CPU
# and switches are read from /proc by its process id.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/wakeups.sh SANDBOX_DIR TOOL [WORKLOAD]" >&2; exit 2; }
dir=$1 tool=$2 wl=${3:-oltp_point_select}
th=${THREADS:-8} tm=${TIME:-10} tables=${TABLES:-4} size=${TABLE_SIZE:-100000} cpus=${CLIENT_CPUS:-0}
[ -f "$dir/sandbox.json" ] || { echo "wakeups: $dir is not a sandbox (no sandbox.json)" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
engine=$(json_field "$dir" engine) pid=$(json_field "$dir" pid)
work=$(mktemp -d /tmp/encbench-wakeups.XXXXXX)
trap 'rm -rf "$work"' EXIT

# irqs: RES and CAL counts of CPU0 and CPU1, in that order.
irqs() { awk '$1=="RES:" {r0=$2; r1=$3} $1=="CAL:" {c0=$2; c1=$3} END {print r0, r1, c0, c1}' /proc/interrupts; }
# segments: TCP segments received and sent, machine-wide (loopback counts each once each way).
segments() { awk '/^Tcp:/ {n++; if (n == 2) print $11, $12}' /proc/net/snmp; }
# server_switches: voluntary and involuntary context switches of the
# server's threads and its live children's.
server_switches() {
  cat /proc/"$pid"/task/*/status $(for c in $(cat /proc/"$pid"/task/*/children 2>/dev/null || true); do echo "/proc/$c/status"; done) 2>/dev/null |
    awk '/^voluntary_ctxt/ {v+=$2} /^nonvoluntary_ctxt/ {n+=$2} END {print v+0, n+0}'
}
# counters: MariaDB's own counts of what it was sent and did; none elsewhere.
counters() {
  [ "$engine" = mariadb ] || return 0
  MYSQL_PWD=$(json_field "$dir" admin_password) mariadb --skip-ssl -S "$dir/run/mysqld.sock" -uroot -N -e \
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Bytes_received','Bytes_sent','Com_stmt_execute','Com_stmt_fetch','Com_stmt_reset','Handler_read_key','Handler_read_next')" |
    awk '{printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2} END {print ""}'
}

if [ "${IDLE_POLL:-0}" = 1 ]; then
  # The request lasts while the file stays open (the kernel reads "0" as hex).
  exec 3>/dev/cpu_dma_latency
  printf 0 >&3
fi
s0=$(server_ticks "$dir"); i0=$(irqs); g0=$(segments); w0=$(server_switches); k0=$(counters)
case $tool in
  sysbench)
    PGSSLMODE=disable /usr/bin/time -f "%U %S %c %w" -o "$work/time" taskset -c "$cpus" sysbench "$wl" $(sysbench_args "$engine" "$dir") \
      --tables="$tables" --table-size="$size" --threads="$th" --time="$tm" run >"$work/out" 2>&1 ;;
  *)
    /usr/bin/time -f "%U %S %c %w" -o "$work/time" taskset -c "$cpus" "$tool" run "$wl" --sandbox "$dir" \
      --tables="$tables" --table-size="$size" --threads="$th" --time="$tm" >"$work/out" 2>&1 ;;
esac
sleep 0.5
s1=$(server_ticks "$dir"); i1=$(irqs); g1=$(segments); w1=$(server_switches); k1=$(counters)
if [ "${IDLE_POLL:-0}" = 1 ]; then exec 3>&-; fi
txns=$(awk '/transactions:/ {print $2; exit}' "$work/out")
read -r u s ic vc <"$work/time"
awk -v name="$(basename "$tool")" -v n="$txns" -v tm="$tm" -v s0="$s0" -v s1="$s1" -v tick="$(getconf CLK_TCK)" \
  -v u="$u" -v s="$s" -v ic="$ic" -v vc="$vc" -v i0="$i0" -v i1="$i1" -v g0="$g0" -v g1="$g1" -v w0="$w0" -v w1="$w1" \
  -v k0="$k0" -v k1="$k1" 'BEGIN {
  split(i0, a, " "); split(i1, b, " "); split(g0, c, " "); split(g1, d, " "); split(w0, e, " "); split(w1, f, " ")
  printf "%-9s tps %7.0f  per transaction: server %6.2f us  client %6.2f us (user %5.2f, sys %5.2f)  client switches %.3f voluntary %.3f involuntary  RES cpu0 %.3f cpu1 %.3f  CAL cpu0 %.3f cpu1 %.3f\n",
    name, n / tm, (s1 - s0) / tick / n * 1e6, (u + s) / n * 1e6, u / n * 1e6, s / n * 1e6, vc / n, ic / n,
    (b[1] - a[1]) / n, (b[2] - a[2]) / n, (b[3] - a[3]) / n, (b[4] - a[4]) / n
  printf "%-9s           per transaction: TCP segments in %.2f out %.2f  server switches %.2f voluntary %.2f involuntary",
    "", (d[1] - c[1]) / n, (d[2] - c[2]) / n, (f[1] - e[1]) / n, (f[2] - e[2]) / n
  m = split(k0, x, " "); split(k1, y, " ")
  for (i = 1; i <= m; i++) { split(x[i], p, "="); split(y[i], q, "="); printf "  %s %.2f", p[1], (q[2] - p[2]) / n }
  print ""
}'
