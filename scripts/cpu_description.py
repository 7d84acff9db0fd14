#!/usr/bin/env python3
"""Writes this host's CPU description from benchmarks/cpu_gemm_bench's output, the base of the day's
collective calibration (`ccsim calibrate --cluster <out> sweep_np2.json sweep_np4.json`).

Usage: scripts/cpu_description.py <cpu_gemm_bench.txt> <reduce_kernels_bench.txt> <preset.json> <out.json> [day]
       scripts/cpu_description.py --host <name> <cpu_gemm_bench.txt> <reduce_kernels_bench.txt> <template.json> <out.json> [waiting_rank_bench.txt]

The first form refreshes a preset's measured figures. The second (scripts/describe_cpu_host.sh runs
it) describes a machine no preset describes, as preset <name>: what it matches (/proc/cpuinfo's
model name and cpu family, the online cores), its cores, memory and caches (/sys/devices/system/cpu;
$CCLAB_SYSFS_CPU and $CCLAB_CORES stand in for them in tests; where the host reports no caches, the
template's, said so) and the measured figures below; the transport's constants (latencies, eager
limit, single-copy threshold, copy pieces) are the template's, each source saying so, until ccsim
calibrate fits them.

From the GEMM benchmark's medians (run it with --benchmark_repetitions=5
--benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true):
  peak_tflops        the largest Peak shape (2048 x 1024 x 1024);
  gemm_efficiency    at each d the slower of 1024 x d x 1024 and 1024 x 1024 x d over the peak (the
                     step model reads a GEMM's efficiency by min(k, n)); at 1024 the slowest Peak shape;
  memory_bandwidth   the element-wise pass over 64 MiB (Elementwise/64: from memory, not the
                     caches), memory_efficiency 1. Between two passes over the same data a step
                     touches more than the caches hold (its logits alone are tens of MB), so its
                     passes run at about this rate, not at the in-cache rate of smaller buffers
                     (docs/performance.md, "Training steps").
From the reduce-kernel benchmark: the host's memcpy rate (offload transfers: `host`).
From benchmarks/shm_transport_bench's BM_ExchangeBesideAWaitingRank (--host, where given: two-core
hosts): intra_node.waiting_ranks_take_turns, true where an exchange beside a rank polling on one of
its cores takes WAITING_RATIO times (1.5) or more what it takes beside one asleep (near 1 where the
waiting rank does not take its turn, near 2 where the core alternates; docs/cluster-format.md).
"""
import glob
import json
import os
import re
import sys
import time

GIB = 1024**3 / 1e9  # Google Benchmark's G/s of bytes is GiB/s


def medians(text, counter):
    return {m.group(1): float(m.group(2)) for m in re.finditer(rf"^(\S+)_median\s.*{counter}=([\d.]+)G/s", text, re.M)}


def measured_figures(d, bench, kernels):
    """Puts the two benchmarks' figures in description d; returns them for the summary line."""
    text = open(bench).read()
    gflops, rates = medians(text, "GFLOPs"), medians(text, "bytes_per_second")
    peak = gflops["Peak/2048/1024/1024"]
    # A narrow shape's median a little over the large one's is noise: a fraction of peak stops at 1.
    curve = [{"dim": d, "efficiency": round(min(1.0, gflops[f"SmallN/{d}"] / peak, gflops[f"SmallK/{d}"] / peak), 3)} for d in (8, 16, 32, 64, 128)]
    curve.append({"dim": 1024, "efficiency": round(min(v for k, v in gflops.items() if k.startswith("Peak")) / peak, 3)})
    passes = round(rates["Elementwise/64"] * GIB, 1)
    copy = float(re.search(r"copy/256M/real_time_median.*bytes_per_second=([\d.]+)G/s", open(kernels).read()).group(1))
    memcpy = round(copy * GIB, 1)

    g = d["gpu"]
    g["peak_tflops"]["fp32"] = g["peak_tflops"]["bf16"] = round(peak / 1000, 4)
    g["peak_tflops"]["source"] = (
        f"Eigen sgemm on one core as ccbench train runs it (benchmarks/cpu_gemm_bench, repetitions in random order), "
        f"median of the largest Peak shape {peak:.1f} GFLOP/s ({bench}). ccbench train computes in fp32 whatever the "
        "training precision, so bf16 is the same rate")
    g["gemm_efficiency"] = curve
    g["gemm_efficiency_source"] = "the same run: at each d the slower of 1024 x d x 1024 and 1024 x 1024 x d (medians) over the peak (at most 1); at 1024 the slowest Peak shape"
    g["memory_bandwidth_gbps"] = passes
    g["memory_efficiency"] = 1.0
    g["source"] = (
        "a 'GPU' here is an MPI rank on a core. memory: /proc/meminfo of the machine; bandwidth: ccbench train's element-wise "
        f"pass over a 64 MiB buffer (from memory), {rates['Elementwise/64']} GiB/s read plus written ({passes} GB/s, {bench}), at "
        f"that rate (efficiency 1). Host memory (offload): memcpy {copy} GiB/s ({memcpy} GB/s, {kernels}). "
        "No launch cost: MPI calls run on the calling core")
    if "host" in d and "memory_bandwidth_gbps" in d["host"]:
        d["host"]["memory_bandwidth_gbps"] = memcpy
        d["host"]["source"] = f"the machine's memory: memcpy of 256 MiB, {copy} GiB/s read plus written ({kernels})"
    return f"peak {peak} GFLOP/s, curve {curve}, passes {passes} GB/s, memcpy {memcpy} GB/s"


