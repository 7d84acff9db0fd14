#!/bin/bash
# Single copy from 512 KiB (--shm-single-copy 512K) against every message through the slots (0,
# the default), on the 2-core Intel Xeon VM: the A/B of results/measured/cpu-2core-amd-epyc/shm/
# ab-single-copy-2026-11-28/ again on this machine, for the collectives that stay below the MPI
# library at large sizes here (alltoall, all_gather) and all_reduce beside them. The two settings
# alternate launch by launch; each file is one launch, cclab (--algo auto, shared memory) beside
# the MPI library in the same processes. Run from the repository root:
#   results/measured/cpu-2core-intel-xeon/shm/ab-single-copy-2026-12-01/run.sh [rounds]
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "${1:-2}"); do
  for np in 2 3 4 5; do
    for coll in alltoall all_gather all_reduce; do
      for sc in 512K 0; do
        mpirun -np "$np" --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
          -b 1M -e 256M -f 4 --backend mpi,cclab --algo auto --transport shm --shm-single-copy "$sc" -n 5 -w 1 \
          > "$out/${coll}_np${np}_sc${sc}_r$round.txt"
      done
    done
  done
done
