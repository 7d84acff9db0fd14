#!/usr/bin/env bash
# The broadcast root's own copy (send -> recv out of place), before (commit 4d69bf2: copied, then
# the sends posted) and after (the sends posted, then the copy, so it runs while the children read):
# ccbench built at each, alternating launch by launch, `rounds` rounds, 2-5 ranks, flags as
# scripts/measure_cpu_auto.sh. before/ runs 256 KiB-256 MiB (where out of place fell below the MPI
# library); after/ runs the whole range 8 B-256 MiB, issue 17 section 4's broadcast table.
#   run.sh <rounds> <before-ccbench> <after-ccbench>   (from the repository root; both binaries in
#   build/bin/ so that --algo auto finds models/)
set -euo pipefail
rounds=${1:?usage: $0 <rounds> <before-ccbench> <after-ccbench>}
before=${2:?}; after=${3:?}
here=$(dirname "${BASH_SOURCE[0]}")
mkdir -p "$here/before" "$here/after"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
launch() {  # <ccbench> <first size> <folder> <ranks> <round>
  mpirun -np "$4" --oversubscribe --bind-to core:overload-allowed --map-by core \
    "$1" broadcast -b "$2" -e 256M -f 2 --backend mpi,cclab --algo auto --transport shm \
    --min_time 0.005 -J "$3/broadcast_np$4_run$5.json" > "$3/broadcast_np$4_run$5.txt"
}
for round in $(seq 1 "$rounds"); do
  for ranks in 2 3 4 5; do
    echo "== round $round, $ranks ranks"
    launch "$before" 256K "$here/before" "$ranks" "$round"
    launch "$after" 8 "$here/after" "$ranks" "$round"
  done
done
