#!/usr/bin/env bash
# The main job: build cclab, then benchmark all_reduce from 8 B to 64 MiB with the MPI library's
# own collective and cclab's ring side by side, one rank per core, and write the results file.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cclab_build

ranks=$(nproc)
out="results/local/$(hostname)-all_reduce.json"
mkdir -p results/local
echo "== mpirun -np $ranks ccbench all_reduce -b 8 -e 64M -f 2 --backend mpi,cclab -J $out"
mpirun -np "$ranks" build/bench/ccbench all_reduce -b 8 -e 64M -f 2 --backend mpi,cclab -J "$out"
