#!/bin/bash
# The binomial broadcast and reduce at 6-8 ranks, 8 B, --min_time 0.005, 3 rounds: ranks the fit
# (2 and 4) and the check (3 and 5) of ../ never saw. The predictions were printed first (predict.txt).
# Run from the repository root: results/measured/cpu-2core-amd-epyc/shm/min-time-sweep-2026-11-30/beyond-5-ranks/run.sh
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for n in 6 7 8; do
  for c in broadcast reduce; do
    build-dev/bin/ccsim collective "$c" --cluster "$out/../calibrated.json" --nodes 1 --gpus-per-node "$n" --algo tree --impl cclab -b 8 -e 8
  done
done > "$out/predict.txt"
for round in 1 2 3; do
  for n in 6 7 8; do
    mpirun -np "$n" --oversubscribe --bind-to core:overload-allowed --map-by core \
      build-dev/bin/ccbench broadcast,reduce --backend cclab --algo tree --transport shm \
      -b 8 -e 8 -n 20 -w 3 --min_time 0.005 -J "$out/np${n}_r${round}.json" > "$out/np${n}_r${round}.txt"
  done
done
