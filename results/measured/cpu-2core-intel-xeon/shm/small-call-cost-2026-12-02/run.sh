#!/usr/bin/env bash
# A small call's own costs, before (commit <overlap>: sizeOf and the collective's table rows found
# by a search, a map lookup per call in --algo auto, the chain's receive list and the tree's send
# list on the heap) and after (rows at their enum's index, the last call's pick remembered, both
# lists on the stack): broadcast and all_reduce 8 B-4 KiB, 2-5 ranks, flags as
# scripts/measure_cpu_auto.sh, the two builds alternating launch by launch, `rounds` rounds.
#   run.sh <rounds> <before-ccbench> <after-ccbench>   (from the repository root; both in build/bin/)
set -euo pipefail
rounds=${1:?usage: $0 <rounds> <before-ccbench> <after-ccbench>}
before=${2:?}; after=${3:?}
here=$(dirname "${BASH_SOURCE[0]}")
mkdir -p "$here/before" "$here/after"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "$rounds"); do
  for ranks in 2 3 4 5; do
    for collective in broadcast all_reduce; do
      for variant in before after; do
        binary=$before; [ "$variant" = after ] && binary=$after
        mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
          "$binary" "$collective" -b 8 -e 4K -f 2 --backend mpi,cclab --algo auto --transport shm \
          --min_time 0.005 -J "$here/$variant/${collective}_np${ranks}_run$round.json" > "$here/$variant/${collective}_np${ranks}_run$round.txt"
      done
    done
  done
done
