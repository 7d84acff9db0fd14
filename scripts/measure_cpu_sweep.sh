#!/usr/bin/env bash
# Measures every collective with both CPU backends at 2-5 ranks on this machine: the data the
# simulator is calibrated and validated on (results/measured/<machine>/sweep_np*.json).
#
# Ranks are bound round-robin to cores (`--bind-to core:overload-allowed --map-by core`): with more
# ranks than cores Open MPI otherwise leaves them unbound, the scheduler places them differently
# on every launch, and the same row varies by up to 2x between launches (bound: ~2%).
#
# Usage: scripts/measure_cpu_sweep.sh <machine-name>   (after scripts/test.sh or demo.sh built it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 1 ] || [ -z "$1" ]; then echo "usage: $0 <machine-name>" >&2; exit 2; fi
machine=$1
out="results/measured/$machine"
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for ranks in 2 3 4 5; do
  echo "== $ranks ranks"
  mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
    build/bin/ccbench all --backend mpi,cclab -b 1K -e 64M -f 4 -n 20 -w 3 \
    -J "$out/sweep_np$ranks.json" > "$out/sweep_np$ranks.txt"
done
