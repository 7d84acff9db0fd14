#!/usr/bin/env bash
# Every ccbench train record in a folder beside ccsim's prediction of it: the median measured step,
# the step ccsim train predicts for the record's own settings on `cluster` (default: the record's),
# the error; for pipelines run with --compute sleep, the measured bubble (share of the step) beside
# the predicted one and (p-1)/(m+p-1).
# Usage: scripts/train_accuracy.sh <records-folder> [cluster.json]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
folder=${1:?usage: $0 <records-folder> [cluster.json]}
cluster=${2:-}
ccsim=${CCSIM:-build/bin/ccsim}  # another build: CCSIM=build-dev/bin/ccsim
printf '%-28s %10s %10s %8s %8s %8s %8s\n' record measured_s predicted_s error bubble predicted theory
for record in "$folder"/*_gemm.json "$folder"/*_sleep.json; do
  plan=$(mktemp)
  python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['settings']))" "$record" > "$plan"
  "$ccsim" train --plan "$plan" ${cluster:+--cluster "$cluster"} --json > "$plan.out"
  python3 - "$record" "$plan.out" <<'PY'
import json, statistics, sys
record = sys.argv[1]
estimate = json.load(open(sys.argv[2]))
predicted = estimate["step_time_s"]["total"]
d = json.load(open(record))
steps = [s["seconds"] for s in d["steps"]]
measured = statistics.median(steps)
s = d["settings"]
bubble = simulated = theory = ""
if d["run"]["compute"] == "sleep" and s.get("pp", 1) > 1:
    simulated = "%.3f" % (estimate["step_time_s"]["pipeline_bubble"] / predicted)
    p, m = s["pp"], s["global-batch"] // s["micro-batch"] // (d["ranks"] // s["pp"] // s.get("tp", 1))
    bubble = "%.3f" % (d["step_parts_s"]["pipeline_bubble"] / statistics.mean(steps))
    theory = "%.3f" % ((p - 1) / (m + p - 1)) if s.get("schedule") != "interleaved" else "-"
name = record.rsplit("/", 1)[-1].removesuffix(".json")
print("%-28s %10.4f %10.4f %+7.1f%% %8s %8s %8s" % (name, measured, predicted, 100 * (predicted / measured - 1), bubble, simulated, theory))
PY
  rm -f "$plan" "$plan.out"
done
