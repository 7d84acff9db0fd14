#!/usr/bin/env bash
# The slot's store order, before (commit b0562aa: the payload in one copy from the header's line
# on, then the header) and after (the payload past the header's line first, then the line the
# receiver polls): benchmarks/shm_transport_bench built against each transport, alternating,
# `rounds` rounds, Google Benchmark JSON per run.
#   run.sh <rounds> <before-bench> <after-bench>   (from the repository root)
# The before binary: the benchmark's source compiled against b0562aa's collectives/shm_transport.cc
#   g++ -O3 -DNDEBUG -std=c++20 -I. benchmarks/shm_transport_bench.cc <b0562aa's shm_transport.cc> \
#       build/collectives/libcclab_collectives.a -lbenchmark -lfmt -lpthread -o <before-bench>
set -euo pipefail
rounds=${1:?usage: $0 <rounds> <before-bench> <after-bench>}
before=${2:?}; after=${3:?}
here=$(dirname "${BASH_SOURCE[0]}")
for round in $(seq 1 "$rounds"); do
  "$before" --benchmark_min_time=0.3 --benchmark_format=json > "$here/before_r$round.json"
  "$after" --benchmark_min_time=0.3 --benchmark_format=json > "$here/after_r$round.json"
done
