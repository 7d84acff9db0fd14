#!/usr/bin/env bash
# The ring reduce at 2-5 ranks with one chunk (no pipeline: each rank's reduction in turn) against
# 1 MiB chunks, ranks bound round-robin to the 2 cores (the sweeps' placement) and unbound, off the
# caches, three rounds alternating; then what a copy on one core costs beside the other core's
# work (copy_pair: two copies at once; copy_beside_yielders: one copy with 0-3 sched_yield loops
# placed on the cores; fresh_read: a buffer just written on the other core against a cold one).
# Run from the repository root: results/measured/cpu-2core-amd-epyc-zen5/ring-reduce-one-chunk-2026-12-05/run.sh
set -u
here=$(dirname "$0")
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in 1 2 3; do
  for chunk in 8M 1M; do
    for bind in core none; do
      for n in 2 3 4 5; do
        if [ $bind = core ]; then placement=(--bind-to core:overload-allowed --map-by core); else placement=(--bind-to none); fi
        mpirun -np $n "${placement[@]}" build/bin/ccbench reduce --backend cclab --algo ring --transport shm --off-cache auto \
          --chunk $chunk -b 8M -e 8M -n 20 -w 3 --min_time 0.005 > "$here/np${n}_chunk${chunk}_bind${bind}_r$round.txt" 2>&1
      done
    done
  done
done
for c in copy_pair copy_beside_yielders yield_loop fresh_read; do gcc -O2 -pthread "$here/$c.c" -o "/tmp/$c"; done
{
  for s in 2048 8192; do /tmp/copy_pair 1 $s; /tmp/copy_pair 2 $s; done
  echo "alone:"; /tmp/copy_beside_yielders
  /tmp/yield_loop 1 0 & P=$!; sleep 0.2; echo "core 1 a busy loop:"; /tmp/copy_beside_yielders; kill $P
  /tmp/yield_loop 1 1 & P=$!; sleep 0.2; echo "core 1 one yield loop:"; /tmp/copy_beside_yielders; kill $P
  /tmp/yield_loop 1 1 & P=$!; /tmp/yield_loop 1 1 & Q=$!; sleep 0.2; echo "core 1 two yield loops:"; /tmp/copy_beside_yielders; kill $P $Q
  /tmp/yield_loop 0 1 & P=$!; sleep 0.2; echo "core 0 shared with a yield loop:"; /tmp/copy_beside_yielders; kill $P
  /tmp/yield_loop 0 1 & P=$!; /tmp/yield_loop 1 1 & Q=$!; /tmp/yield_loop 1 1 & R=$!; sleep 0.2; echo "core 0 one yield loop, core 1 two:"; /tmp/copy_beside_yielders; kill $P $Q $R
  for s in 256 1024 8192; do /tmp/fresh_read $s 0; /tmp/fresh_read $s 1; done
} > "$here/copies.txt" 2>&1
