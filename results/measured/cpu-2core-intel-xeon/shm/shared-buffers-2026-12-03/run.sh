#!/bin/bash
# The run's host buffers in shared memory the other processes map (--host-buffers shared: cclab's
# single copies read them with memcpy) against private heap memory (private: read with
# process_vm_readv, as before), on the 2-core Intel Xeon VM, for the five collectives of issue
# 17's section 4 at 1-256 MiB. The two settings alternate launch by launch; each file is one
# launch, cclab (--algo auto, shared memory) beside the MPI library in the same processes and on
# the same buffers. Run from the repository root:
#   results/measured/cpu-2core-intel-xeon/shm/shared-buffers-2026-12-03/run.sh [rounds]
# (FIRST_ROUND=k starts at round k, to add rounds to the folder)
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq "${FIRST_ROUND:-1}" "${1:-3}"); do
  for np in 2 3 4 5; do
    for coll in all_reduce reduce_scatter all_gather broadcast alltoall; do
      for buffers in private shared; do
        mpirun -np "$np" --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
          -b 1M -e 256M -f 4 --backend mpi,cclab --algo auto --transport shm --host-buffers "$buffers" -n 5 -w 1 \
          > "$out/${coll}_np${np}_${buffers}_r$round.txt"
      done
    done
  done
done
