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
# quit returns before the daemon has gone: wait for it, or the next script's start_mps finds it
# still there, starts none, and its processes time-slice the GPU (a sweep measured 570 us a ring
# step so, against 33 us under MPS, 2026-12-04).
stop_mps() {
  if [ $mps_started = 1 ]; then
    echo quit | timeout 10 nvidia-cuda-mps-control
    local i
    for i in $(seq 50); do pgrep -x nvidia-cuda-mps >/dev/null || break; sleep 0.2; done
    mps_started=0
  fi
}
