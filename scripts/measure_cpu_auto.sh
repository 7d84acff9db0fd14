#!/usr/bin/env bash
# cclab's `--algo auto` beside the MPI library in the same processes (issue 17's comparison):
# every collective below at 2-5 ranks, 8 B to 256 MiB by x2, `runs` launches each (default 5; the
# tables take the median of the paired ratios over them). Ranks are bound as in measure_cpu_sweep.sh.
# Each size runs at least 5 ms (--min_time 0.005; the runs committed before 2026-11-30 ran -n 20).
# The two backends take each size in turn (--interleave, since 2026-12-04: before, the MPI library's
# whole sweep ran first and cclab's after it, so a pair was minutes apart).
#   results/measured/<machine>/auto/<collective>_np<ranks>_run<k>.{json,txt}
#
# Usage: scripts/measure_cpu_auto.sh <machine-name> [runs] [max-size]   (after scripts/test.sh built
# it; CCBENCH=<path> runs another build's ccbench; TRANSPORT=shm runs cclab through the shared
# memory transport, into results/measured/<machine>/auto-shm/ (TRANSPORT=auto: ccbench's default,
# shared memory on one host, into auto-auto/); OUT=<folder> writes there instead;
# FIRST_RUN=k starts at launch k, to add launches to a folder; COLLECTIVES="all_gather alltoall" runs
# only those; MIN_SIZE=8M starts there instead of 8 B; ITERS=5 times each size over at least 5
# iterations instead of 20, for the large sizes, where the MPI library's all_reduce takes up to 2 s a call)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 1 ] || [ -z "$1" ]; then echo "usage: $0 <machine-name> [runs] [max-size]" >&2; exit 2; fi
machine=$1
runs=${2:-5}
max=${3:-256M}
transport=${TRANSPORT:-mpi}
out="results/measured/$machine/auto"
[ "$transport" = mpi ] || out="$out-$transport"
out=${OUT:-$out}
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for run in $(seq "${FIRST_RUN:-1}" "$runs"); do
  for ranks in 2 3 4 5; do
    for collective in ${COLLECTIVES:-all_reduce all_gather reduce_scatter broadcast alltoall}; do
      echo "== run $run, $collective, $ranks ranks"
      mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
        "${CCBENCH:-build/bin/ccbench}" "$collective" -b "${MIN_SIZE:-8}" -e "$max" -f 2 --backend mpi,cclab --algo auto --transport "$transport" \
        --interleave --min_time 0.005 -n "${ITERS:-20}" -J "$out/${collective}_np${ranks}_run$run.json" > "$out/${collective}_np${ranks}_run$run.txt"
    done
  done
done
