#!/usr/bin/env bash
# Runs a GPU test command when this machine has a GPU; exits 77 (CTest: skipped) when it has none,
# and fails when it has a driver CUDA cannot use (the probe says why).
#   run_on_gpu.sh <gpu_probe> [--min-gpus N] <command...>
# With --min-gpus, a machine with fewer GPUs skips too. In the command, @GPUS@ becomes the number
# of GPUs found.
set -u
probe=$1
shift
need=1
if [ "${1:-}" = --min-gpus ]; then need=$2; shift 2; fi
gpus=$("$probe")
case $? in
  0) ;;
  77) echo "no GPU on this machine: skipped"; exit 77 ;;
  *) echo "gpu_probe: $gpus"; exit 1 ;;
esac
if [ "$gpus" -lt "$need" ]; then echo "$gpus GPU(s), this test needs $need: skipped"; exit 77; fi
args=()
for a in "$@"; do args+=("${a//@GPUS@/$gpus}"); done
exec "${args[@]}"
