#!/usr/bin/env bash
# Describes this machine for the simulator when no preset does: measures one core's GEMM rate, its
# element-wise pass and memcpy (benchmarks/cpu_gemm_bench, reduce_kernels_bench) and, on two cores,
# whether a rank waiting beside an exchange takes its turn (shm_transport_bench) into
# results/measured/<name>/ and writes models/clusters/<name>.json, a preset that matches this CPU
# (model name, family, online cores), with its cores, memory and caches, on a template preset's
# transport constants (scripts/cpu_description.py --host says what comes from where). Then
# scripts/measure_cpu_algorithms.sh <name> calibrates it, and `ccbench --algo auto` tunes on that
# calibration here. Where a preset already describes this machine it says which and writes
# nothing (FORCE=1 writes anyway; where two presets match alike the first by name wins,
# docs/cluster-format.md).
#
# Usage: scripts/describe_cpu_host.sh <name>   (after scripts/test.sh built it; CCBENCH=<path>,
# BENCHMARKS=<dir> run another build's tools; TEMPLATE=<preset> picks the template, default the
# preset --algo auto takes as the closest (as many cores, else the same vendor); MODELS=<dir>
# reads and writes the descriptions there (a copy of models/, the tools' CCLAB_MODELS),
# RESULTS=<dir> the benchmarks' outputs; BENCH_MIN_TIME=<s> and REPETITIONS=<n> (2 or more: the
# figures are medians) shorten the benchmarks, default 0.2 and 5)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 1 ] || [ -z "$1" ]; then echo "usage: $0 <name>" >&2; exit 2; fi
name=$1
case "$name" in */* | .* | "") echo "describe_cpu_host.sh: '$name' is not a preset name (no slashes)" >&2; exit 2 ;; esac
ccbench=${CCBENCH:-build/bin/ccbench}
benchmarks=${BENCHMARKS:-build/benchmarks}
models=${MODELS:-${CCLAB_MODELS:-models}}
[ -z "${MODELS:-}" ] || export CCLAB_MODELS="$(realpath "$MODELS")"
results=${RESULTS:-results/measured/$name}
repetitions=${REPETITIONS:-5}
[ "$repetitions" -ge 2 ] 2>/dev/null || { echo "describe_cpu_host.sh: REPETITIONS must be 2 or more (got '$repetitions')" >&2; exit 2; }

if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# What --algo auto tunes on here says whether a preset matches this machine (bench/tuner.cc).
tuned=$("$ccbench" broadcast --backend cclab --algo auto --transport shm -b 8 -e 8 -n 1 -w 0 | sed -n 's/.*(tuned on \(.*\)) \(through\|over\) .*/\1/p')
[ -n "$tuned" ] || { echo "describe_cpu_host.sh: $ccbench did not say what --algo auto tunes on here" >&2; exit 2; }
if [ -z "${FORCE:-}" ] && ! grep -q "no preset matches" <<<"$tuned"; then
  echo "describe_cpu_host.sh: this machine is described already: ccbench --algo auto tunes on $tuned; nothing written (FORCE=1 writes $name anyway)"
  exit 0
fi

# The template: the preset --algo auto takes as this machine's closest (same cores, else vendor),
# or with FORCE=1 the one that describes it ("models/calibrations/<preset>[-shm].json (calibrated
# for ..." or "preset <preset> (...; not calibrated)").
template=${TEMPLATE:-$(sed -n -e "s/.*preset \([^ ']*\)'s machine, the closest.*/\1/p" <<<"$tuned")}
[ -n "$template" ] || template=$(sed -n -e "s/^.*calibrations\/\([^ ]*\)\.json (calibrated for '.*/\1/p" -e "s/^preset \([^ ]*\) ('.*/\1/p" <<<"$tuned")
template=${template%-shm}
[ -n "$template" ] || { echo "describe_cpu_host.sh: no template preset (give TEMPLATE=<preset>)" >&2; exit 2; }
mkdir -p "$results" "$models/clusters"
echo "describing this machine as $name (template $template) into $models/clusters/$name.json"
"$benchmarks/cpu_gemm_bench" --benchmark_min_time="${BENCH_MIN_TIME:-0.2}" --benchmark_repetitions="$repetitions" \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true > "$results/cpu_gemm_bench.txt"
"$benchmarks/reduce_kernels_bench" --benchmark_filter='^copy/256M' --benchmark_repetitions="$repetitions" \
  --benchmark_report_aggregates_only=true > "$results/reduce_kernels_bench.txt"
# Whether a rank waiting beside an exchange takes its turn on its core (two-core hosts; elsewhere
# the benchmark measures nothing and the template's value stays, said so).
"$benchmarks/shm_transport_bench" --benchmark_filter=ExchangeBesideAWaitingRank --benchmark_min_time="${BENCH_MIN_TIME:-0.2}" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true > "$results/waiting_rank_bench.txt" 2>&1 || true
python3 scripts/cpu_description.py --host "$name" "$results/cpu_gemm_bench.txt" "$results/reduce_kernels_bench.txt" \
  "$models/clusters/$template.json" "$models/clusters/$name.json" "$results/waiting_rank_bench.txt"
