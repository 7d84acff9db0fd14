#!/usr/bin/env bash
# The sanitizer jobs (docs/reliability.md, "Sanitizers"). scripts/test.sh, and so CI, runs both
# after the normal suite; by hand:
#   scripts/sanitize.sh             both jobs
#   scripts/sanitize.sh asan        AddressSanitizer + LeakSanitizer + UBSan, in build-asan: every
#                                   test of the suite, with the mpirun matrix at 1-3 ranks
#   scripts/sanitize.sh tsan        ThreadSanitizer, in build-tsan: the tests that run threads
#                                   (collectives_test, bench_test's watchdog, ccbench under mpirun)
# Extra arguments after the job names go to ctest (e.g. scripts/sanitize.sh asan -R sim_test).
# Exits non-zero if a build or a test fails.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

jobs=()
while [ $# -gt 0 ] && [[ "$1" == asan || "$1" == tsan ]]; do
  jobs+=("$1")
  shift
done
[ ${#jobs[@]} -eq 0 ] && jobs=(asan tsan)

# Sanitizer builds: no GUI, CUDA or microbenchmarks (nvcc's sources are not sanitized, and the rest
# only costs build time), no -Werror (GCC: sanitizers raise false -Wmaybe-uninitialized warnings;
# the normal build is the warnings gate).
sanitizer_configure() {  # <build dir> <CCLAB_SANITIZE value>
  echo "== configuring $1 (CCLAB_SANITIZE=$2)"
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCLAB_SANITIZE="$2" \
        -DCCLAB_ENABLE_CUDA=OFF -DCCLAB_BUILD_GUI=OFF -DCCLAB_BUILD_BENCHMARKS=OFF \
        -DCCLAB_BUILD_TESTS=ON -DCCLAB_WERROR=OFF | grep -E "^-- (cclab|  )" || true
}

minutes() { printf "%d:%02d" $(($1 / 60)) $(($1 % 60)); }

status=0
summary=()
for job in "${jobs[@]}"; do
  start=$SECONDS
  case $job in
    asan)
      dir=build-asan
      sanitizer_configure $dir address,undefined
      targets=()      # everything the suite runs
      tests=()        # every test
      ;;
    tsan)
      # The in-process threads (every algorithm on the threads transport; the watchdog's thread),
      # ccbench under mpirun with its watchdog on, and ccbench train's stream threads: only their
      # targets are built.
      dir=build-tsan
      sanitizer_configure $dir thread
      targets=(--target collectives_test bench_test ccbench ccbench_test ccbench_train_test)
      tests=(-R '^(collectives_test|bench_test|ccbench_test|ccbench_train_test|ccbench_all_np[0-9]+)$')
      ;;
  esac
  echo "== building $dir"
  if ! cmake --build $dir -j "$(nproc)" "${targets[@]}"; then
    summary+=("$job: build failed")
    status=1
    continue
  fi
  built=$SECONDS
  echo "== ctest in $dir"
  if ctest --test-dir $dir --output-on-failure --timeout 900 "${tests[@]}" "$@"; then
    result=passed
  else
    result=FAILED
    status=1
  fi
  summary+=("$job: tests $result (build $(minutes $((built - start))), tests $(minutes $((SECONDS - built))))")
done

echo "== sanitizers:"
printf '   %s\n' "${summary[@]}"
exit $status
