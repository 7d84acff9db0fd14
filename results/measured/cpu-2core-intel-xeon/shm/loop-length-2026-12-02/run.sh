#!/usr/bin/env bash
# The --min_time loop rule, before (commit b0562aa: the loop sized once from the fastest warm-up
# collective) and after (a loop short of --min_time is measured again at its own rate), built
# side by side, alternating launch by launch: alltoall and all_reduce at 3 and 5 ranks, 8 B-64 KiB,
# --algo auto beside the MPI library over the shared-memory transport, -w 1 (the default) and
# --min_time 0.005 as scripts/measure_cpu_auto.sh runs them.
#   run.sh <rounds> <before-ccbench> <after-ccbench>   (from the repository root)
set -euo pipefail
rounds=${1:?usage: $0 <rounds> <before-ccbench> <after-ccbench>}
before=${2:?}; after=${3:?}
here=$(dirname "${BASH_SOURCE[0]}")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "$rounds"); do
  for ranks in 3 5; do
    for collective in alltoall all_reduce; do
      for variant in before after; do
        bin=$before; [ "$variant" = after ] && bin=$after
        echo "== round $round, $collective, $ranks ranks, $variant"
        mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
          "$bin" "$collective" -b 8 -e 64K -f 2 --backend mpi,cclab --algo auto --transport shm --min_time 0.005 \
          -J "$here/${collective}_np${ranks}_${variant}_r$round.json" > "$here/${collective}_np${ranks}_${variant}_r$round.txt"
      done
    done
  done
done
