#!/usr/bin/env bash
# The experiments behind the receiver's prefetch (../README.md), each a folder here: one ccbench
# built with a switch patch, its variants chosen by environment variables, alternating launch by
# launch, `rounds` rounds, 2 ranks unless said, `--backend mpi,cclab`, shared memory.
#   line-mode switch (../line_mode_switch.patch on 644b8bc): CCLAB_LINE_MAX (messages this large
#     and smaller as lines; 0: none), CCLAB_LINE_BYTES (a line's bytes, one sequence word each),
#     CCLAB_POLL_PREFETCH (prefetch a message's lines while polling, messages up to this size)
#   prefetch switches (../prefetch_switches.patch on the commit): CCLAB_POLL_PREFETCH 0 none,
#     1 messages of one slot or less, 2 a message's first fragment (the commit), 3 every fragment;
#     CCLAB_NEXT=1 the receiver also prefetches the next slot's header; CCLAB_NEXTW=1 the sender
#     prefetches the next slot's header for writing. (pf1 and pf2 ran an earlier form of the
#     switch: every fragment of messages up to CCLAB_POLL_PREFETCH bytes; its 4096 is mode 1 and
#     its 65536 and 1073741824 are mode 3 up to those sizes.)
#   tail batches (../tail_batch_switch.patch on the commit): CCLAB_TAIL_BATCH=k raises a channel's
#     tail every k fragments read (and whenever the rank is idle) instead of after each
# Usage: run.sh <experiment> <ccbench with its patch> [rounds]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
experiment=${1:?usage: $0 <old|lb|lines3|pf1|pf2|pf3|nx|nextw|tail-batch> <ccbench> [rounds]} ccbench=${2:?usage: $0 <experiment> <ccbench> [rounds]}
export CCLAB_MODELS=${CCLAB_MODELS:-$(cd ../../../../../.. && pwd)/models}
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mkdir -p "$experiment"
bench() {  # <environment> <file prefix> <ranks> <collective> ccbench options...
  local environment=$1 prefix=$2 ranks=$3 coll=$4
  shift 4
  env $environment mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core "$ccbench" "$coll" "$@" \
    --backend mpi,cclab --transport shm -J "$experiment/$prefix.json" > "$experiment/$prefix.txt"
}
for r in $(seq 1 "${3:-3}"); do
  case $experiment in
    old | lb | lines3)  # slots, lines and the prefetch, messages of 64 B-2 KiB by 64
      case $experiment in old) vs="0 2048";; lb) vs="64 128 256";; lines3) vs="1 2 3";; esac
      for v in $vs; do
        case $experiment:$v in
          old:*) e="CCLAB_LINE_MAX=$v";;
          lb:*) e="CCLAB_LINE_MAX=2048 CCLAB_LINE_BYTES=$v";;
          lines3:1) e="CCLAB_LINE_MAX=0";; lines3:2) e="CCLAB_LINE_MAX=2048";; lines3:3) e="CCLAB_LINE_MAX=0 CCLAB_POLL_PREFETCH=4096";;
        esac
        for coll in all_reduce sendrecv; do
          bench "$e" "${coll}_l${v}_r$r" 2 "$coll" -b 64 -e 2048 -f 1 -i 64 --algo rd,ring --min_time 0.003
        done
      done;;
    pf1 | pf3)  # how much to prefetch, 64 B-64 KiB (pf1) or 64 B-4 MiB through the slots only (pf3)
      for v in $([ "$experiment" = pf1 ] && echo "0 4096 65536" || echo "0 1 2"); do
        for coll in all_reduce sendrecv; do
          if [ "$experiment" = pf1 ]; then
            bench "CCLAB_POLL_PREFETCH=$v" "${coll}_l${v}_r$r" 2 "$coll" -b 64 -e 64K -f 2 --algo rd,ring --min_time 0.003
          else
            bench "CCLAB_POLL_PREFETCH=$v" "${coll}_l${v}_r$r" 2 "$coll" -b 64 -e 4M -f 4 --algo rd,ring --shm-single-copy 0 --min_time 0.003
          fi
        done
      done;;
    pf2)  # every fragment prefetched against none, a ring all_reduce through the slots, 2 and 3 ranks
      for v in 0 1073741824; do
        for n in 2 3; do
          bench "CCLAB_POLL_PREFETCH=$v" "all_reduce${n}_l${v}_r$r" "$n" all_reduce -b 4K -e 4M -f 4 --algo ring --shm-single-copy 0 --min_time 0.003
        done
      done;;
    nx)  # broadcast, 2/4/5 ranks: 0 no prefetch, 1 the commit, 2 the commit and the next slot's header
      for v in 0 1 2; do
        case $v in 0) e="CCLAB_POLL_PREFETCH=0";; 1) e="CCLAB_POLL_PREFETCH=2";; 2) e="CCLAB_NEXT=1";; esac
        for n in 2 4 5; do bench "$e" "broadcast${n}_l${v}_r$r" "$n" broadcast -b 8 -e 4K -f 2 --algo auto --min_time 0.003; done
      done;;
    nextw)  # the sender's prefetch of the next slot for writing, 2 and 4 ranks
      for v in 0 1; do
        for n in 2 4; do
          for coll in broadcast all_reduce; do
            bench "CCLAB_NEXTW=$v" "${coll}${n}_l${v}_r$r" "$n" "$coll" -b 8 -e 4K -f 4 --algo auto --min_time 0.003
          done
        done
      done;;
    tail-batch)  # the receiver's tail raised after every fragment or every 16, 2 and 4 ranks
      for v in 1 16; do
        for n in 2 4; do
          for coll in broadcast all_reduce alltoall; do
            bench "CCLAB_TAIL_BATCH=$v" "${coll}${n}_l${v}_r$r" "$n" "$coll" -b 8 -e 1M -f 4 --algo auto --min_time 0.003
          done
        done
      done;;
    *) echo "run.sh: unknown experiment '$experiment'" >&2; exit 2;;
  esac
done
