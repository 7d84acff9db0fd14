#!/bin/bash
# A/B: old vs new ccbench (binaries in /tmp/ab/ccbench-{old,new}), interleaved, cclab over shared
# memory with --algo $3, the MPI library beside it in the same processes.
#   ab.sh <collective> <ranks> <algo> [rounds] [min-size]
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
coll=$1; np=$2; algo=$3; rounds=${4:-3}; b=${5:-64K}
for i in $(seq "$rounds"); do for v in old new; do
  echo "## $v round $i"
  mpirun -np "$np" --bind-to core:overload-allowed --map-by core /tmp/ab/ccbench-$v "$coll" -b "$b" -e 16M -f 4 \
    --backend mpi,cclab --algo "$algo" --transport shm -n 20 -w 3 2>&1 | grep -E "^# Backend|^ +[0-9]"
done; done
