# Sourced by the scripts that sweep cclab's algorithms (measure_cpu_algorithms.sh on the CPU,
# gpu_algorithms.sh on a GPU): each family with the collectives it does, as
# collectives/algorithms/algorithms.cc registers them, and the algorithm each family runs per
# collective (the name a results row's `algo` and auto's pick carry).
# shellcheck shell=bash disable=SC2034,SC2054
declare -A family_collectives=(
  [ring]=all
  [rd]=all_reduce
  [rhd]=all_reduce,reduce_scatter,all_gather
  [tree]=all_reduce,broadcast,reduce,gather,scatter
  [bruck]=all_gather,alltoall
  [hier]=all_reduce
  [linear]=alltoall,all_gather,all_reduce,reduce_scatter  # the linear gather and scatter run as the ring family's
)
all_families="ring rd rhd tree bruck hier linear"
# Issue 17 §4's five collectives and the algorithms that do each (the ring family's broadcast is
# the pipelined chain, its alltoall the pairwise exchange).
declare -A collective_algorithms=(
  [all_reduce]="ring rd rhd tree hier linear"
  [all_gather]="ring rhd bruck linear"
  [reduce_scatter]="ring rhd linear"
  [broadcast]="chain tree"
  [alltoall]="pairwise bruck linear"
)
