#!/usr/bin/env bash
# Measures every cclab algorithm (the ring family and every one beyond it) beside the MPI library
# at 2-5 ranks on this machine, calibrates the simulator on the 2- and 4-rank runs and checks its
# predictions of the 3- and 5-rank runs: the calibration `ccbench --algo auto` tunes on.
#   results/measured/<machine>/algorithms/<algo>_np<ranks>.{json,txt}   the sweeps (8 B to max-size)
#   models/calibrations/<preset>.json                                    ccsim calibrate --ranks 2,4 (report: calibrate.txt)
#   results/measured/<machine>/algorithms/validate.{json,txt}            ccsim validate --ranks 3,5
# Ranks are bound as in measure_cpu_sweep.sh. `hier` runs on emulated nodes of 2 ranks where 2
# divides them. Each size runs -n 20, or at least 5 ms (--min_time 0.005): twenty collectives of a
# fraction of a microsecond time a start-up, not a steady state (docs/ccbench.md, "Timing and
# checking"); the sweeps committed before 2026-11-30 ran -n 20 alone.
#
# On a machine no preset describes it first runs scripts/describe_cpu_host.sh <machine-name>, which
# writes models/clusters/<machine-name>.json for it: the calibration is then that preset's.
#
# Usage: scripts/measure_cpu_algorithms.sh <machine-name> [max-size]   (after scripts/test.sh built
# it; CCBENCH=<path> and CCSIM=<path> run another build's tools; MODELS=<dir> reads and writes the
# descriptions there (a copy of models/, the tools' CCLAB_MODELS) instead, RESULTS=<dir> the sweeps
# for results/measured/<machine-name>; CALIBRATE_ONLY=1 skips the sweeps;
# TRANSPORT=shm runs cclab through the shared memory transport, into algorithms-shm/ and
# models/calibrations/<preset>-shm.json, the calibration `--algo auto --transport shm` tunes on;
# FAMILIES="linear" sweeps only those families and recalibrates on them with the committed rest;
# ROUNDS=5 sweeps everything five times over, round after round, into <algo>_np<ranks>-r<i>.json
# beside the first round's files: ccsim reads a size measured in several launches as its fastest
# launch (--launches median for their median), so a launch that fell in one of the host's slow
# spells does not move the fit); FIRST_ROUND=k starts at round k, to add rounds to a sweep;
# OFF_CACHE=<size>|auto runs every size with `ccbench --off-cache` (no call reads what the call
# before left in a cache) into algorithms[-shm]-off-cache/; OUT=<folder> sweeps into that folder;
# with either the fit stays in the folder (calibrated.json) rather than replacing the calibration
# --algo auto tunes on)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 1 ] || [ -z "$1" ]; then echo "usage: $0 <machine-name> [max-size]" >&2; exit 2; fi
machine=$1
max=${2:-16M}
ccbench=${CCBENCH:-build/bin/ccbench}
ccsim=${CCSIM:-build/bin/ccsim}
transport=${TRANSPORT:-mpi}
out="${RESULTS:-results/measured/$machine}/algorithms"
suffix=""
[ "$transport" = mpi ] || { out="$out-$transport"; suffix="-$transport"; }
offCache=()
[ -z "${OFF_CACHE:-}" ] || { out="$out-off-cache"; offCache=(--off-cache "$OFF_CACHE"); }
out=${OUT:-$out}
models=${MODELS:-models}
[ -z "${MODELS:-}" ] || export CCLAB_MODELS="$(realpath "$MODELS")"
mkdir -p "$out" "$models/calibrations"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# A machine no preset describes: describe it (it says so and writes nothing where one does).
[ -n "${CALIBRATE_ONLY:-}" ] || [ -f "$models/clusters/$machine.json" ] || CCBENCH="$ccbench" RESULTS="${RESULTS:-results/measured/$machine}" scripts/describe_cpu_host.sh "$machine"
source scripts/algorithm_families.sh
for round in $(seq "${FIRST_ROUND:-1}" "${ROUNDS:-1}"); do
  [ -n "${CALIBRATE_ONLY:-}" ] && break  # CALIBRATE_ONLY=1: refit and recheck the committed sweeps
  tag=""
  [ "$round" -eq 1 ] || tag="-r$round"
  for ranks in 2 3 4 5; do
    perNode=$(( ranks % 2 == 0 ? 2 : 1 ))
    for algo in ${FAMILIES:-$all_families}; do
      echo "== $algo, $ranks ranks, round $round"
      mpirun -np "$ranks" --oversubscribe --bind-to core:overload-allowed --map-by core \
        "$ccbench" "${family_collectives[$algo]}" --backend mpi,cclab --algo "$algo" --ranks-per-node "$perNode" \
        --transport "$transport" "${offCache[@]}" -b 8 -e "$max" -f 4 -n 20 -w 3 --min_time 0.005 -J "$out/${algo}_np$ranks$tag.json" > "$out/${algo}_np$ranks$tag.txt"
    done
  done
done
# The preset this machine matches names the calibration (ccsim calibrate picks it from the files).
shopt -s nullglob
fit=("$out"/*_np[24].json "$out"/*_np[24]-r*.json)
check=("$out"/*_np[35].json "$out"/*_np[35]-r*.json)
"$ccsim" calibrate --ranks 2,4 "${fit[@]}" -o "$out/calibrated.json" > "$out/calibrate.txt"
preset=$(sed -n "s/.* on cluster '\([^']*\)'.*/\1/p" "$out/calibrate.txt" | head -1)
calibration="$out/calibrated.json"  # OFF_CACHE= or OUT=: the fit stays beside its sweep
if [ -z "${OFF_CACHE:-}${OUT:-}" ]; then
  calibration="$models/calibrations/$preset$suffix.json"
  mv "$out/calibrated.json" "$calibration"
fi
sed -i "s|# wrote .*|# wrote $calibration|" "$out/calibrate.txt"
"$ccsim" validate --cluster "$calibration" --ranks 3,5 "${check[@]}" \
  --json "$out/validate.json" > "$out/validate.txt"
tail -8 "$out/validate.txt"
