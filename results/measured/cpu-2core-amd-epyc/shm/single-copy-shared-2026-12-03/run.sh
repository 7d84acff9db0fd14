#!/bin/bash
# The single-copy threshold on the 2-core AMD EPYC VM now that a single copy is a memcpy out of the
# sender's shared buffer (068bfe9; the description's 0, every message through the slots, was chosen
# on private buffers, when the single copy was process_vm_readv: ../ab-single-copy-2026-11-28/):
# --shm-single-copy and --shm-single-copy-rooted both 0, 16K, 64K and 512K, 8 KiB - 4 MiB, 2-5
# ranks, the calls where every rank sends and receives and the rooted broadcast and reduce. The
# settings alternate launch by launch; each file is one launch, cclab (--algo auto, shared memory,
# shared buffers) beside the MPI library in the same processes. Run from the repository root:
#   results/measured/cpu-2core-amd-epyc/shm/single-copy-shared-2026-12-03/run.sh [rounds]
# Table: scripts/single_copy_sweep_table.py [--sizes] <this folder>
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "${1:-3}"); do
  for np in 2 3 4 5; do
    for coll in alltoall all_gather all_reduce reduce_scatter broadcast reduce; do
      for sc in 0 16K 64K 512K; do
        mpirun -np "$np" --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
          -b 8K -e 4M -f 2 --backend mpi,cclab --algo auto --transport shm --shm-single-copy "$sc" \
          --shm-single-copy-rooted "$sc" -n 20 -w 2 > "$out/${coll}_np${np}_sc${sc}_r$round.txt"
      done
    done
  done
done
