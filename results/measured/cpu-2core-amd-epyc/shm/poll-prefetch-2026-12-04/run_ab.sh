#!/usr/bin/env bash
# The receiver's prefetch while it polls (this folder's README) against the build before it: two
# ccbench binaries alternating launch by launch, `rounds` rounds, 2 ranks, every collective of
# issue 17's comparison, 8 B-4 KiB, --algo auto beside the MPI library, shared memory.
# Usage: run_ab.sh <ccbench before> <ccbench after> [rounds]   (outputs in ab/)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
before=${1:?usage: $0 <ccbench before> <ccbench after> [rounds]} after=${2:?usage: $0 <before> <after> [rounds]}
export CCLAB_MODELS=${CCLAB_MODELS:-$(cd ../../../../.. && pwd)/models}  # binaries outside a build tree
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mkdir -p ab
for round in $(seq 1 "${3:-5}"); do
  for variant in before after; do
    ccbench=$([ "$variant" = before ] && echo "$before" || echo "$after")
    for coll in all_reduce all_gather reduce_scatter alltoall broadcast; do
      mpirun -np 2 --oversubscribe --bind-to core:overload-allowed --map-by core "$ccbench" "$coll" -b 8 -e 4K -f 2 \
        --backend mpi,cclab --algo auto --transport shm --min_time 0.005 -J "ab/${coll}_${variant}_r${round}.json" > "ab/${coll}_${variant}_r${round}.txt"
    done
  done
done
