#!/usr/bin/env bash
# Everything issue 5 asks of a GPU machine, in one script (docs/gpu.md, "On a GPU machine"):
#   build    configure without the GUI and build into build-gpu/
#   test     the GPU tests (exact results of every collective x datatype x op, NCCL and cclab's
#            CUDA ring with 1-4 processes sharing GPU 0)
#   measure  both of:
#     collectives  NCCL at 1 rank, 8 B - 4 GiB, for the five collectives nccl-tests was run with;
#                  the reduce kernel vs cudaMemcpy; cclab's CUDA ring with 2, 4 and 8 processes
#                  sharing GPU 0
#     train        ccbench train (GPT-2 on one GPU, DDP vs ZeRO-3 with 2 processes on GPU 0); with
#                  PyTorch: eager GPT-2 steps and GEMMs alone (scripts/torch_step.py, torch_gemm.py)
#   check    ccbench's NCCL numbers against nccl-tests's from the same kind of machine
#            (tests/data/nccl-tests-h100): algbw within 3% from 32 MiB, time within 1 us below
#
# Usage: scripts/gpu_measure.sh <machine-name> [build|test|measure|collectives|train|check|all]...   (default: all)
# Results land in results/measured/<machine-name>/ and the logs in results/measured/<machine-name>/logs/; with
# $OUT set (the device machine), the lot is also packed into $OUT/gpu-results.tgz.
# Exit code: 0 all passed, 1 a test or check failed, 2 bad usage or no GPU.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

