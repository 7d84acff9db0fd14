#!/usr/bin/env bash
# exact_or_known_issue.sh on the CPU, with stand-in commands: exact passes, wrong elements that a
# known issue explains entirely pass, any other failure keeps its exit code.
set -u
wrap=$(dirname "$0")/exact_or_known_issue.sh
fail=0
expect() {  # expect <exit code> <stand-in command>
  "$wrap" bash -c "$2" >/dev/null 2>&1
  local rc=$?
  if [ "$rc" -ne "$1" ]; then echo "FAIL: '$2' gave $rc, expected $1"; fail=1; fi
}
expect 0 'echo "# Out of bounds values : 0 OK"; exit 0'
expect 0 'echo "ccbench: 24 wrong elements: the results are incorrect; all of them from a known library issue: X (NVIDIA/nccl#1950)" >&2; exit 1'
expect 1 'echo "ccbench: 24 wrong elements: the results are incorrect; 20 of them from a known library issue: X" >&2; exit 1'
expect 1 'echo "ccbench: 2 wrong elements: the results are incorrect" >&2; exit 1'
expect 2 'echo "ccbench: all of them from a known library issue" >&2; exit 2'
expect 3 'exit 3'
[ $fail = 0 ] && echo "exact_or_known_issue.sh: 6 cases as expected"
exit $fail
