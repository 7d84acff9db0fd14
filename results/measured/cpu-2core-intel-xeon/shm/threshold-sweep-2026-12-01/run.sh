#!/bin/bash
# Which single-copy threshold, below the 1 MiB where the A/B of ../ab-single-copy-2026-12-01/
# starts: --shm-single-copy 0 (every message through the slots), 16K, 64K, 512K (the
# description's), on the 2-core Intel Xeon VM, 8 KiB - 4 MiB, for the collectives still below the
# MPI library there (alltoall, all_gather) and all_reduce, reduce_scatter, broadcast beside them.
# The settings alternate launch by launch; each file is one launch, cclab (--algo auto, shared
# memory) beside the MPI library in the same processes. Run from the repository root:
#   results/measured/cpu-2core-intel-xeon/shm/threshold-sweep-2026-12-01/run.sh [rounds]
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "${1:-2}"); do
  for np in 2 3 4 5; do
    for coll in alltoall all_gather all_reduce reduce_scatter broadcast; do
      for sc in 0 16K 64K 512K; do
        mpirun -np "$np" --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
          -b 8K -e 4M -f 2 --backend mpi,cclab --algo auto --transport shm --shm-single-copy "$sc" -n 20 -w 2 \
          > "$out/${coll}_np${np}_sc${sc}_r$round.txt"
      done
    done
  done
done
