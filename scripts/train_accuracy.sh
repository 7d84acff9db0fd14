#!/usr/bin/env bash
# Every ccbench train record in a folder beside ccsim's prediction of it: the median measured step,
# the step ccsim train predicts for the record's own settings on `cluster` (default: the record's),
# the error; for pipelines run with --compute sleep, the measured bubble (share of the step) beside
# the predicted one and (p-1)/(m+p-1). Records of several rounds (<name>_r<k>.json, from
# ROUNDS=k scripts/measure_train.sh) make one row: the median of the rounds' medians, and the
# rounds' spread ((max - min) / median of their medians). --json writes the rows as a JSON list too
# (what tests/sim/training/train_heldout_check.sh judges).
# Usage: scripts/train_accuracy.sh <records-folder> [cluster.json] [--json rows.json]
set -euo pipefail
if [ $# -lt 1 ] || [ -z "$1" ]; then echo "usage: $0 <records-folder> [cluster.json] [--json rows.json]" >&2; exit 2; fi
folder=$1
shift
cluster="" json=""
while [ $# -gt 0 ]; do
  case $1 in
    --json) json=${2:?--json needs a file}; shift 2 ;;
    *) cluster=$1; shift ;;
  esac
done
[ -d "$folder" ] || { echo "$0: '$folder' is not a folder of ccbench train records" >&2; exit 2; }
[ -z "$json" ] || [ -d "$(dirname "$json")" ] || { echo "$0: --json $json: its folder does not exist" >&2; exit 2; }
# Paths given relative to the caller's folder stay so after the cd below.
folder=$(realpath "$folder")
[ -n "$cluster" ] && [ -e "$cluster" ] && cluster=$(realpath "$cluster")
[ -n "$json" ] && json=$(realpath -m "$json")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ccsim=${CCSIM:-build/bin/ccsim}  # another build: CCSIM=build-dev/bin/ccsim
if python3 - "$ccsim" "$folder" "$cluster" "$json" <<'PY'
import glob, json, os, re, statistics, subprocess, sys, tempfile
ccsim, folder, cluster, jsonPath = sys.argv[1:5]
rows = []
groups = {}
for path in sorted(glob.glob(folder + "/*_gemm*.json")) + sorted(glob.glob(folder + "/*_sleep*.json")):
    name = os.path.basename(path).removesuffix(".json")
    if not re.search(r"_(gemm|sleep)(_r\d+)?$", name):
        continue
    groups.setdefault(re.sub(r"_r\d+$", "", name), []).append(json.load(open(path)))
if not groups:
    sys.exit("%s: no ccbench train records (<name>_gemm*.json or <name>_sleep*.json)" % folder)  # exit 1 -> 2 below
rounds = max(len(records) for records in groups.values())
print("%-28s %10s %10s %8s %8s %8s %8s%s" % ("record", "measured_s", "predicted_s", "error", "bubble", "predicted", "theory",
                                             "   rounds spread" if rounds > 1 else ""))
for name, records in groups.items():
    d = records[0]
    with tempfile.NamedTemporaryFile("w", suffix=".json") as plan:
        json.dump(d["settings"], plan)
        plan.flush()
        run = subprocess.run([ccsim, "train", "--plan", plan.name, "--json"] + (["--cluster", cluster] if cluster else []),
                             capture_output=True, text=True)
    if run.returncode != 0:  # ccsim's own one line, naming the record
        sys.exit("%s: %s" % (name, run.stderr.strip()))
    estimate = json.loads(run.stdout)
    predicted = estimate["step_time_s"]["total"]
    medians = [statistics.median(s["seconds"] for s in r["steps"]) for r in records]
    measured = statistics.median(medians)
    s = d["settings"]
    bubble = simulated = theory = ""
    if d["run"]["compute"] == "sleep" and s.get("pp", 1) > 1:
        steps = [x["seconds"] for x in d["steps"]]
        simulated = "%.3f" % (estimate["step_time_s"]["pipeline_bubble"] / predicted)
        p, m = s["pp"], estimate["layout"]["accumulation_steps"]  # micro-batches a step, as ccsim resolved them
        bubble = "%.3f" % (d["step_parts_s"]["pipeline_bubble"] / statistics.mean(steps))
        theory = "%.3f" % ((p - 1) / (m + p - 1)) if s.get("schedule") != "interleaved" else "-"
    spread = "   %d %6.1f%%" % (len(records), 100 * (max(medians) - min(medians)) / measured) if rounds > 1 else ""
    print("%-28s %10.4f %10.4f %+7.1f%% %8s %8s %8s%s" % (name, measured, predicted, 100 * (predicted / measured - 1), bubble, simulated,
                                                        theory, spread))
    rows.append({"record": name, "compute": d["run"]["compute"], "measured_s": measured, "predicted_s": predicted,
                 "error_pct": 100 * (predicted / measured - 1), "rounds": len(records)})
if jsonPath:
    with open(jsonPath, "w") as out:
        json.dump(rows, out, indent=1)
PY
then :; else exit 2; fi
