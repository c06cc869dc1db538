#!/usr/bin/env bash
# Order within ABBA pairs and pooled pair ratios, from the per-pair tables
# bench/vs-sysbench.sh prints ("each pair's encbench / sysbench"). Reads
# any files holding such tables (saved outputs, or bench/README.md, whose
# recorded runs include them) and prints, for each table row, the mean
# TPS and client-CPU ratio in the pairs sysbench began (odd) and in those
# encbench began (even); then how many rows favour encbench when it goes
# first, with a one-sided sign test that takes rows as independent; then,
# per cell, the median and quartiles of all its client-CPU pair ratios.
#
# usage: bench/order.sh FILE...
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/order.sh FILE..." >&2; exit 2; }
awk -F'|' '
  # binomial upper tail P(X >= k), X ~ Bin(n, 1/2)
  function tail(k, n,   i, c, s) { s = 0; c = 1; for (i = 0; i <= n; i++) { if (i >= k) s += c; c = c * (n - i) / (i + 1) }; return s / 2 ^ n }
  function mean(list, want,   a, n, i, s, m) { n = split(list, a, " "); s = 0; m = 0
    for (i = want; i <= n; i += 2) { s += a[i]; m++ }; return m ? s / m : 0 }
  NF == 8 && $2 ~ /postgres|mariadb/ && split($5, t, " ") >= 4 {
    cell = $2 "|" $3 "|" $4; gsub(/  +/, " ", cell)
    to = mean($5, 1); te = mean($5, 2); co = mean($6, 1); ce = mean($6, 2)
    printf "%-40s pairs %2d  TPS sb-first %.3f enc-first %.3f  client sb-first %.3f enc-first %.3f\n", cell, split($5, t, " "), to, te, co, ce
    rows++; if (te > to) tps++; if (ce < co) cpu++
    pool[cell] = pool[cell] " " $6
  }
  END {
    if (!rows) { print "order: no per-pair tables found" > "/dev/stderr"; exit 1 }
    printf "\nrows where encbench did better in the pairs it began: TPS %d of %d (p = %.3f), client CPU %d of %d (p = %.3f)\n", tps, rows, tail(tps, rows), cpu, rows, tail(cpu, rows)
    print "\npooled client-CPU pair ratios per cell: pairs, median, quartiles"
    for (c in pool) {
      n = split(pool[c], v, " ")
      for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
      med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%-40s %3d  %.3f  %.2f-%.2f\n", c, n, med, v[int((n + 3) / 4)], v[int((3 * n + 3) / 4)]
    }
  }' "$@"
