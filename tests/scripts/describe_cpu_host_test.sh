#!/usr/bin/env bash
# A machine no preset describes, end to end: scripts/describe_cpu_host.sh writes its description
# (what it matches, its cores), ccbench --algo auto tunes on it, scripts/measure_cpu_algorithms.sh
# sweeps one family, calibrates on 2 and 4 ranks and checks 3 and 5, and auto then tunes on that
# calibration. All of it in a copy of models/ whose CPU presets match nothing.
# Usage: describe_cpu_host_test.sh <source-dir> <build-dir> <work-dir>
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
models="$work/models"
cp -rL "$src/models" "$models"
rm -f "$models"/calibrations/cpu-*.json
for preset in "$models"/clusters/cpu-*.json; do
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["matches"] = ["no CPU of this test"]; json.dump(d, open(sys.argv[1], "w"), indent=2)' "$preset"
done
export CCLAB_MODELS="$models" CCBENCH="$build/bin/ccbench" CCSIM="$build/bin/ccsim" BENCHMARKS="$build/benchmarks"
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
fail() { echo "FAIL: $*"; exit 1; }
tuned() { "$CCBENCH" broadcast --backend cclab --algo auto --transport shm -b 8 -e 8 -n 1 -w 0 | grep "tuned on"; }

tuned | grep -q "no preset matches" || fail "a preset still matches this machine: $(tuned)"
MODELS="$models" RESULTS="$work/results" BENCH_MIN_TIME=0.01 REPETITIONS=2 "$src/scripts/describe_cpu_host.sh" test-host
python3 - "$models/clusters/test-host.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
model = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
assert d["name"] == "test-host", d["name"]
assert d["matches"] == [model], (d["matches"], model)
assert d["match_cpu_cores"] == d["intra_node"]["cores"] == d["gpus_per_node"] == os.cpu_count(), d["match_cpu_cores"]
assert d["intra_node"]["bandwidth_gbps"] > 0 and d["gpu"]["peak_tflops"]["fp32"] > 0
print(f"described: matches {d['matches']}, {d['match_cpu_cores']} cores, copy {d['intra_node']['bandwidth_gbps']} GB/s a core")
PY
tuned | grep -q "preset test-host (.*not calibrated)" || fail "auto does not tune on the new description: $(tuned)"
# The caches as sysfs reports them (many VMs report none): on 8 CPUs an L2 of each CPU's own is
# per core, an L3 shared by 4 is the node's two instances together; L1 and instruction caches out.
cache="$work/sys/cpu0/cache"
for index in 0:1:Data:48K:0 1:1:Instruction:32K:0 2:2:Unified:1024K:0 3:3:Unified:32768K:0-3; do
  IFS=: read -r i level type size shared <<<"$index"
  mkdir -p "$cache/index$i"
  echo "$level" > "$cache/index$i/level"; echo "$type" > "$cache/index$i/type"
  echo "$size" > "$cache/index$i/size"; echo "$shared" > "$cache/index$i/shared_cpu_list"
done
CCLAB_SYSFS_CPU="$work/sys" CCLAB_CORES=8 python3 "$src/scripts/cpu_description.py" --host eight "$work/results/cpu_gemm_bench.txt" \
  "$work/results/reduce_kernels_bench.txt" "$models/clusters/test-host.json" "$work/eight.json" > /dev/null
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["intra_node"]["caches"]
assert [(x["bytes"], x["per_core"]) for x in c] == [(1 << 20, True), (64 << 20, False)], c' "$work/eight.json"
# Whether a rank waiting beside an exchange takes its turn (BM_ExchangeBesideAWaitingRank's
# medians, polling / asleep): 2.2 against 1.0 us does, 1.05 against 1.0 does not, and a run that
# measured nothing (a host of other than two cores) keeps the template's value and says so.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["intra_node"]; print(d.get("waiting_ranks_take_turns_source", ""))' \
  "$models/clusters/test-host.json" | grep -q "BM_ExchangeBesideAWaitingRank" || fail "describe_cpu_host.sh did not measure the waiting rank's turn"
for case in "2.2 1.0 True" "1.05 1.0 False" "- - kept"; do
  read -r polling asleep expected <<<"$case"
  if [ "$polling" = - ]; then
    echo "BM_ExchangeBesideAWaitingRank/0/real_time ERROR OCCURRED: 'needs a host of two cores (three ranks on two)'" > "$work/waiting.txt"
  else
    printf 'BM_ExchangeBesideAWaitingRank/0/real_time_median 2 ns 1 ns 5 exchange_us=%s rank 2 polling beside rank 0\nBM_ExchangeBesideAWaitingRank/1/real_time_median 1 ns 1 ns 5 exchange_us=%s rank 2 asleep\n' \
      "$polling" "$asleep" > "$work/waiting.txt"
  fi
  python3 "$src/scripts/cpu_description.py" --host waiting "$work/results/cpu_gemm_bench.txt" "$work/results/reduce_kernels_bench.txt" \
    "$src/models/clusters/cpu-2core-amd-epyc.json" "$work/waiting.json" "$work/waiting.txt" > /dev/null
  python3 - "$work/waiting.json" "$expected" <<'PY'
import json, sys
intra = json.load(open(sys.argv[1]))["intra_node"]
if sys.argv[2] == "kept":
    assert intra["waiting_ranks_take_turns"] is True and intra["waiting_ranks_take_turns_source"].startswith("not measured here"), intra
else:
    assert intra["waiting_ranks_take_turns"] is (sys.argv[2] == "True"), intra
PY
done
# Described now: a second run writes nothing.
MODELS="$models" RESULTS="$work/results" REPETITIONS=2 "$src/scripts/describe_cpu_host.sh" other-name | grep -q "described already"
[ ! -e "$models/clusters/other-name.json" ] || fail "described twice"

MODELS="$models" RESULTS="$work/results" TRANSPORT=shm FAMILIES=rd "$src/scripts/measure_cpu_algorithms.sh" test-host 64K > "$work/measure.txt"
[ -s "$models/calibrations/test-host-shm.json" ] || fail "no calibration written"
grep -q "cclab  *all_reduce  *rd" "$work/results/algorithms-shm/calibrate.txt" || fail "rd not fitted: $(cat "$work/results/algorithms-shm/calibrate.txt")"
grep -q "cclab  *all_reduce  *rd .* 3 " "$work/results/algorithms-shm/validate.txt" || fail "3 ranks not checked"
tuned | grep -q "calibrations/test-host-shm.json (calibrated for" || fail "auto does not tune on the calibration: $(tuned)"
echo "PASS: described, calibrated and tuned on"
