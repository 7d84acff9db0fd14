#!/usr/bin/env bash
# The main job: build cclab, then benchmark all_reduce from 8 B to 64 MiB with the MPI library's
# own collective and cclab's ring side by side, one rank per core, and write the results file;
# then calibrate the simulator's description of this machine from it, predict a GPU cluster, and
# plan a training run on one; then run one short training step for real (DDP vs ZeRO-3 on 2 ranks,
# ccbench train) beside its prediction; with the GUI built, draw the measurements over the
# predictions.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cclab_build

ranks=$(nproc)
out="results/measured/local/$(hostname)-all_reduce.json"
mkdir -p results/measured/local
echo "== mpirun -np $ranks ccbench all_reduce -b 8 -e 64M -f 2 --backend mpi,cclab -J $out"
mpirun -np "$ranks" build/bin/ccbench all_reduce -b 8 -e 64M -f 2 --backend mpi,cclab -J "$out"

echo
echo "== ccsim calibrate: fit this machine's description to what was just measured"
fitted="results/measured/local/$(hostname)-fitted.json"
if ! build/bin/ccsim calibrate "$out" -o "$fitted"; then
  echo "(no preset describes this machine: scripts/describe_cpu_host.sh <name> writes one from its own benchmarks,"
  echo " scripts/measure_cpu_algorithms.sh <name> calibrates it; docs/ccbench.md, \"--algo auto\")"
fi
echo
echo "== ccsim collective: the same sweep predicted on 4 DGX H100 nodes (32 GPUs)"
build/bin/ccsim collective all_reduce --cluster dgx-h100 --nodes 4 -b 8 -e 64M -f 8
echo
echo "== ccsim plan: the fastest layouts of GPT-3 175B on 1,024 A100s that fit in memory"
build/bin/ccsim plan --model gpt3-175b --cluster dgx-a100 --nodes 128 --global-batch 1536 --seq 2048 --top 5

if [ -x build/bin/ccplan ] && [ -f "$fitted" ]; then
  png="results/measured/local/$(hostname)-all_reduce.png"
  echo
  echo "== ccplan --render: the measurement over the calibrated predictions, drawn into $png"
  build/bin/ccplan --render "$out" --cluster "$fitted" --collective all_reduce -o "$png" && echo "wrote $png"
fi

# A training step measured beside its prediction: GPT-2 shrunk 8 times, DDP and ZeRO-3 on 2 ranks.
echo
cluster=$([ -f "$fitted" ] && echo "$fitted" || echo cpu-2core-amd-epyc)
step="--model gpt2 --cluster $cluster --precision fp32 --scale 8 --micro-batch 2 --global-batch 8 --flash-attention off -w 1 -n 3"
for zero in 0 3; do
  name=$([ "$zero" = 0 ] && echo ddp || echo zero3)
  flags="--zero $zero"
  record="results/measured/local/$(hostname)-train-$name.json"
  echo "== mpirun -np 2 ccbench train $step $flags -J $record"
  # shellcheck disable=SC2086 # word lists
  mpirun -np 2 --oversubscribe build/bin/ccbench train $step $flags -J "$record"
  if [ -x build/bin/ccplan ]; then
    plan="results/measured/local/$(hostname)-train-$name.plan.json"
    # The same settings as a plan file (ccplan's Save plan format): the prediction to draw it beside.
    cat > "$plan" <<EOF
{"model": "gpt2", "cluster": "$cluster", "gpus": 2, "precision": "fp32", "scale": 8, "micro-batch": 2, "global-batch": 8,
 "flash-attention": "off", "zero": $zero, "collectives": "mpi"}
EOF
    png="results/measured/local/$(hostname)-train-$name.png"
    build/bin/ccplan --render "$plan" "$record" -o "$png" && echo "wrote $png (measured step beside the predicted one)"
  fi
done
