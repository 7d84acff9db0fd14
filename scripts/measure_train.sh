#!/usr/bin/env bash
# Measures training steps with `ccbench train` on this machine: every layout issue 15 names (DDP at
# 2 and 4 ranks, ZeRO-1/2/3 at 4, GPipe / 1F1B / interleaved at 2 and 4 stages, TP 2, a 2 x 2),
# each with real GEMMs (--compute gemm) and with compute sleeping for its predicted time
# (--compute sleep), on a GPT-2 shrunk 8 times (--scale 8: hidden 96, sequence 128), in fp32.
# Records go to results/measured/<machine>/train/<layout>_<compute>.json with the text beside.
# The cluster is the collective calibration of this machine (fitted_np2_np4.json): the step model
# then prices the same collectives ccbench measured. docs/performance.md reads the results.
#
# Usage: scripts/measure_train.sh <machine-name> [cluster.json] [out-folder]   (after scripts/test.sh or
# demo.sh built it; CCBENCH=<path> runs another build's ccbench)
# ROUNDS=k (k > 1) measures the gemm layouts k times over, one after the other in each round (a
# machine whose speed drifts over minutes then drifts under every layout alike), records named
# <layout>_gemm_r<round>.json, each round after the GEMM benchmark (cpu_gemm_bench_r<round>.json)
# so the drift shows; no sleep or balanced runs. scripts/train_accuracy.sh takes the median over
# the rounds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 1 ] || [ -z "$1" ]; then echo "usage: $0 <machine-name> [cluster.json] [out-folder]" >&2; exit 2; fi
machine=$1
cluster=${2:-results/measured/$machine/fitted_np2_np4.json}
out=${3:-results/measured/$machine/train}
ccbench=${CCBENCH:-build/bin/ccbench}
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
model="--model gpt2 --cluster $cluster --precision fp32 --scale 8 --micro-batch 2 --flash-attention off"
# name ranks layout...
layouts=(
  "ddp_np2        2 --global-batch 8"
  "ddp_np4        4 --global-batch 16"
  "zero1_np4      4 --global-batch 16 --zero 1"
  "zero2_np4      4 --global-batch 16 --zero 2"
  "zero3_np4      4 --global-batch 16 --zero 3"
  "gpipe_pp2      2 --global-batch 16 --pp 2 --schedule gpipe"
  "gpipe_pp4      4 --global-batch 16 --pp 4 --schedule gpipe"
  "1f1b_pp2       2 --global-batch 16 --pp 2 --schedule 1f1b"
  "1f1b_pp4       4 --global-batch 16 --pp 4 --schedule 1f1b"
  "interleaved_pp2 2 --global-batch 16 --pp 2 --vpp 2 --schedule interleaved"
  "interleaved_pp4 4 --global-batch 16 --pp 4 --vpp 3 --schedule interleaved"
  "tp2            2 --global-batch 8 --tp 2"
  "tp2_pp2        4 --global-batch 16 --tp 2 --pp 2"
)
# One launch of a layout: run_layout <entry of layouts> <compute> <record name>.
run_layout() {
  local ranks layout
  read -r _ ranks layout <<<"$1"
  echo "== $3"
  # shellcheck disable=SC2086 # word lists
  mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
    "$ccbench" train $model $layout --compute "$2" -w 2 -n 8 -T 120 -J "$out/$3.json" > "$out/$3.txt"
  grep "step time" "$out/$3.txt"
}
rounds=${ROUNDS:-1}
if [ "$rounds" -gt 1 ]; then
  gemm_bench=${GEMM_BENCH:-$(dirname "$ccbench")/../benchmarks/cpu_gemm_bench}
  for round in $(seq "$rounds"); do
    echo "== round $round: GEMM peak"
    "$gemm_bench" --benchmark_filter=Peak --benchmark_min_time=0.2 --benchmark_out="$out/cpu_gemm_bench_r$round.json" \
      --benchmark_out_format=json | grep Peak
    for entry in "${layouts[@]}"; do run_layout "$entry" gemm "${entry%% *}_gemm_r$round"; done
  done
  exit 0
fi
# The schedules' bubble alone: stages alike (a 16-token vocabulary), compute sleeping, 8 micro-batches.
balanced="--model tests/data/training/models/balanced-pipeline.json --cluster $cluster --precision fp32 --scale 4 --seq 256 --micro-batch 1 --global-batch 8 --dp 1"
for schedule in gpipe 1f1b; do
  for stages in 2 4; do
    name="balanced_${schedule}_pp${stages}_sleep"
    echo "== $name"
    # shellcheck disable=SC2086 # word lists
    mpirun -np "$stages" --oversubscribe "$ccbench" train $balanced --pp "$stages" --schedule "$schedule" --compute sleep \
      -w 2 -n 8 -T 120 -J "$out/$name.json" > "$out/$name.txt"
  done
done
for compute in gemm sleep; do
  for entry in "${layouts[@]}"; do run_layout "$entry" "$compute" "${entry%% *}_$compute"; done
done
