#!/bin/bash
exec "$(dirname "${BASH_SOURCE[0]}")/../../../../build/bin/ccbench" "$@" --cluster "$(dirname "${BASH_SOURCE[0]}")/../algorithms-shm-2026-12-04-64k/calibrated.json"
