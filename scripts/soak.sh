#!/usr/bin/env bash
# Soak: long runs keep their memory and descriptors flat (docs/reliability.md, "Soak").
#
#   scripts/soak.sh [build dir]          # default: build/ (ccbench, ccsim and ccplan built)
#
# (a) mpirun -np 2 ccbench all_reduce -N 1000 over a small sweep, with -J and --csv: each rank's
#     VmRSS and open descriptors sampled while it runs (a few minutes on 2 cores);
# (b) ccsim collective making 1,000,000 predictions in one process (500,000 sizes, out of place
#     and in place), with -J and --csv: VmRSS and descriptors sampled;
# (c) ccplan --render of 500 copies of a small results file (QT_QPA_PLATFORM=offscreen): peak RSS
#     beside a render of 1 file, and descriptors sampled.
# For each process it prints RSS (kB) and descriptors at the start (10% into the run, after
# start-up), the middle and the end, and FLAT or GROWS. Exit 1 if anything grows.
#
# Not part of the CI suite (it runs for about five minutes on 2 cores). SOAK_REPEATS,
# SOAK_PREDICTIONS and SOAK_FILES shrink or grow the three runs, SOAK_PARTS picks some of them
# (default abc), SOAK_KEEP=1 keeps the scratch folder (samples, results files).
set -euo pipefail

BUILD=$(cd "${1:-build}" && pwd)
REPEATS=${SOAK_REPEATS:-1000}
PREDICTIONS=${SOAK_PREDICTIONS:-1000000}
FILES=${SOAK_FILES:-500}
PARTS=${SOAK_PARTS:-abc}
PERIOD=0.5
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/cclab-soak-XXXXXX")
[[ ${SOAK_KEEP:-0} == 1 ]] || trap 'rm -rf "$SCRATCH"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

