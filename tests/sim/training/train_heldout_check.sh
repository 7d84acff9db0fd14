#!/usr/bin/env bash
# Issue 15's check of the step model on this machine's own training records: every configuration
# measured with real GEMMs (ROUNDS=k scripts/measure_train.sh: the median of the rounds' medians),
# predicted by ccsim train on a cluster description; the configurations of the named calibration
# subset left out, the rest judged against the targets (median and max |step error|, %).
#   train_heldout_check.sh [--expect-miss] <ccsim> <records-folder> <cluster.json> <max-median> <max> <named layout>...
# Prints the table and the summary; exits 1 past a target (with --expect-miss: 1 unless past one,
# to prove the check can fail), 2 when the records cannot be judged.
set -uo pipefail
expectMiss=0
if [ "${1:-}" = --expect-miss ]; then expectMiss=1; shift; fi
ccsim=$1 folder=$2 cluster=$3 maxMedian=$4 maxError=$5
shift 5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
CCSIM=$ccsim "$here/../../../scripts/train_accuracy.sh" "$folder" "$cluster" --json "$rows" || { echo "train_accuracy.sh failed"; exit 2; }
python3 -c '
import json, statistics, sys
rows, maxMedian, maxError, named = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3]), set(sys.argv[4:])
errors = {}
for row in rows:
    if row["compute"] != "gemm" or row["record"].removesuffix("_gemm") in named:
        continue
    errors[row["record"]] = abs(row["error_pct"])
if len(errors) < 5:
    print("held-out check: only %d held-out configurations found" % len(errors))
    sys.exit(2)
median, worst = statistics.median(errors.values()), max(errors, key=errors.get)
print("held out: %d configurations, median |step error| %.1f%% (target %g), max %.1f%% (%s; target %g)"
      % (len(errors), median, maxMedian, errors[worst], worst, maxError))
sys.exit(1 if median > maxMedian or errors[worst] > maxError else 0)
' "$rows" "$maxMedian" "$maxError" "$@"
status=$?
[ $status -eq 2 ] && exit 2
if [ $expectMiss = 1 ]; then
  [ $status -eq 1 ] && echo "missed, as expected" && exit 0
  echo "expected a miss"; exit 1
fi
exit $status