WAITING_RATIO = 1.5


def waiting_ranks_take_turns(d, waiting):
    """Sets intra_node.waiting_ranks_take_turns from BM_ExchangeBesideAWaitingRank's medians (arg 0:
    the waiting rank polling, 1: asleep); where the benchmark measured nothing (not two cores), says so
    and keeps the template's."""
    text = open(waiting).read()
    us = {m.group(1): float(m.group(2)) for m in re.finditer(r"^BM_ExchangeBesideAWaitingRank/(\d)/real_time_median\s.*exchange_us=([\d.]+)\s", text, re.M)}
    intra = d["intra_node"]
    if "0" not in us or "1" not in us:
        intra["waiting_ranks_take_turns_source"] = (f"not measured here ({waiting} has no medians of BM_ExchangeBesideAWaitingRank, "
                                                    "which needs a host of two cores): "
                                                    + intra.get("waiting_ranks_take_turns_source", "the template's"))
        return
    ratio = us["0"] / us["1"]
    intra["waiting_ranks_take_turns"] = ratio >= WAITING_RATIO
    intra["waiting_ranks_take_turns_source"] = (
        f"benchmarks/shm_transport_bench, BM_ExchangeBesideAWaitingRank ({waiting}, medians): an 8-byte exchange between two ranks "
        f"took {us['0']:.2f} us beside a rank polling on one of their cores and {us['1']:.2f} us beside one asleep, {ratio:.2f}x "
        f"({'at or above' if ratio >= WAITING_RATIO else 'below'} {WAITING_RATIO}x: the waiting rank "
        f"{'takes' if ratio >= WAITING_RATIO else 'does not take'} its turn)")


def cpuinfo_field(key):
    """The first value of `key` in /proc/cpuinfo, or ""."""
    for line in open("/proc/cpuinfo"):
        name, _, value = line.partition(":")
        if name.strip() == key:
            return value.strip()
    return ""


def cpu_count(cpu_list):
    """CPUs in a sysfs list such as "0-3,8-11"."""
    count = 0
    for part in cpu_list.strip().split(","):
        if part:
            low, _, high = part.partition("-")
            count += int(high or low) - int(low) + 1
    return count


