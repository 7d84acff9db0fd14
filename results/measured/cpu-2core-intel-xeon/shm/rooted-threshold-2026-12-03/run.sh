#!/bin/bash
# The rooted calls' single-copy threshold again, now that a single copy is a memcpy out of the
# sender's shared buffer (068bfe9) and no longer process_vm_readv: --shm-single-copy-rooted 16K,
# 64K and 512K (the description's, chosen on private buffers: ../threshold-sweep-2026-12-01/) on
# the 2-core Intel Xeon VM, broadcast and reduce, 8 KiB - 4 MiB, 2-5 ranks. The settings alternate
# launch by launch; each file is one launch, cclab (--algo auto, shared memory, shared buffers)
# beside the MPI library in the same processes. Run from the repository root:
#   results/measured/cpu-2core-intel-xeon/shm/rooted-threshold-2026-12-03/run.sh [rounds]
# Table: scripts/single_copy_sweep_table.py [--sizes] <this folder>
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "${1:-3}"); do
  for np in 2 3 4 5; do
    for coll in broadcast reduce; do
      for sc in 16K 64K 512K; do
        mpirun -np "$np" --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
          -b 8K -e 4M -f 2 --backend mpi,cclab --algo auto --transport shm --shm-single-copy-rooted "$sc" -n 20 -w 2 \
          > "$out/${coll}_np${np}_sc${sc}_r$round.txt"
      done
    done
  done
done
