#!/bin/bash
# Every A/B of this folder, as run (2026-11-29): 2 rounds each.
cd "$(dirname "$0")"
for n in 2 3 4 5; do
  ./ab.sh all_reduce $n tree 2 > tree_all_reduce_np$n.txt
  ./ab.sh reduce $n tree 2 > tree_reduce_np$n.txt
  ./ab.sh all_reduce $n rhd 2 > rhd_all_reduce_np$n.txt
  ./ab.sh reduce_scatter $n rhd 2 > rhd_reduce_scatter_np$n.txt
done
for n in 2 4; do ./ab.sh all_reduce $n rd 2 8 > rd_all_reduce_np$n.txt; done
