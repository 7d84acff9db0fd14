#!/usr/bin/env python3
"""scripts/rank_excess.py on rows whose scaling the test knows: measured times 1, 2.4 and 3 at 3, 4
and 5 ranks, predicted 1.1x the measurement at 3 and 0.9x at 5, and at 4 ranks so that the measured
t4 / sqrt(t3 t5) is 1.2 times the predicted one (the 4-rank excess); and bad input exits 2 with one line.
usage: rank_excess_test.py <source dir>"""
import json
import math
import subprocess
import sys
import tempfile

script = sys.argv[1] + "/scripts/rank_excess.py"


def row(ranks, size, measured, predicted, in_place=False):
    return {"backend": "cclab", "collective": "all_reduce", "algo": "ring", "in_place": in_place, "nranks": ranks,
            "size_bytes": size, "measured_time_us": measured, "predicted_time_us": predicted}


rows = []
for size in (1 << 17, 1 << 19, 1 << 21):
    for in_place in (False, True):
        scale = size / 1e4
        m = {3: 1.0, 4: 2.4, 5: 3.0}
        p = {3: 1.1, 4: 2.4 / math.sqrt(3.0) / 1.2 * math.sqrt(1.1 * 2.7), 5: 2.7}
        for n in (3, 4, 5):
            rows.append(row(n, size - (size % n), m[n] * scale, p[n] * scale, in_place))
rows.append(row(4, 1024, 1.0, 1.0))  # below 64 KiB: not read
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump({"rows": rows}, f)
out = subprocess.run([sys.executable, script, f.name], capture_output=True, text=True)
line = [l for l in out.stdout.splitlines() if l.startswith("cclab")]
expected_excess = 1.2
assert out.returncode == 0 and len(line) == 1, out
fields = line[0].split()
assert fields[1:3] == ["all_reduce", "ring"], fields
assert abs(float(fields[3]) - expected_excess) < 0.006, (fields, expected_excess)
assert fields[4] == "+10.0%" and fields[5] == "-10.0%", fields

for bad in ('{"rows": [{"size_bytes": "x"}]}', "[1]", "not json"):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(bad)
    out = subprocess.run([sys.executable, script, f.name], capture_output=True, text=True)
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1 and "not a ccsim validate" in out.stderr, (bad, out)
print("rank_excess.py: excess", fields[3], "errors", fields[4], fields[5], "- as built; bad input exits 2")
