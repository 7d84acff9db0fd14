#!/usr/bin/env bash
# cclab's algorithms on device memory, several processes sharing GPU 0 under MPS (docs/gpu.md,
# "The algorithms beyond the ring"), in two steps:
#   sweeps  every family (FAMILIES="linear" only some) at 2, 4, 3 and 5 processes, its collectives,
#           8 B - 64 MiB, -n 20 -w 3: results/measured/<machine>/algorithms/${SWEEPS_DIR:-sweeps}/<family>_np<N>.*,
#           what `ccsim calibrate --ranks 2,4` and `ccsim validate --ranks 3,5` read
#   auto    at 3 and 5 processes (counts the calibration never saw), issue 17's five collectives:
#           --algo auto tuned on CALIBRATION (default ${SWEEPS_DIR:-sweeps}/calibrated.json), then every algorithm
#           that does the collective, one launch each, -n 200 -w 20:
#           results/measured/<machine>/algorithms/${AUTO_DIR:-auto-np35}/<collective>_np<N>_<algo>.*
# Every launch checks its results (-c 1) and ends within CCLAB_GPU_CMD_TIMEOUT seconds (300).
# Usage: scripts/gpu_algorithms.sh <machine-name> sweeps|auto...   (after scripts/gpu_bundle.sh
# unpack, with CCLAB_GPU_BUILD_DIR=build-dev, or a build of its own in build-gpu)
# Exit code: 0 every launch ran and checked, 1 one did not, 2 bad usage or no GPU.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
machine=${1:-}
if [ -z "$machine" ] || [[ "$machine" == -* || "$machine" == */* ]] || [ $# -lt 2 ]; then
  echo "usage: $0 <machine-name> sweeps|auto..." >&2
  exit 2
fi
shift
for s in "$@"; do
  case $s in sweeps|auto) ;; *) echo "$0: unknown step '$s' (sweeps, auto)" >&2; exit 2 ;; esac
done
source scripts/algorithm_families.sh
source scripts/gpu_mps.sh
build=${CCLAB_GPU_BUILD_DIR:-build-gpu}
ccbench=$build/bin/ccbench
out="results/measured/$machine/algorithms"
sweeps=$out/${SWEEPS_DIR:-sweeps}
calibration=${CALIBRATION:-$sweeps/calibrated.json}
"$build/tests/gpu_probe" >/dev/null 2>&1 || { echo "$0: no GPU on this machine (or $build not built)" >&2; exit 2; }
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
trap stop_mps EXIT
start_mps
echo "$mps_status"
status=0

# launch <file stem> <processes> <ccbench arguments...>: one checked run on GPU 0, logged.
launch() {
  local stem=$1 ranks=$2 t0=$SECONDS rc
  shift 2
  CUDA_VISIBLE_DEVICES=0 timeout -k 5 "${CCLAB_GPU_CMD_TIMEOUT:-300}" mpirun --oversubscribe --bind-to none \
      -x CUDA_VISIBLE_DEVICES -np "$ranks" "$ccbench" "$@" --backend cclab --device cuda -c 1 \
      -J "$stem.json" >"$stem.txt" 2>"$stem.err"
  rc=$?
  grep -q "Out of bounds values : 0 OK" "$stem.txt" || { [ "$rc" = 0 ] && rc=1; }
  [ -s "$stem.err" ] || rm -f "$stem.err"
  echo "$(basename "$stem") rc=$rc $((SECONDS - t0)) s" | tee -a "$(dirname "$stem")/log.txt"
  [ "$rc" = 0 ] || status=1
}

for step in "$@"; do
  if [ "$step" = sweeps ]; then
    mkdir -p "$sweeps"
    for ranks in 2 4 3 5; do
      perNode=$(( ranks % 2 == 0 ? 2 : 1 ))
      for family in ${FAMILIES:-$all_families}; do
        launch "$sweeps/${family}_np$ranks" "$ranks" "${family_collectives[$family]}" --algo "$family" \
            --ranks-per-node "$perNode" -b 8 -e 64M -f 4 -n 20 -w 3
      done
    done
  else
    dir="$out/${AUTO_DIR:-auto-np35}"
    mkdir -p "$dir"
    for ranks in 3 5; do
      for collective in all_reduce all_gather reduce_scatter broadcast alltoall; do
        for algo in auto ${collective_algorithms[$collective]}; do
          extra=()
          [ "$algo" = auto ] && extra=(--cluster "$calibration")
          [ "$algo" = hier ] && extra=(--ranks-per-node 1)
          launch "$dir/${collective}_np${ranks}_$algo" "$ranks" "$collective" --algo "$algo" "${extra[@]}" \
              -b 8 -e 64M -f 4 -n 200 -w 20
        done
      done
    done
  fi
done
exit $status
