#!/bin/bash
# A/B of ccbench variants, interleaved rounds, cclab over shm (--algo auto unless ALGO), MPI beside.
# usage: ab.sh <collective> <ranks> <min> <max> <rounds> <iters> "name|ENV=V ...|extra flags" ...
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 CCLAB_MODELS=/work/main/models
coll=$1; np=$2; b=$3; e=$4; rounds=$5; iters=$6; shift 6
for i in $(seq $rounds); do for v in "$@"; do
  IFS='|' read -r name envs flags <<< "$v"
  echo "## $name round $i"
  env $envs mpirun -np $np --bind-to core:overload-allowed --map-by core ${CCBENCH:-/tmp/xp/ccbench} $coll -b $b -e $e -f 2 --backend mpi,cclab --transport shm -n $iters -w $((iters/10+1)) $flags 2>&1 | grep -E "^# Backend|^ +[0-9]"
done; done
