# Sourced by the GPU scripts. Several processes on one GPU need NVIDIA's MPS to share it: without
# it the GPU time-slices between their contexts and every ring step waits for a switch (about
# 290 us on an H200, against 29 us under MPS: docs/gpu.md). start_mps starts it when the driver
# has it and it is not running yet (CCLAB_GPU_MPS=0 leaves it off) and says which in $mps_status;
# stop_mps stops what it started.
# shellcheck shell=bash disable=SC2034
mps_started=0
start_mps() {
  if [ "${CCLAB_GPU_MPS:-1}" != 0 ] && command -v nvidia-cuda-mps-control >/dev/null && ! pgrep -x nvidia-cuda-mps >/dev/null; then
    timeout 10 nvidia-cuda-mps-control -d && mps_started=1
  fi
  mps_status="MPS: $([ $mps_started = 1 ] && echo "started for this run" || echo "not started (CCLAB_GPU_MPS=${CCLAB_GPU_MPS:-1}; already running or not in this driver)")"
}
stop_mps() { if [ $mps_started = 1 ]; then echo quit | timeout 10 nvidia-cuda-mps-control; mps_started=0; fi; }
