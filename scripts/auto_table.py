#!/usr/bin/env python3
"""The table docs/auto-vs-mpi.md shows for issue 17's comparison, from scripts/measure_cpu_auto.sh's
outputs: per collective and rank count, cclab's out-of-place algbw over the MPI library's in the same
launch (ccbench's side-by-side lines), its median over the launches per size, then how many sizes
are at or above 1.0x, the smallest (with the algorithm auto picked there) and the median over
32-256 MiB. With --sizes: one column per size instead (the ratio, median over the launches; a size
that the ranks do not divide, 20 B of 5 ranks, is shown under the power of two it was rounded down
from; "—" where the size gives a rank no element), for the small-message tables.

With several folders, each size of a collective and rank count comes from the first folder that
measured it (a folder of 8 B-4 MiB, then one of 8 B-256 MiB: the large sizes from the second), and
`runs` says the launches of each folder used ("5+5").

Usage: scripts/auto_table.py [--sizes] results/measured/<machine>/auto[-shm] [another folder ...]
"""
import collections
import glob
import os
import re
import statistics
import sys

SIDE = re.compile(r"#\s+(\d+)\s+\S+\s+\S+\s+-?\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def describe(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            value = size / (1 << shift)
            return f"{value:g} {unit}"
    return f"{size} B"


def picks(text):
    """size -> the algorithm auto ran (the first results block's out-of-place rows)."""
    chosen = {}
    line = re.search(r"# auto picked \(out-of-place/in-place\): (.*)", text)
    if not line:
        return chosen
    for part in line.group(1).split(","):  # "8 B-2 KiB rd/rd"
        m = re.match(r"\s*([\d.]+ \w+)(?:-([\d.]+ \w+))? (\w+)/", part)
        if m:
            chosen[(m.group(1), m.group(2) or m.group(1))] = m.group(3)
    return chosen


UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def to_bytes(text):
    value, unit = text.split()
    return int(float(value) * UNITS[unit])


def within(size, low, high):
    """Whether `size` lies in the picks line's range low-high, each printed to a tenth of its unit
    (8,388,600 B of 5 ranks reads "8.0 MiB")."""
    slack = lambda text: 0.05 * UNITS[text.split()[1]]
    return to_bytes(low) - slack(low) <= size <= to_bytes(high) + slack(high)


def read(folder):
    """(ratios, algorithm, runs) of one folder: per (collective, ranks), per size the launches' ratios,
    the algorithm auto picked, and the launches that finished."""
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    algorithm = collections.defaultdict(dict)
    runs = collections.defaultdict(set)
    for path in sorted(glob.glob(os.path.join(folder, "*_np*.txt"))):
        m = re.match(r"(\w+?)_np(\d+)(?:_run(\d+))?\.txt", os.path.basename(path))
        if not m:
            continue
        key = (m.group(1), int(m.group(2)))
        text = open(path).read()
        if "Side by side" not in text:
            continue  # a launch that did not finish
        runs[key].add(m.group(3))
        for line in text.split("Side by side", 1)[1].splitlines():
            s = SIDE.match(line)
            # Rows of 0 bytes compare nothing; the ratio, not the algbw columns (printed to 3 decimals:
            # 0.000 GB/s for a few bytes on more ranks than cores), says whether a row compared.
            if s and int(s.group(1)) > 0 and float(s.group(4)) > 0:
                ratios[key][int(s.group(1))].append(float(s.group(4)))
        for (low, high), algo in picks(text).items():
            for size in ratios[key]:
                if within(size, low, high):
                    algorithm[key][size] = algo
    return ratios, algorithm, runs


def main():
    args = sys.argv[1:]
    by_size = args[:1] == ["--sizes"]
    args = args[1:] if by_size else args
    if not args or not all(os.path.isdir(a) for a in args):
        print("usage: scripts/auto_table.py [--sizes] <folder of measure_cpu_auto.sh outputs> [another folder ...]", file=sys.stderr)
        sys.exit(2)
    ratios = collections.defaultdict(dict)
    algorithm = collections.defaultdict(dict)
    launches = collections.defaultdict(list)  # per key, the launches of each folder that gave it sizes
    for folder in args:
        folder_ratios, folder_algorithm, folder_runs = read(folder)
        for key, per_size in folder_ratios.items():
            new = {size: v for size, v in per_size.items() if size not in ratios[key]}
            if new:
                launches[key].append(len(folder_runs[key]))
            ratios[key].update(new)
            algorithm[key].update({size: a for size, a in folder_algorithm[key].items() if size in new})
    runs = {key: "+".join(str(n) for n in counts) for key, counts in launches.items()}
    order = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall"]
    keys = sorted(ratios, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1]))
    if by_size:
        def nominal(size):
            return 1 << (size - 1).bit_length()
        columns = {key: {nominal(size): statistics.median(v) for size, v in ratios[key].items()} for key in keys}
        sizes = sorted({size for key in keys for size in columns[key]})
        print("| collective | N | " + " | ".join(describe(size) for size in sizes) + " |")
        print("| --- | --- | " + " | ".join("---" for _ in sizes) + " |")
        for key in keys:
            cells = [f"{columns[key][size]:.2f}" if size in columns[key] else "—" for size in sizes]
            print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
        return
    print("| collective | N | runs | sizes | sizes ≥ 1.0× | min (size, algorithm) | median 32–256 MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in keys:
        per_size = {size: statistics.median(v) for size, v in ratios[key].items()}
        worst = min(per_size, key=per_size.get)
        large = [r for size, r in per_size.items() if 32 << 20 <= size <= 256 << 20]
        large_median = f"{statistics.median(large):.2f}" if large else "—"
        print(f"| {key[0]} | {key[1]} | {runs[key]} | {len(per_size)} | {sum(r >= 1.0 for r in per_size.values())} | "
              f"{per_size[worst]:.2f} ({describe(worst)}, {algorithm[key].get(worst, '?')}) | {large_median} |")


if __name__ == "__main__":
    main()
