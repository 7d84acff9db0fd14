#!/bin/bash
# Ring neighbours on one core or on two: the ring all_reduce, reduce_scatter and sendrecv at 4
# ranks, 2 a core either way, placed as --map-by core places them (rank r on core r mod 2: every
# ring hop crosses the cores) or by a rankfile with ranks 0, 1 on core 0 and 2, 3 on core 1 (the
# hops 0 -> 1 and 2 -> 3 stay on one core). The same load on each core, the same yielding; only
# where each message's two ends run differs. The two placements alternate launch by launch.
# Run from the repository root:
#   results/measured/cpu-2core-intel-xeon/shm/same-core-2026-12-01/run.sh [rounds]
set -euo pipefail
out=$(dirname "$0")
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
rankfile=$(mktemp)
printf 'rank 0=localhost slot=0\nrank 1=localhost slot=0\nrank 2=localhost slot=1\nrank 3=localhost slot=1\n' > "$rankfile"
for round in $(seq 1 "${1:-3}"); do
  for coll in all_reduce reduce_scatter sendrecv; do
    mpirun -np 4 --oversubscribe --bind-to core:overload-allowed --map-by core build/bin/ccbench "$coll" \
      --backend cclab --algo ring --transport shm -b 64K -e 16M -f 4 -n 20 -w 3 --min_time 0.005 > "$out/${coll}_across_r$round.txt"
    mpirun -np 4 --oversubscribe --rankfile "$rankfile" build/bin/ccbench "$coll" \
      --backend cclab --algo ring --transport shm -b 64K -e 16M -f 4 -n 20 -w 3 --min_time 0.005 > "$out/${coll}_within_r$round.txt"
  done
done
rm -f "$rankfile"
