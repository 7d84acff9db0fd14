#!/usr/bin/env python3
"""Writes this host's CPU description from benchmarks/cpu_gemm_bench's output, the base of the day's
collective calibration (`ccsim calibrate --cluster <out> sweep_np2.json sweep_np4.json`).

Usage: scripts/cpu_description.py <cpu_gemm_bench.txt> <reduce_kernels_bench.txt> <preset.json> <out.json> [day]

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
"""
import json
import re
import sys

GIB = 1024**3 / 1e9  # Google Benchmark's G/s of bytes is GiB/s


def medians(text, counter):
    return {m.group(1): float(m.group(2)) for m in re.finditer(rf"^(\S+)_median\s.*{counter}=([\d.]+)G/s", text, re.M)}


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    bench, kernels, preset, out = sys.argv[1:5]
    day = sys.argv[5] if len(sys.argv) > 5 else "this day"
    text = open(bench).read()
    gflops, rates = medians(text, "GFLOPs"), medians(text, "bytes_per_second")
    peak = gflops["Peak/2048/1024/1024"]
    curve = [{"dim": d, "efficiency": round(min(gflops[f"SmallN/{d}"], gflops[f"SmallK/{d}"]) / peak, 3)} for d in (8, 16, 32, 64, 128)]
    curve.append({"dim": 1024, "efficiency": round(min(v for k, v in gflops.items() if k.startswith("Peak")) / peak, 3)})
    passes = round(rates["Elementwise/64"] * GIB, 1)
    copy = float(re.search(r"copy/256M/real_time_median.*bytes_per_second=([\d.]+)G/s", open(kernels).read()).group(1))
    memcpy = round(copy * GIB, 1)

    d = json.load(open(preset))
    d["description"] += f" \u2014 as measured on {day} (base of that day's calibration)"
    g = d["gpu"]
    g["peak_tflops"]["fp32"] = g["peak_tflops"]["bf16"] = round(peak / 1000, 4)
    g["peak_tflops"]["source"] = (
        f"Eigen sgemm on one core as ccbench train runs it (benchmarks/cpu_gemm_bench, 5 repetitions in random order), "
        f"median of the largest Peak shape {peak:.1f} GFLOP/s ({bench}). ccbench train computes in fp32 whatever the "
        "training precision, so bf16 is the same rate")
    g["gemm_efficiency"] = curve
    g["gemm_efficiency_source"] = "the same run: at each d the slower of 1024 x d x 1024 and 1024 x 1024 x d (medians) over the peak; at 1024 the slowest Peak shape"
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
    with open(out, "w") as f:
        json.dump(d, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"peak {peak} GFLOP/s, curve {curve}, passes {passes} GB/s, memcpy {memcpy} GB/s -> {out}")


if __name__ == "__main__":
    main()
