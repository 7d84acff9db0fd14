#!/usr/bin/env bash
# The one-chunk ring reduce of 8 MiB off the caches with its ranks placed on the 2 cores by a
# rankfile: round-robin (rank r on core r mod 2, as the sweeps place them), in blocks (ranks 0-1
# on core 0, the rest on core 1) and at 4 ranks 0 and 3 on core 0, 1 and 2 on core 1; three rounds
# alternating. The chain runs 1 -> 2 -> ... -> n-1 -> 0, so the placements differ in which hops
# cross between the cores. Run from the repository root.
set -u
here=$(dirname "$0")
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
rankfile() { local f=$1 r=0; shift; : > "$f"; for core in "$@"; do echo "rank $r=localhost slot=$core" >> "$f"; r=$((r + 1)); done; }
dir=$(mktemp -d)
rankfile "$dir/rr2" 0 1; rankfile "$dir/rr3" 0 1 0; rankfile "$dir/block3" 0 0 1
rankfile "$dir/rr4" 0 1 0 1; rankfile "$dir/block4" 0 0 1 1; rankfile "$dir/mixed4" 0 1 1 0
for round in 1 2 3; do
  for p in rr2 rr3 block3 rr4 block4 mixed4; do
    mpirun -np "${p: -1}" --rankfile "$dir/$p" build/bin/ccbench reduce --backend cclab --algo ring --transport shm --off-cache auto \
      --chunk 8M -b 8M -e 8M -n 20 -w 3 --min_time 0.005 > "$here/placed_${p}_r$round.txt" 2>&1
  done
done
rm -r "$dir"
