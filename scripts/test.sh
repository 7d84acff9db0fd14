#!/usr/bin/env bash
# Builds cclab with its tests and runs the whole suite through CTest (unit tests, the mpirun
# matrix at 1-5 ranks, ccbench end to end). Extra arguments go to ctest (e.g. -R ccbench).
# Then the sanitizer jobs (scripts/sanitize.sh: ASan+UBSan in build-asan, TSan in build-tsan;
# docs/reliability.md). CCLAB_TEST_SANITIZERS picks them: "asan tsan" (the default), "asan",
# "tsan", or "none" for the normal suite alone. Exits non-zero if anything fails.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

sanitizers=${CCLAB_TEST_SANITIZERS-asan tsan}
[ "$sanitizers" = none ] && sanitizers=""
for job in $sanitizers; do
  [[ "$job" == asan || "$job" == tsan ]] || { echo "error: CCLAB_TEST_SANITIZERS: '$job' is not asan, tsan or none" >&2; exit 2; }
done

cclab_build -DCCLAB_BUILD_TESTS=ON -DCCLAB_WERROR=ON
echo "== ctest"
cd build
status=0
ctest --output-on-failure --timeout 900 "$@" || status=$?
cd ..

if [ -n "$sanitizers" ]; then
  # shellcheck disable=SC2086 # a list of job names
  ./scripts/sanitize.sh $sanitizers || status=1
fi
if [ $status -ne 0 ]; then
  echo "== test.sh: FAILED (see above)"
fi
exit $status
