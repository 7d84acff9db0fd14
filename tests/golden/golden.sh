#!/usr/bin/env bash
# Golden outputs: runs ccsim and ccreport on committed inputs and compares what they print and
# write with the outputs committed in tests/golden/expected/. A refactoring must leave every byte
# as it was; a deliberate change of output is made with --update and shows in the diff.
#
#   golden.sh <ccsim> <ccreport> <source dir> [--update]
#
# The inputs are copied into a scratch folder under fixed names first, so paths printed in the
# outputs do not depend on where the data lives in the tree. Lines that hold the commit or a
# time are normalised (they change with every build and run).
set -euo pipefail
# Absolute paths: the tools run in a scratch folder, and the paths are blanked in the outputs.
ccsim=$(realpath "$1") ccreport=$(realpath "$2") src=$(realpath "$3") update=${4:-}
expected=$src/tests/golden/expected
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measured=$src/results/measured/cpu-2core-amd-epyc
for f in sweep_np2.json sweep_np3.json sweep_np4.json sweep_np5.json fitted_np2_np4.json all_reduce_16M-256M_x5.json; do
  cp "$measured/$f" "$work/$f"
done
cp "$src/tests/data/training/ds_config_zero2_offload_2021.json" "$work/ds_zero_offload.json"
cp "$src/tests/data/nccl-tests-h100/all_reduce.txt" "$work/h100_all_reduce.txt"
cp "$src/tests/data/nccl-tests-h100/all_reduce_graph.txt" "$work/h100_all_reduce_graph.txt"
cd "$work"
export NO_COLOR=1

# name | command (run in $work; its stdout, then any files it names after '>>', are compared)
cases=(
  "collective_dgx_h100|$ccsim collective all_reduce --cluster dgx-h100 --nodes 2 -b 8 -e 1G -f 16"
  "collective_all_gather_dgx_a100|$ccsim collective all_gather --cluster dgx-a100 --nodes 4 -b 1K -e 256M -f 64 -d half"
  "collective_unknown|$ccsim collective all --cluster dgx-a100"
  "collective_tree|$ccsim collective all_reduce --cluster dgx-h100 --nodes 16 --algo tree -b 64K -e 4G -f 64"
  "collective_hier|$ccsim collective all_reduce --cluster dgx-a100 --nodes 16 --algo hier -b 64K -e 4G -f 64"
  "collective_alltoall_pcie|$ccsim collective alltoall --cluster h100-pcie-8 --algo pairwise -b 1K -e 1G -f 32"
  "collective_json|$ccsim collective reduce_scatter --cluster h100-pcie-8 -b 1M -e 64M -f 8 -J pred.json >> pred.json"
  "calibrate|$ccsim calibrate sweep_np2.json sweep_np4.json -o fitted.json >> fitted.json"
  "validate|$ccsim validate sweep_np3.json sweep_np5.json --cluster fitted_np2_np4.json"
  "validate_json|$ccsim validate sweep_np3.json --cluster fitted_np2_np4.json --json val.json >> val.json"
  "train_llama2_7b_zero3|$ccsim train --model llama2-7b --cluster dgx-a100 --nodes 8 --zero 3 --micro-batch 2 --global-batch 512 --seq 4096"
  "train_gpt3_3d_json|$ccsim train --model gpt3-175b --cluster dgx-a100 --nodes 128 --tp 8 --pp 16 --schedule interleaved --vpp 2 --micro-batch 1 --global-batch 1536 --seq 2048 --json"
  "train_offload|$ccsim train --model llama2-13b --cluster workstation-4x-a40 --zero 3 --offload optimizer+params --offload-device nvme --micro-batch 1 --global-batch 64 --seq 2048"
  "train_zero_offload|$ccsim train --model gpt3-2.7b --cluster dgx-2h --gpus 16 --seq 2048 --recompute full --deepspeed ds_zero_offload.json"
  "plan_gpt3|$ccsim plan --model gpt3-175b --cluster dgx-a100 --nodes 128 --global-batch 1536 --seq 2048 --top 5"
  "plan_gpt3_offloading|$ccsim plan --model gpt3-175b --cluster dgx-2h --gpus 16 --global-batch 32 --seq 2048 --top 5"
  "accuracy|$ccreport accuracy --measured sweep_np3.json --predicted pred_cclab.json pred_mpi.json --allow-missing --markdown acc.md --json acc.json --junit acc.xml >> acc.md acc.json acc.xml"
  "compare_h100|$ccreport compare --baseline h100_all_reduce.txt --current h100_all_reduce_graph.txt --markdown cmp.md --json cmp.json --junit cmp.xml >> cmp.md cmp.json cmp.xml"
  "compare_repeats|$ccreport compare --baseline all_reduce_16M-256M_x5.json --current all_reduce_16M-256M_x5.json --ignore machine"
)

# ccreport accuracy judges predictions of the 3-rank sweep made here from the fitted cluster.
for impl in "cclab ring" "mpi native"; do
  set -- $impl
  "$ccsim" collective all_reduce --cluster fitted_np2_np4.json --nodes 1 --gpus-per-node 3 --impl "$1" --algo "$2" \
    -b 1K -e 64M -f 4 -J "pred_$1.json" >/dev/null
done

# Commit hashes, times and the tool version change from build to build: blank them.
normalise() {
  sed -E -e 's/(commit |"git_commit": ")[0-9a-f]{7,40}(-dirty)?/\1<commit>/g' \
         -e 's/"(start_time|end_time|generated|time)": "[^"]*"/"\1": "<time>"/g' \
         -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/<time>/g' \
         -e 's/layouts in [0-9.]+ s:/layouts in <seconds> s:/' \
         -e "s#$work#<work>#g; s#$ccsim#<ccsim>#g; s#$ccreport#<ccreport>#g; s#$src#<src>#g"
}

status=0
mkdir -p "$expected"
for entry in "${cases[@]}"; do
  name=${entry%%|*}
  command=${entry#*|}
  files=""
  if [[ $command == *" >> "* ]]; then files=${command#* >> }; command=${command% >> *}; fi
  out=$work/$name.out
  code=0
  $command >"$out.raw" 2>&1 || code=$?
  { echo "# exit $code"; cat "$out.raw"; for f in $files; do echo "# ---- $f"; cat "$f"; done; } | normalise >"$out"
  if [ "$update" = "--update" ]; then
    cp "$out" "$expected/$name.txt"
  elif ! diff -u "$expected/$name.txt" "$out" >"$work/$name.diff"; then
    echo "golden: $name differs from tests/golden/expected/$name.txt:"
    head -40 "$work/$name.diff"
    status=1
  fi
done
[ $status -eq 0 ] && echo "golden: ${#cases[@]} outputs identical"
exit $status
