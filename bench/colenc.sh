#!/usr/bin/env bash
# Column encryption's cost per field beside the cipher's (issue 18): Go
# benchmarks of every scheme and of raw AES-256-GCM and Tink's AES-SIV on
# the same bytes, in one run; with COUNT rounds the sub-benchmarks alternate
# (raw, tink, rnd, det, ore, ashe, raw, ...). Prints medians, allocations,
# ratios to raw AES-256-GCM and whether each target holds.
#   COUNT=7 BENCHTIME=1s bash bench/colenc.sh
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-7}
BENCHTIME=${BENCHTIME:-1s}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench '^BenchmarkColenc$' -benchmem -count "$COUNT" -benchtime "$BENCHTIME" \
  ./internal/encryption/colenc/ >"$out"
cpu=$(grep -m1 '^cpu:' "$out" | sed 's/^cpu: //')
echo "encbench column encryption cost, $(date -u +%Y-%m-%d), $(nproc) CPUs ($cpu), Go $(go env GOVERSION | sed 's/^go//'), $COUNT alternating rounds x $BENCHTIME"
echo "medians over rounds; x gcm = median over rounds of the ratio to raw AES-256-GCM seal+open of the same round"
echo
awk -v count="$COUNT" '
/^BenchmarkColenc\// {
  name = $1; sub(/^BenchmarkColenc\//, "", name); sub(/-[0-9]+$/, "", name)
  round[name]++; r = round[name]
  for (i = 3; i < NF; i++) {
    if ($(i+1) == "ns/op") ns[name, r] = $i
    if ($(i+1) == "allocs/op") allocs[name] = $i
    if ($(i+1) == "bytes/value") extra[name] = $i " bytes/value"
    if ($(i+1) == "aes/op") extra[name] = $i " AES blocks/op"
  }
  if (!(name in seen)) { seen[name] = 1; order[++n] = name }
}
function median(a, m,   i, j, t) {
  for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
  # issue 56: like for like with raw GCM (the ciphertext into a buffer of the caller,
  # the read checked in the scratch space of the Field, as workers read)
  target["rnd-120"] = "x gcm <= 1.5, 0 allocs"; target["det-120"] = "x gcm <= 2, 0 allocs"
  target["rnd-120-values"] = "allocs <= 2"; target["det-120-values"] = "allocs <= 2"
  target["ore-encrypt-int64"] = "<= 20000 ns, allocs <= 2, <= 430 bytes"; target["ashe-encrypt-int64"] = "<= 4 AES blocks, 0 allocs"
  printf "| %-20s | %10s | %7s | %6s | %-22s | %-42s | %-5s |\n", "field operation", "ns/op", "x gcm", "allocs", "measure", "target", "holds"
  printf "|%s|%s|%s|%s|%s|%s|%s|\n", "----------------------", "------------", "---------", "--------", "------------------------", "--------------------------------------------", "-------"
  for (k = 1; k <= n; k++) {
    name = order[k]; m = round[name]
    delete a; delete q
    for (r = 1; r <= m; r++) { a[r] = ns[name, r]; q[r] = ns[name, r] / ns["raw-aes-gcm-120", r] }
    med = median(a, m); ratio = median(q, m)
    holds = "-"
    if (name == "rnd-120") holds = (ratio <= 1.5 && allocs[name] == 0) ? "yes" : "NO"
    if (name == "det-120") holds = (ratio <= 2 && allocs[name] == 0) ? "yes" : "NO"
    if (name ~ /-values$/) holds = (allocs[name] <= 2) ? "yes" : "NO"
    if (name == "ore-encrypt-int64") { split(extra[name], e, " "); holds = (med <= 20000 && allocs[name] <= 2 && e[1] <= 430) ? "yes" : "NO" }
    if (name == "ashe-encrypt-int64") { split(extra[name], e, " "); holds = (e[1] <= 4 && allocs[name] == 0) ? "yes" : "NO" }
    printf "| %-20s | %10.1f | %7.2f | %6d | %-22s | %-42s | %-5s |\n", name, med, ratio, allocs[name], extra[name], target[name], holds
  }
}' "$out"
