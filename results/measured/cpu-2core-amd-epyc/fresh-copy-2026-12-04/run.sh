#!/usr/bin/env bash
# Builds fresh_copy.cc and runs it `rounds` times (default 3) at 32 KiB-8 MiB, the source unchanged
# (0) and rewritten by the other core before each copy (1), 1,000 copies each; output: fresh_copy.txt
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
bin=$(mktemp -d)/fresh_copy
g++ -O2 -pthread -o "$bin" fresh_copy.cc
{
  lscpu | grep -E "Model name|^CPU\(s\)"
  for round in $(seq 1 "${1:-3}"); do
    for bytes in 32768 131072 524288 2097152 8388608; do
      for fresh in 0 1; do echo "round $round $("$bin" "$bytes" "$fresh" 1000)"; done
    done
  done
} > fresh_copy.txt
