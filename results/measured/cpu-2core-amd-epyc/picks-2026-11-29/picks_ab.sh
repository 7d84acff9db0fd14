#!/bin/bash
# The sizes whose auto pick moved with the fitted cache capacities: auto (new pick) beside the old
# pick forced, alternating, 3 rounds, MPI library side by side in each launch.
set -u
cd "$(dirname "$0")/../../../.."
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=results/measured/cpu-2core-amd-epyc/picks-2026-11-29
bin=build-dev/bin/ccbench
cases=(
  "all_reduce 3 512K 2M ring"
  "all_reduce 5 1M 1M ring"
  "all_gather 3 16M 64M linear"
  "all_gather 5 8M 64M linear"
  "all_gather 2 2M 8M rhd"
  "all_gather 4 2M 4M rhd"
  "alltoall 2 2M 2M linear"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    set -- $c
    for algo in auto $5; do
      mpirun -np $2 --bind-to core:overload-allowed --map-by core $bin $1 -b $3 -e $4 -f 2 --backend mpi,cclab --algo $algo \
        -n 20 -w 3 > $out/$1_np$2_${algo}_r$round.txt 2>&1
    done
  done
done
