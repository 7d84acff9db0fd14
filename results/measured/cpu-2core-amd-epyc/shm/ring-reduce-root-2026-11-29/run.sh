#!/bin/bash
# The ring reduce from root 0 and from root n-1, interleaved, 3 rounds: does placing the chain's
# last hop on one core (root 0 at an odd rank count) cost what the simulator's placement share says?
# Run from the repository root: results/measured/cpu-2core-amd-epyc/shm/ring-reduce-root-2026-11-29/run.sh
set -euo pipefail
out=$(dirname "$0")
for round in 1 2 3; do
  for n in 3 5; do
    for root in 0 $((n - 1)); do
      mpirun -np "$n" --oversubscribe --bind-to core:overload-allowed --map-by core \
        build-dev/bin/ccbench reduce -b 512K -e 8M -f 4 --backend cclab --algo ring --transport shm \
        -r "$root" -n 20 -w 5 > "$out/np${n}_root${root}_r${round}.txt"
    done
  done
done
