#!/usr/bin/env python3
"""scripts/step_cost_by_load.py on a sweep whose step costs the test built: the ring all_gather at
3, 4 and 5 ranks taking 2, 2 and 5 us a step (n - 1 steps a call) in its fastest launch, a slower
launch beside it and rows it must not read (the MPI library's, sizes from 4 KiB); and bad input
exits 2 with one line.
usage: step_cost_by_load_test.py <source dir>"""
import json
import os
import subprocess
import sys
import tempfile

script = sys.argv[1] + "/scripts/step_cost_by_load.py"
per_step = {3: 2.0, 4: 2.0, 5: 5.0}


def row(ranks, size, time_us, backend="cclab", in_place=False):
    return {"backend": backend, "collective": "all_gather", "algo": "ring" if backend == "cclab" else "native",
            "in_place": in_place, "nranks": ranks, "size_bytes": size, "time_us": time_us}


folder = tempfile.mkdtemp()
for launch, slowdown in (("", 1.0), ("-r2", 1.7)):
    for n in (3, 4, 5):
        rows = []
        for size in (24, 504, 2040):
            for in_place in (False, True):
                rows.append(row(n, size - size % n, per_step[n] * (n - 1) * slowdown, in_place=in_place))
        rows.append(row(n, 8184, 1000.0))          # from 4 KiB: not read
        rows.append(row(n, 24, 1.0, backend="mpi"))  # the library's: not read
        with open(os.path.join(folder, f"ring_np{n}{launch}.json"), "w") as f:
            json.dump({"rows": rows}, f)
out = subprocess.run([sys.executable, script, folder], capture_output=True, text=True)
line = [l for l in out.stdout.splitlines() if l.startswith("all_gather")]
assert out.returncode == 0 and len(line) == 1, out
fields = line[0].split()
assert fields[2:] == ["2.00", "2.00", "5.00", "2.50", "1.50"], fields

for bad in ('{"rows": [{"backend": "cclab", "time_us": "x"}]}', "[1]", "not json"):
    bad_folder = tempfile.mkdtemp()
    with open(os.path.join(bad_folder, "ring_np3.json"), "w") as f:
        f.write(bad)
    out = subprocess.run([sys.executable, script, bad_folder], capture_output=True, text=True)
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1 and "not a sweep" in out.stderr, (bad, out)
out = subprocess.run([sys.executable, script, tempfile.mkdtemp()], capture_output=True, text=True)
assert out.returncode == 2 and "not a sweep" in out.stderr, out
print("step_cost_by_load.py: 2.00 2.00 5.00 us a step, 5 over 4 = 2.50 - as built; bad input exits 2")