machine=${1:-}
if [ -z "$machine" ] || [[ "$machine" == -* || "$machine" == */* ]]; then
  echo "usage: $0 <machine-name> [build|test|measure|collectives|train|check|all]..." >&2
  exit 2
fi
shift
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(all)
for s in "${steps[@]}"; do
  case $s in build|test|measure|collectives|train|check|all) ;;
    *) echo "$0: unknown step '$s' (build, test, measure, collectives, train, check, all)" >&2; exit 2 ;; esac
done

out="results/measured/$machine"
logs="$out/logs"
build=${CCLAB_GPU_BUILD_DIR:-build-gpu}  # another folder for a second configuration
mkdir -p "$logs"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# Each launch and the GPU test suite end within a limit, so one that hangs on a first GPU run costs
# that much and the rest still runs (CCLAB_GPU_CMD_TIMEOUT, CCLAB_GPU_TEST_TIMEOUT; seconds).
mpirun=(timeout -k 5 "${CCLAB_GPU_CMD_TIMEOUT:-900}" mpirun --oversubscribe --bind-to none)
status=0

wants() {  # measure is collectives and train; all is every step
  local s
  for s in "${steps[@]}"; do
    [ "$s" = "$1" ] || [ "$s" = all ] && return 0
    [ "$s" = measure ] && [[ "$1" == collectives || "$1" == train ]] && return 0
  done
  return 1
}
note() { echo "== $*" | tee -a "$logs/summary.txt"; }

pack() {  # on the device machine: everything back in one file, whatever happened
  [ -n "${OUT:-}" ] && tar czf "$OUT/gpu-results.tgz" "$out" && echo "packed $out into \$OUT/gpu-results.tgz"
}
# Several processes on one GPU (the tests and the cclab ring runs) share it under MPS, started
# here and stopped at exit (scripts/gpu_mps.sh).
source scripts/gpu_mps.sh
finish() { stop_mps; pack; }
trap finish EXIT

if wants build; then
  note "build ($(nvcc --version 2>/dev/null | tail -1))"
  # sm_90 only: the H100/H200 this runs on; a shorter build than the default sm_80+sm_90.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCLAB_BUILD_GUI=OFF -DCCLAB_BUILD_TESTS=ON \
      -DCMAKE_CUDA_ARCHITECTURES="${CCLAB_CUDA_ARCHITECTURES:-90}" >"$logs/configure.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" >"$logs/build.log" 2>&1 || { note "build FAILED (logs/build.log)"; exit 1; }
  grep -E "^--   (CUDA|NCCL|MPI)" "$logs/configure.log" | tee -a "$logs/summary.txt"
fi

ccbench=$build/bin/ccbench
"$build/tests/gpu_probe" >/dev/null 2>&1 || { echo "$0: no GPU on this machine (or $build not built)" >&2; exit 2; }
nvidia-smi -L >"$logs/nvidia-smi.txt" 2>&1
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
start_mps
note "$mps_status"
nvidia-smi topo -m >>"$logs/nvidia-smi.txt" 2>&1

if wants test; then
  note "GPU tests: ctest --test-dir $build -L gpu --output-on-failure"
  ctest --test-dir "$build" -L gpu --output-on-failure --timeout "${CCLAB_GPU_TEST_TIMEOUT:-900}" >"$logs/gpu_tests.log" 2>&1 || status=1
  grep -E "tests passed|Passed|Failed|Skipped|\*\*\*" "$logs/gpu_tests.log" | tee -a "$logs/summary.txt"
fi

if wants collectives; then
  for c in all_reduce all_gather reduce_scatter broadcast alltoall; do
    note "NCCL $c, 1 rank, 8 B - 4 GiB (nccl-tests's flags: -b 8 -e 4G -f 4 -g 1 -w 5 -n 20)"
    "${mpirun[@]}" -np 1 "$ccbench" "$c" --backend nccl -b 8 -e 4G -f 4 -g 1 -w 5 -n 20 \
        -J "$out/nccl_${c}_np1.json" >"$out/nccl_${c}_np1.txt" 2>"$logs/nccl_$c.err" || { status=1; note "FAILED: $c"; }
  done
  note "NCCL all_reduce under CUDA graphs (-G 20)"
  "${mpirun[@]}" -np 1 "$ccbench" all_reduce --backend nccl -b 8 -e 4G -f 4 -g 1 -G 20 -w 5 -n 20 \
      -J "$out/nccl_all_reduce_graph_np1.json" >"$out/nccl_all_reduce_graph_np1.txt" 2>"$logs/nccl_graph.err" || status=1
fi

if wants train; then
  # Training steps on the GPU beside their predictions (cuBLAS GEMMs in bf16): GPT-2 on one GPU,
  # and DDP vs ZeRO-3 with 2 processes sharing GPU 0 over cclab's CUDA ring (HBM is the link).
  # Predicted on the GPU's own description: dgx-h200 on an H200, else dgx-h100.
  preset=dgx-h100
  [[ "$gpu_name" == *H200* ]] && preset=dgx-h200
  train=(train --model gpt2 --cluster "$preset" --precision mixed --micro-batch 8 -w 3 -n 10)
  note "ccbench train: GPT-2, 1 rank, NCCL"
  "${mpirun[@]}" -np 1 "$ccbench" "${train[@]}" --global-batch 8 --backend nccl -J "$out/train_gpt2_np1.json" \
      --trace "$out/train_gpt2_np1.trace.json" >"$out/train_gpt2_np1.txt" 2>"$logs/train_np1.err" || { status=1; note "FAILED: train np 1"; }
  grep -E "^# step time" "$out/train_gpt2_np1.txt" | tee -a "$logs/summary.txt"
  for zero in 0 3; do
    # Timed without -c 1: checking stages every collective through host copies (seconds per step
    # at GPT-2's size); the GPU tests check the same steps at --scale 8.
    note "ccbench train: GPT-2, ZeRO-$zero, 2 processes on GPU 0, cclab CUDA ring"
    CUDA_VISIBLE_DEVICES=0 "${mpirun[@]}" -x CUDA_VISIBLE_DEVICES -np 2 "$ccbench" "${train[@]}" --global-batch 16 --zero "$zero" \
        --backend cclab --device cuda -J "$out/train_gpt2_zero${zero}_np2.json" --trace "$out/train_gpt2_zero${zero}_np2.trace.json" \
        >"$out/train_gpt2_zero${zero}_np2.txt" 2>"$logs/train_zero$zero.err" || { status=1; note "FAILED: train ZeRO-$zero"; }
    grep -E "^# (step time|Out of bounds)" "$out/train_gpt2_zero${zero}_np2.txt" | tee -a "$logs/summary.txt"
  done
  # Bigger GPT-2s on one GPU beside their predictions, and eager PyTorch's own step of the same
  # models where the machine has PyTorch (scripts/torch_step.py): the reference for both.
  for m in gpt2 gpt2-medium gpt2-large; do
    mb=8; [ "$m" = gpt2-large ] && mb=4
    if [ "$m" != gpt2 ]; then
      note "ccbench train: $m, 1 rank, NCCL, micro-batch $mb"
      "${mpirun[@]}" -np 1 "$ccbench" train --model "$m" --cluster "$preset" --precision mixed --micro-batch $mb \
          --global-batch $mb -w 3 -n 10 --backend nccl -J "$out/train_${m}_np1.json" >"$out/train_${m}_np1.txt" \
          2>"$logs/train_$m.err" || { status=1; note "FAILED: train $m"; }
      grep -E "^# step time" "$out/train_${m}_np1.txt" | tee -a "$logs/summary.txt"
    fi
    if python3 -c "import torch" 2>/dev/null; then
      note "eager PyTorch: $m, micro-batch $mb (scripts/torch_step.py)"
      timeout -k 5 "${CCLAB_GPU_CMD_TIMEOUT:-900}" python3 scripts/torch_step.py "models/cards/$m.json" --micro-batch $mb \
          >"$out/torch_${m}.json" 2>"$logs/torch_$m.err" && tee -a "$logs/summary.txt" <"$out/torch_${m}.json"
    fi
  done
  if python3 -c "import torch" 2>/dev/null; then
    # The evidence for the GPU description's gemm_efficiency and unaligned_gemm_slowdown, and
    # GPT-2 with the vocabulary padded as nanoGPT pads it (docs/training.md, "Unaligned GEMMs").
    note "GEMMs alone, GPT-2's shapes (scripts/torch_gemm.py)"
    timeout -k 5 "${CCLAB_GPU_CMD_TIMEOUT:-900}" python3 scripts/torch_gemm.py --tokens 8192 --hidden 768 \
        >"$out/torch_gemm_gpt2.jsonl" 2>"$logs/torch_gemm.err" && grep logits "$out/torch_gemm_gpt2.jsonl" | tee -a "$logs/summary.txt"
    note "eager PyTorch: gpt2, micro-batch 8, vocabulary padded to 50,304"
    timeout -k 5 "${CCLAB_GPU_CMD_TIMEOUT:-900}" python3 scripts/torch_step.py models/cards/gpt2.json --micro-batch 8 --vocab-multiple 64 \
        >"$out/torch_gpt2_padded.json" 2>"$logs/torch_gpt2_padded.err" && tee -a "$logs/summary.txt" <"$out/torch_gpt2_padded.json"
  fi
fi

if wants collectives; then
  note "reduce kernel vs cudaMemcpy (benchmarks/cuda_reduce_bench)"
  "$build/benchmarks/cuda_reduce_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      --benchmark_out="$out/cuda_reduce_bench.json" --benchmark_out_format=json >"$out/cuda_reduce_bench.txt" 2>&1 || status=1
  grep -E "ReduceKernelOverMemcpy.*(mean|median)" "$out/cuda_reduce_bench.txt" | tee -a "$logs/summary.txt"
  # Last: the longest runs.
  for np in ${CCLAB_GPU_RING_NPS-2 4 8}; do  # CCLAB_GPU_RING_NPS="" skips them
    # Several processes share GPU 0: HBM is the link. Up to 1 GiB (8 processes x 2 buffers fit in 80 GB).
    note "cclab CUDA ring, $np processes on one GPU, 8 B - ${CCLAB_GPU_RING_MAX:-1G}"
    CUDA_VISIBLE_DEVICES=0 "${mpirun[@]}" -x CUDA_VISIBLE_DEVICES -np "$np" "$ccbench" all --backend cclab --device cuda -b 8 -e "${CCLAB_GPU_RING_MAX:-1G}" -f 4 -w 5 -n 20 \
        -J "$out/cclab_cuda_ring_np$np.json" >"$out/cclab_cuda_ring_np$np.txt" 2>"$logs/cclab_np$np.err" || { status=1; note "FAILED: np $np"; }
  done
fi

if wants check; then
  # Same machine kind, same flags: out-of-place algbw within 3% from 32 MiB, any row within 1 us
  # (NCCL's in-place copy at 1 rank is a no-op of ~1 us: only the slack can judge it).
  # --allow-missing: nccl-tests rounds blocks to 16 bytes, so its first all_gather, reduce_scatter
  # and alltoall row is 0 B where ccbench's is 8 B (docs/results-schema.md); the summary counts it.
  same_measure=(--threshold 3 --time-slack 1 --latency-bytes 32M --either-way --ignore machine --allow-missing)
  # The reference is an H100's: on another GPU the comparison is printed for information only (an
  # H200 runs these one-rank copies 1.42x faster, its HBM's ratio: docs/gpu.md).
  judged=1
  if [[ "$gpu_name" != *H100* ]]; then
    judged=0
    note "the nccl-tests reference is from an H100, this GPU is '$gpu_name': compared for information, not judged"
  fi
  check_failed() { [ $judged = 1 ] && status=1; return 0; }
  for c in all_reduce all_gather reduce_scatter broadcast alltoall; do
    [ -f "$out/nccl_${c}_np1.json" ] || continue
    note "ccbench NCCL $c vs nccl-tests (tests/data/nccl-tests-h100/$c.txt)"
    "$build/bin/ccreport" compare --baseline "tests/data/nccl-tests-h100/$c.txt" --current "$out/nccl_${c}_np1.json" \
        "${same_measure[@]}" --markdown "$out/nccl_vs_nccl_tests_$c.md" >"$logs/check_$c.txt" 2>&1 || check_failed
    head -1 "$logs/check_$c.txt" | tee -a "$logs/summary.txt"
  done
  if [ -f "$out/nccl_all_reduce_graph_np1.json" ]; then
    note "ccbench NCCL all_reduce -G 20 vs nccl-tests -G 20"
    "$build/bin/ccreport" compare --baseline tests/data/nccl-tests-h100/all_reduce_graph.txt \
        --current "$out/nccl_all_reduce_graph_np1.json" "${same_measure[@]}" >"$logs/check_graph.txt" 2>&1 || check_failed
    head -1 "$logs/check_graph.txt" | tee -a "$logs/summary.txt"
  fi
fi

note "done: exit $status (summary in $logs/summary.txt)"
exit $status