def host_caches(cores):
    """The data caches past L1 that /sys/devices/system/cpu/cpu0/cache reports, smallest first, as
    the description's caches: a level one core has to itself is per core; one shared by several is
    priced as the node's, all its instances together (the model knows no cache shared by some of
    the cores). [] where the host reports none (many VMs)."""
    root = os.path.join(os.environ.get("CCLAB_SYSFS_CPU", "/sys/devices/system/cpu"), "cpu0", "cache")
    levels = []
    for index in sorted(glob.glob(os.path.join(root, "index*"))):
        def read(name):
            try:
                return open(os.path.join(index, name)).read().strip()
            except OSError:
                return ""
        level, kind, size = read("level"), read("type"), read("size")
        if not level.isdigit() or int(level) < 2 or kind not in ("Unified", "Data") or not size[:-1].isdigit():
            continue
        bytes_ = int(size[:-1]) * {"K": 1024, "M": 1024**2, "G": 1024**3}.get(size[-1], 1)
        sharing = max(1, cpu_count(read("shared_cpu_list")))
        instances = max(1, cores // sharing)
        per_core = sharing == 1
        levels.append({
            "bytes": bytes_ if per_core else bytes_ * instances,
            "per_core": per_core,
            "source": f"sysfs cpu0 cache L{level}: {size} shared by {sharing} CPU(s)"
                      + ("" if per_core else f", {instances} instance(s) on this host's {cores} CPUs, priced as one of the node's"),
        })
    return sorted(levels, key=lambda c: c["bytes"])


def describe_host(name, bench, kernels, template, waiting=None):
    d = json.load(open(template))
    model, family = cpuinfo_field("model name") or "unknown CPU", cpuinfo_field("cpu family")
    cores = int(os.environ.get("CCLAB_CORES", os.cpu_count() or 1))
    memory = next(int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal:"))
    base = d["name"]
    d["name"] = name
    d["description"] = (f"This machine as scripts/describe_cpu_host.sh found it on {time.strftime('%Y-%m-%d')}: /proc/cpuinfo model "
                        f"name \"{model}\"" + (f", cpu family {family}" if family else "") + f", {cores} cores, MPI ranks in shared "
                        f"memory; the transport's constants are preset {base}'s until ccsim calibrate fits them "
                        f"({os.path.dirname(bench) or '.'}/)")
    d["matches"] = [model]
    d["match_cpu_cores"] = cores
    if family.isdigit():
        d["match_cpu_family"] = int(family)
    else:
        d.pop("match_cpu_family", None)
    d["gpus_per_node"] = cores
    d["gpu"]["name"] = f"{model} core"
    d["gpu"]["memory_bytes"] = d["host"]["memory_bytes"] = memory
    intra = d["intra_node"]
    intra["cores"] = cores
    summary = measured_figures(d, bench, kernels)
    copy_rate = d["host"]["memory_bandwidth_gbps"]
    intra["bandwidth_gbps"] = round(copy_rate / 2, 1)
    caches = host_caches(cores)
    if caches:
        for c, factor in zip(caches, (2.0, 1.5, 1.25)):
            c["bandwidth_gbps"] = round(intra["bandwidth_gbps"] * factor, 1)
            c["source"] += f"; bandwidth: estimate, {factor}x the DRAM copy rate (ccsim calibrate fits it)"
        intra["caches"] = caches[:3]
    else:
        for c in intra.get("caches", []):
            c["source"] = f"this host reports no caches (sysfs): preset {base}'s, " + c["source"]
    intra["source"] = (f"cores: the online CPUs. bandwidth: one core's copy rate from DRAM, half of memcpy's {copy_rate} GB/s "
                       f"read+write ({kernels}). latency, efficiency, oversubscribed and rendezvous latency, eager limit, "
                       f"single-copy thresholds, copy pieces: preset {base}'s (measured there, not here); ccsim calibrate "
                       "replaces the latencies and rates with fitted values")
    if waiting:
        waiting_ranks_take_turns(d, waiting)
    d["cost_source"] = f"preset {base}'s estimate"
    return d, summary


def write(d, out, summary):
    """Writes d to out whole or not at all: an interrupted run leaves no half-written description."""
    partial = f"{out}.partial"
    with open(partial, "w") as f:
        json.dump(d, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(partial, out)
    print(f"{summary} -> {out}")


USAGE = ("usage: cpu_description.py BENCH.txt KERNELS.txt PRESET.json OUT.json [DAY]  |  "
         "cpu_description.py --host NAME ... OUT.json [WAITING.txt] (see the script's header)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--host":
        if len(sys.argv) not in (7, 8):
            sys.exit(USAGE)
        d, summary = describe_host(*sys.argv[2:6], *sys.argv[7:8])
        write(d, sys.argv[6], summary)
        return
    if len(sys.argv) < 5:
        sys.exit(USAGE)
    bench, kernels, preset, out = sys.argv[1:5]
    day = sys.argv[5] if len(sys.argv) > 5 else "this day"
    d = json.load(open(preset))
    d["description"] += f" \u2014 as measured on {day} (base of that day's calibration)"
    write(d, out, measured_figures(d, bench, kernels))


if __name__ == "__main__":
    from script_errors import guard
    guard(main, USAGE)
