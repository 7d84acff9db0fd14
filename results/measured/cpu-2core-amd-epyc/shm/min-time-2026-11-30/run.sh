#!/bin/bash
# Small rooted collectives over shared memory with -n 20 against --min_time 0.005, interleaved, 3
# rounds: does a loop of twenty sub-microsecond collectives time a steady state on 2 cores?
# Run from the repository root: results/measured/cpu-2core-amd-epyc/shm/min-time-2026-11-30/run.sh
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in 1 2 3; do
  for n in 3 5; do
    for loop in n20 min5ms; do
      flags="-n 20"
      [ "$loop" = min5ms ] && flags="-n 20 --min_time 0.005"
      mpirun -np "$n" --oversubscribe --bind-to core:overload-allowed --map-by core \
        build-dev/bin/ccbench broadcast,scatter --backend cclab --algo chain,tree --ranks-per-node 1 --transport shm \
        -b 8 -e 2K -f 16 -w 3 $flags -J "$out/np${n}_${loop}_r${round}.json" > "$out/np${n}_${loop}_r${round}.txt"
    done
  done
done
