#!/usr/bin/env bash
# reduce_scatter at 4 ranks, 16-512 B: the ring (what --algo auto runs there) against recursive
# halving, each beside the MPI library, alternating, three launches each.
# Usage: rs-np4/run.sh <ccbench>
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export CCLAB_MODELS=${CCLAB_MODELS:-$(cd ../../../../../.. && pwd)/models}
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in 1 2 3; do
  for algo in ring rhd auto; do
    mpirun -np 4 --oversubscribe --bind-to core:overload-allowed --map-by core "${1:?usage: $0 <ccbench>}" reduce_scatter -b 16 -e 512 -f 2 \
      --backend mpi,cclab --algo "$algo" --transport shm --min_time 0.005 -J "${algo}_r${round}.json" > "${algo}_r${round}.txt"
  done
done
