#!/usr/bin/env bash
# Runs a GPU test command when this machine has a GPU; exits 77 (CTest: skipped) when it has none,
# and fails when it has a driver CUDA cannot use (the probe says why).
#   run_on_gpu.sh <gpu_probe> <command...>
# In the command, @GPUS@ becomes the number of GPUs found.
set -u
probe=$1
shift
gpus=$("$probe")
case $? in
  0) ;;
  77) echo "no GPU on this machine: skipped"; exit 77 ;;
  *) echo "gpu_probe: $gpus"; exit 1 ;;
esac
args=()
for a in "$@"; do args+=("${a//@GPUS@/$gpus}"); done
exec "${args[@]}"
