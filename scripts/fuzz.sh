#!/usr/bin/env bash
# Fuzzes every parser with libFuzzer: builds the targets of tests/fuzz/ with clang, AddressSanitizer
# and UBSan into build-fuzz/, then runs each for SECONDS (default 60) on a scratch copy of its
# committed corpus, two at a time. Prints, per target: executions, executions per second, coverage
# (edges, features) and the inputs it added; exits 1 if any target crashed.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 600   (ten minutes each)
#   FUZZ_MERGE=1 scripts/fuzz.sh ...           also merge the new coverage into tests/fuzz/corpus/
#
# A crash (or sanitizer report, uncaught exception, timeout, out-of-memory) is saved as
# tests/fuzz/corpus/<target>/crash-<hash>, so the normal test suite replays it from then on
# (ctest -L fuzz); fix the parser, then run again. Logs: build-fuzz/logs/<target>.log.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-60}
shift || true
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [seconds] [target...]" >&2; exit 2; }

# clang and its libFuzzer runtime, from Debian (as root, or with sudo).
missing=()
for package in clang libclang-rt-14-dev cmake ninja-build libcli11-dev nlohmann-json3-dev libfmt-dev libeigen3-dev; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=build-fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCCLAB_FUZZ=ON -DCCLAB_BUILD_TESTS=ON -DCCLAB_BUILD_GUI=OFF -DCCLAB_ENABLE_CUDA=OFF -DCCLAB_BUILD_BENCHMARKS=OFF >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls tests/fuzz/corpus)
fi
cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") | grep -E "error|warning" || true
for target in "${targets[@]}"; do
  [ -x "$build/tests/fuzz_$target" ] || { echo "$0: fuzz_$target did not build (cmake --build $build --target fuzz_$target)" >&2; exit 2; }
done

mkdir -p "$build/logs"
fuzz_one() {  # target seconds (absolute paths: the ccsim_cli target works in a scratch folder)
  local target=$1 seconds=$2 build=$PWD/build-fuzz
  local work="$build/work/$target" crashes="$build/crashes/$target" corpus=$PWD/tests/fuzz/corpus/$target
  rm -rf "$work" "$crashes"; mkdir -p "$work" "$crashes"
  # ccsim_cli prints tables and errors on every input: keep them out of the log.
  local quiet=0; [ "$target" = ccsim_cli ] && quiet=3
  set +e
  "$build/tests/fuzz_$target" "$work" "$corpus" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
    -max_len=65536 -close_fd_mask=$quiet -print_final_stats=1 -artifact_prefix="$crashes/" >"$build/logs/$target.log" 2>&1
  set -e
  for crash in "$crashes"/*; do
    [ -e "$crash" ] && cp "$crash" "$corpus/$(basename "$crash")"
  done
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    "$build/tests/fuzz_$target" -merge=1 -close_fd_mask=$quiet "$corpus" "$work" >>"$build/logs/$target.log" 2>&1 || true
  fi
}
export -f fuzz_one
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c "fuzz_one {} $seconds"

status=0
printf '%-16s %12s %9s %7s %7s %7s %s\n' target executions "exec/s" edges features added crashes
for target in "${targets[@]}"; do
  log="$build/logs/$target.log"
  execs=$(grep 'stat::number_of_executed_units:' "$log" | tail -1 | awk '{print $2}' || true)
  rate=$(grep 'stat::average_exec_per_sec:' "$log" | tail -1 | awk '{print $2}' || true)
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
  features=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
  added=$(ls "$build/work/$target" | wc -l)
  crashes=$(ls "$build/crashes/$target" | wc -l)
  [ "$crashes" -gt 0 ] && status=1
  printf '%-16s %12s %9s %7s %7s %7s %s\n' "$target" "${execs:-?}" "${rate:-?}" "${edges:-?}" "${features:-?}" "$added" "$crashes"
done
[ $status -eq 0 ] || echo "crashes were saved into tests/fuzz/corpus/<target>/crash-*: see build-fuzz/logs/<target>.log" >&2
exit $status
