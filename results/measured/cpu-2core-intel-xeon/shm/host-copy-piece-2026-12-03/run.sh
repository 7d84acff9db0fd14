#!/bin/bash
# cclab's own host copies (HostDevice::copy: a rank's local copies) in one memcpy a copy
# (--host-copy-piece 0) against 128 KiB pieces (the default before this machine's description
# gave one), on the 2-core Intel Xeon VM, for the collectives that stayed below the MPI library at
# large sizes here (broadcast, all_gather, alltoall). The two settings alternate launch by launch;
# each file is one launch, cclab (--algo auto, shared memory) beside the MPI library in the same
# processes. Run from the repository root:
#   results/measured/cpu-2core-intel-xeon/shm/host-copy-piece-2026-12-03/run.sh [rounds]
# (FIRST_ROUND=k starts at round k, to add rounds to the folder)
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq "${FIRST_ROUND:-1}" "${1:-3}"); do
  for np in 2 3 4 5; do
    for coll in broadcast all_gather alltoall; do
      for piece in 0 128K; do
        mpirun -np "$np" --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
          -b 4M -e 256M -f 4 --backend mpi,cclab --algo auto --transport shm --host-copy-piece "$piece" -n 5 -w 1 \
          > "$out/${coll}_np${np}_piece${piece}_r$round.txt"
      done
    done
  done
done
