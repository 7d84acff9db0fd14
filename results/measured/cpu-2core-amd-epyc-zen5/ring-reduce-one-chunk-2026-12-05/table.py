#!/usr/bin/env python3
"""Prints run.sh's table: per chunk size, placement and rank count, the 8 MiB ring reduce's time
out of place and in place (fastest and median of the three rounds) and the fastest over 2 ranks'."""
import glob, os, re, statistics, sys
here = os.path.dirname(os.path.abspath(__file__))
times = {}
for f in glob.glob(os.path.join(here, "np*_chunk*_bind*_r*.txt")):
    n, chunk, bind = re.search(r"np(\d)_chunk(\w+)_bind(\w+)_r\d", f).groups()
    for line in open(f):
        cols = line.split()
        if len(cols) == 13 and cols[0] == "8388608":
            times.setdefault((chunk, bind, int(n)), []).append((float(cols[5]), float(cols[9])))
print("| chunk | ranks bound | ranks | out: fastest, median (us) | in: fastest, median (us) | fastest over 2 ranks' (out / in) |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for chunk in ("8M", "1M"):
    for bind in ("core", "none"):
        base = times.get((chunk, bind, 2))
        for n in (2, 3, 4, 5):
            t = times.get((chunk, bind, n))
            if not t:
                continue
            out, inp = [x[0] for x in t], [x[1] for x in t]
            ratio = f"{min(out) / min(x[0] for x in base):.2f} / {min(inp) / min(x[1] for x in base):.2f}"
            where = "round-robin (r mod 2)" if bind == "core" else "unbound"
            print(f"| {chunk} | {where} | {n} | {min(out):.0f}, {statistics.median(out):.0f} | {min(inp):.0f}, {statistics.median(inp):.0f} | {ratio} |")
