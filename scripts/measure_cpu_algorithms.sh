#!/usr/bin/env bash
# Measures cclab's algorithms beyond the ring family at 2-5 ranks on this machine, each beside the
# MPI library in the same processes: the data for calibrating and checking the simulator's
# per-algorithm models (results/measured/<machine>/algorithms/<algo>_np<ranks>.json). Ranks are
# bound as in measure_cpu_sweep.sh. `hier` runs on emulated nodes of 2 ranks where 2 divides them.
#
# Usage: scripts/measure_cpu_algorithms.sh <machine-name> [max-size]   (after scripts/test.sh built it;
# CCBENCH=<path> runs another build's ccbench)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
machine=${1:?usage: $0 <machine-name> [max-size]}
max=${2:-16M}
out="results/measured/$machine/algorithms"
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# Each algorithm with the collectives it does (collectives/algorithms/algorithms.cc).
declare -A collectives=(
  [rd]=all_reduce
  [rhd]=all_reduce,reduce_scatter,all_gather
  [tree]=all_reduce,broadcast,reduce,gather,scatter
  [bruck]=all_gather,alltoall
  [hier]=all_reduce
)
for ranks in 2 3 4 5; do
  perNode=$(( ranks % 2 == 0 ? 2 : 1 ))
  for algo in rd rhd tree bruck hier; do
    echo "== $algo, $ranks ranks"
    mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
      "${CCBENCH:-build/bin/ccbench}" "${collectives[$algo]}" --backend mpi,cclab --algo "$algo" --ranks-per-node "$perNode" \
      -b 1K -e "$max" -f 4 -n 10 -w 2 -J "$out/${algo}_np$ranks.json" > "$out/${algo}_np$ranks.txt"
  done
done
