#!/usr/bin/env bash
# The fused fold-in (612df5c: rd/rhd all_reduce and rhd reduce_scatter reduce the extra rank's
# message as they receive it) against receive-then-reduce, in the same binary: a build with
# unfused_fold_switch.patch applied (CCLAB_UNFUSED_FOLD=1 takes the old path in receiveReduce
# only), the two alternating launch by launch, `rounds` rounds, 3 and 5 ranks (the counts that
# fold), 64 KiB-16 MiB. Usage: run.sh <ccbench with the patch> [rounds]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
ccbench=${1:?usage: $0 <ccbench built with unfused_fold_switch.patch> [rounds]}
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
for round in $(seq 1 "${2:-3}"); do
  for variant in fused unfused; do
    for n in 3 5; do
      for pair in all_reduce:rd all_reduce:rhd reduce_scatter:rhd; do
        coll=${pair%%:*} algo=${pair##*:}
        env $([ "$variant" = unfused ] && echo CCLAB_UNFUSED_FOLD=1) mpirun -np "$n" --oversubscribe --bind-to core:overload-allowed --map-by core \
          "$ccbench" "$coll" --backend cclab --algo "$algo" --transport shm -b 64K -e 16M -f 4 --min_time 0.005 \
          -J "${coll}_${algo}_np${n}_${variant}_r${round}.json" > "${coll}_${algo}_np${n}_${variant}_r${round}.txt"
      done
    done
  done
done
