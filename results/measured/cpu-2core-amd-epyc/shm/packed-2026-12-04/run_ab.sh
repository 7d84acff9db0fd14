#!/usr/bin/env bash
# Small messages packed several to a cache line (this folder's README) against the builds before
# it: three ccbench binaries alternating launch by launch, `rounds` rounds, --algo auto beside the
# MPI library over shared memory. `set` says what runs:
#   ab        2 ranks, every collective of issue 17's comparison, 8 B-4 KiB (into ab/)
#   ranks     the cells of §4 below the library before: broadcast and all_reduce at 5 ranks,
#             reduce_scatter and all_gather at 4, 8-512 B (into ab-ranks/)
#   contended the 2-rank broadcast of 8-512 B with a third process (a shell loop, not bound to a
#             core) busy for the whole run (into ab-contended/)
# Usage: run_ab.sh <ccbench before> <ccbench pick> <ccbench packed> [rounds] [ab|ranks|contended]
# Tables: ../poll-prefetch-2026-12-04/compare.py [--ratio] <folder>
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
usage="usage: $0 <ccbench before> <ccbench pick> <ccbench packed> [rounds] [ab|ranks|contended]"
binaries=("${1:?$usage}" "${2:?$usage}" "${3:?$usage}")
rounds=${4:-5} set=${5:-ab}
case $set in
  ab) out=ab cases="all_reduce:2 all_gather:2 reduce_scatter:2 alltoall:2 broadcast:2" max=4K ;;
  ranks) out=ab-ranks cases="broadcast:5 all_reduce:5 reduce_scatter:4 all_gather:4" max=512 ;;
  contended) out=ab-contended cases="broadcast:2" max=512 ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
export CCLAB_MODELS=${CCLAB_MODELS:-$(cd ../../../../.. && pwd)/models}  # binaries outside a build tree
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mkdir -p "$out"
if [ "$set" = contended ]; then
  bash -c 'while :; do :; done' &
  busy=$!
  trap 'kill $busy' EXIT
fi
for round in $(seq 1 "$rounds"); do
  for variant in 0 1 2; do
    for c in $cases; do
      coll=${c%:*} ranks=${c#*:}
      name=$coll; [ "$set" = ranks ] && name=$coll$ranks
      mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core "${binaries[$variant]}" "$coll" -b 8 -e "$max" -f 2 \
        --backend mpi,cclab --algo auto --transport shm --min_time 0.005 -J "$out/${name}_l${variant}_r${round}.json" > "$out/${name}_l${variant}_r${round}.txt"
    done
  done
done