# sample <out> <pid>...: "<seconds> <pid> <VmRSS kB> <fds> <VmHWM kB>" for each live pid every
# $PERIOD s, until none is alive (bash builtins only, but for sleep).
sample() {
  local out=$1 p key value rest rss hwm alive now
  shift
  local start=${EPOCHREALTIME/./}
  while :; do
    alive=0
    for p in "$@"; do
      rss='' hwm=''
      if [[ -r /proc/$p/status ]]; then
        while read -r key value rest; do
          [[ $key == VmRSS: ]] && rss=$value
          [[ $key == VmHWM: ]] && hwm=$value
        done < "/proc/$p/status" 2>/dev/null || true
      fi
      [[ -n $rss ]] || continue  # gone, or a zombie
      alive=1
      local fds=(/proc/"$p"/fd/*)
      now=${EPOCHREALTIME/./}
      printf '%d.%d %s %s %s %s\n' $(((now - start) / 1000000)) $(((now - start) / 100000 % 10)) "$p" "$rss" "${#fds[@]}" "$hwm" >> "$out"
    done
    ((alive)) || break
    sleep "$PERIOD"
  done
}

# report <label> <samples>: start/middle/end per pid, FLAT or GROWS. Flat: RSS within 1 MiB (or 2%)
# of the start, descriptors the same.
report() {
  awk -v label="$1" '
    { n[$2]++; t[$2, n[$2]] = $1; rss[$2, n[$2]] = $3; fd[$2, n[$2]] = $4 }
    END {
      bad = 0
      for (p in n) {
        k = n[p]; s = int(k * 0.1) + 1; m = int(k / 2) + 1; e = k
        grow = rss[p, e] - rss[p, s]; limit = 1024; if (rss[p, s] * 0.02 > limit) limit = rss[p, s] * 0.02
        flat = grow <= limit && fd[p, e] <= fd[p, s]
        if (!flat) bad = 1
        printf "  %-8s pid %-7s %5d samples over %6.1f s   RSS kB  start %7d  middle %7d  end %7d  (%+d)   fds %3d %3d %3d   %s\n",
               label, p, k, t[p, k], rss[p, s], rss[p, m], rss[p, e], grow, fd[p, s], fd[p, m], fd[p, e], flat ? "FLAT" : "GROWS"
      }
      exit bad
    }' "$2"
}

# The pids of `name` among the children of `parent` (mpirun's ranks), once they have started.
children() {
  local parent=$1 name=$2 want=$3 found=()
  for _ in $(seq 100); do
    found=()
    for c in $(cat /proc/"$parent"/task/*/children 2>/dev/null); do
      [[ $(cat /proc/"$c"/comm 2>/dev/null) == "$name" ]] && found+=("$c")
    done
    ((${#found[@]} >= want)) && break
    sleep 0.1
  done
  echo "${found[@]}"
}

# (a) ccbench, -N repeats of a small sweep, rows streamed to -J and --csv.
bench() {
  echo "== (a) mpirun -np 2 ccbench all_reduce -b 8 -e 1M -f 2 -N $REPEATS -J --csv"
  SECONDS=0
  mpirun -np 2 "$BUILD/bin/ccbench" all_reduce -b 8 -e 1M -f 2 -N "$REPEATS" -J "$SCRATCH/bench.json" --csv "$SCRATCH/bench.csv" \
    > "$SCRATCH/bench.txt" &
  local launcher=$! ranks
  ranks=$(children "$launcher" ccbench 2)
  # shellcheck disable=SC2086
  sample "$SCRATCH/bench.samples" $ranks
  wait "$launcher"
  echo "  $(grep -c '^ ' "$SCRATCH/bench.txt") result lines, $(($(wc -l < "$SCRATCH/bench.csv") - 1)) rows," \
       "JSON $(du -h "$SCRATCH/bench.json" | cut -f1), ${SECONDS} s"
  report ccbench "$SCRATCH/bench.samples"
}

# (b) ccsim: PREDICTIONS predictions in one process (a size every 4 bytes, out of place and in place).
sim() {
  local sizes=$((PREDICTIONS / 2))
  echo "== (b) ccsim collective all_reduce --cluster dgx-h100 -b 4 -e $((4 * sizes)) -f 1 -i 4 -J --csv: $PREDICTIONS predictions"
  SECONDS=0
  "$BUILD/bin/ccsim" collective all_reduce --cluster dgx-h100 -b 4 -e $((4 * sizes)) -f 1 -i 4 -J "$SCRATCH/sim.json" --csv "$SCRATCH/sim.csv" \
    > /dev/null &
  local pid=$!
  sample "$SCRATCH/sim.samples" "$pid"
  wait "$pid"
  echo "  $(($(wc -l < "$SCRATCH/sim.csv") - 1)) rows, JSON $(du -h "$SCRATCH/sim.json" | cut -f1), ${SECONDS} s"
  rm -f "$SCRATCH/sim.json" "$SCRATCH/sim.csv"
  report ccsim "$SCRATCH/sim.samples"
}

# render <count> <samples>: ccplan --render of <count> files, sampled; its peak RSS (kB) in
# <samples>.peak (GNU time's maximum resident set where installed, else the sampled VmHWM).
render() {
  local files=() pid timer
  for i in $(seq 0 $(($1 - 1))); do files+=("$SCRATCH/files/$i.json"); done
  local run=("$BUILD/bin/ccplan" --render "${files[@]}" -o "$SCRATCH/plan.png")
  if [[ -x /usr/bin/time ]]; then
    QT_QPA_PLATFORM=offscreen /usr/bin/time -f %M -o "$2.peak" "${run[@]}" 2> "$SCRATCH/ccplan.err" &
    timer=$!
    pid=$(children "$timer" ccplan 1)
  else
    QT_QPA_PLATFORM=offscreen "${run[@]}" 2> "$SCRATCH/ccplan.err" &
    timer=$!
    pid=$timer
  fi
  sample "$2" "$pid"
  wait "$timer" || { echo "  ccplan failed: $(head -1 "$SCRATCH/ccplan.err")"; return 1; }
  [[ -s $2.peak ]] || awk 'max < $5 { max = $5 } END { print max }' "$2" > "$2.peak"
}

# (c) ccplan opening FILES results files at once.
plan() {
  echo "== (c) ccplan --render of $FILES results files (QT_QPA_PLATFORM=offscreen)"
  if [[ ! -x $BUILD/bin/ccplan ]]; then
    echo "  skipped: $BUILD/bin/ccplan is not built (no Qt)"
    return 0
  fi
  mkdir -p "$SCRATCH/files"
  "$BUILD/bin/ccsim" collective all_reduce --cluster dgx-h100 -b 1K -e 1G -f 4 -J "$SCRATCH/files/0.json" > /dev/null
  for i in $(seq 1 $((FILES - 1))); do cp "$SCRATCH/files/0.json" "$SCRATCH/files/$i.json"; done
  SECONDS=0
  render 1 "$SCRATCH/plan1.samples" || return 1
  render "$FILES" "$SCRATCH/plan.samples" || return 1
  local most one
  most=$(awk 'max < $4 { max = $4 } END { print max }' "$SCRATCH/plan.samples")
  one=$(awk 'max < $4 { max = $4 } END { print max }' "$SCRATCH/plan1.samples")
  echo "  peak RSS: 1 file $(tail -1 "$SCRATCH/plan1.samples.peak") kB, $FILES files $(tail -1 "$SCRATCH/plan.samples.peak") kB;" \
       "most descriptors open at once: $most (1 file: $one); ${SECONDS} s"
  report ccplan "$SCRATCH/plan.samples" || true  # a renderer grows as it loads its files: reported, not judged
}

status=0
[[ $PARTS != *a* ]] || bench || status=1
[[ $PARTS != *b* ]] || sim || status=1
[[ $PARTS != *c* ]] || plan || status=1
if ((status == 0)); then echo "soak: flat"; else echo "soak: something grows or failed (above)"; fi
exit $status
