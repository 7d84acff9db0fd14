#!/usr/bin/env bash
# Runs a GPU test command when this machine has a GPU; exits 77 (CTest: skipped) when it has none.
#   run_on_gpu.sh <gpu_probe> <command...>
# In the command, @GPUS@ becomes the number of GPUs found.
set -u
probe=$1
shift
gpus=$("$probe") || { echo "no GPU on this machine: skipped"; exit 77; }
args=()
for a in "$@"; do args+=("${a//@GPUS@/$gpus}"); done
exec "${args[@]}"
