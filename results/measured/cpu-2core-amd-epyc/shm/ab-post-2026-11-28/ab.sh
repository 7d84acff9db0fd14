#!/bin/bash
# A/B: old vs new ccbench, interleaved, cclab over shm with --algo $ALGO, mpi beside.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 CCLAB_MODELS=/work/main/models
coll=$1; np=$2; algo=$3; rounds=${4:-3}; b=${5:-1M}
for i in $(seq $rounds); do for v in old new; do
  echo "## $v round $i"
  mpirun -np $np --bind-to core:overload-allowed --map-by core /tmp/exp/ccbench.$v $coll -b $b -e 256M -f 4 --backend mpi,cclab --algo $algo --transport shm -n 10 -w 2 2>&1 | grep -E "^# Backend|^ +[0-9]"
done; done
