#!/usr/bin/env bash
# How the turn length of interleaved blocks sets the noise of A/A ratios:
# runs the same A/A suite (plain against itself on each engine's one
# server, three OLTP models at 1 and 8 threads, 8 blocks of 1 s per cell)
# once per slice, one after the other, and prints per group the standard
# deviation of the blocks' log ratios aa/plain (in percent: the noise a
# loss interval is built from) and the wall time of each suite.
#   bash bench/slices.sh [SLICE ...]     default: 250ms 50ms
set -euo pipefail
cd "$(dirname "$0")/.."
slices=("$@")
[ ${#slices[@]} -gt 0 ] || slices=(250ms 50ms)
make --no-print-directory build >/dev/null
out=$(mktemp -d /tmp/encbench-slices.XXXX)
for sl in "${slices[@]}"; do
	cat >"$out/s$sl.yaml" <<YAML
name: s$sl
targets: [{engine: postgres}, {engine: mariadb}]
variants: [plain, aa]
servers: shared
workloads: [{name: oltp_point_select}, {name: oltp_read_write}, {name: oltp_write_only}]
threads: [1, 8]
time: 1
warmup: 0
turn: $sl
repetitions: 8
data: {tables: 4, table-size: 10000}
client_cpus: auto
server_cpus: auto
YAML
	t0=$(date +%s)
	bin/encbench suite run "$out/s$sl.yaml" --out "$out/$sl" >"$out/$sl.log" 2>&1
	echo "slice $sl: suite took $(($(date +%s) - t0)) s" >>"$out/walls.txt"
done
cat "$out/walls.txt"
python3 - "$out" "${slices[@]}" <<'PY'
import glob, json, math, statistics, sys
out, slices = sys.argv[1], sys.argv[2:]
sd = {}
for sl in slices:
    tps = {}
    for f in glob.glob(f"{out}/{sl}/cells/*.json"):
        r = json.load(open(f))
        _, wl, thr, rep = r["suite"]["cell"].split("__")
        tps[(r["suite"]["target"], wl, thr, rep, r["variant"]["name"])] = r["tps"]
    for (tg, wl, thr, rep, v), x in tps.items():
        if v == "aa" and (tg, wl, thr, rep, "plain") in tps:
            sd.setdefault((tg, wl, thr), {}).setdefault(sl, []).append(math.log(x / tps[(tg, wl, thr, rep, "plain")]))
print("target   workload           thr  " + "  ".join(f"sd {s:>6}" for s in slices))
med = {s: [] for s in slices}
for g in sorted(sd):
    row = []
    for s in slices:
        v = sd[g].get(s, [])
        x = 100 * statistics.stdev(v) if len(v) > 1 else float("nan")
        med[s].append(x)
        row.append(f"{x:8.2f}%")
    print(f"{g[0]:8s} {g[1]:18s} {g[2]:>3s}  " + "  ".join(row))
print("median                           " + "  ".join(f"{statistics.median(med[s]):8.2f}%" for s in slices))
PY
echo "results: $out"
