#!/bin/bash
# Every algorithm family at 2-5 ranks over shared memory, 8 B - 64 KiB, -n 20 --min_time 0.005,
# three rounds, then ccsim fitted on 2 and 4 ranks and checked on 3 and 5 (calibrate.txt,
# validate.txt): the committed sweep's check below 64 KiB, with loops long enough to time a
# steady state. Run from the repository root:
#   results/measured/cpu-2core-amd-epyc/shm/min-time-sweep-2026-11-30/run.sh
# The committed JSON files had their rows' iter_times_us removed afterwards (24 MB -> 4 MB; the
# percentiles stay, and calibrate and validate print the same with and without them).
set -euo pipefail
out=$(dirname "$0")
source scripts/algorithm_families.sh
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in 1 2 3; do
  tag=""; [ "$round" -eq 1 ] || tag="-r$round"
  for ranks in 2 3 4 5; do
    perNode=$(( ranks % 2 == 0 ? 2 : 1 ))
    for algo in $all_families; do
      mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
        build-dev/bin/ccbench "${family_collectives[$algo]}" --backend mpi,cclab --algo "$algo" --ranks-per-node "$perNode" \
        --transport shm -b 8 -e 64K -f 4 -n 20 -w 3 --min_time 0.005 -J "$out/${algo}_np$ranks$tag.json" > "$out/${algo}_np$ranks$tag.txt"
    done
  done
done
cluster=models/clusters/cpu-2core-amd-epyc.json
build-dev/bin/ccsim calibrate --ranks 2,4 --cluster "$cluster" "$out"/*_np[24]*.json -o "$out/calibrated.json" > "$out/calibrate.txt"
build-dev/bin/ccsim validate --cluster "$out/calibrated.json" --ranks 3,5 "$out"/*_np[35]*.json > "$out/validate.txt"
