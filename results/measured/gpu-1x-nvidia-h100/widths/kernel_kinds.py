#!/usr/bin/env python3
"""The table "Where the eager step's time goes" (docs/training-validation.md) from the profiled steps here
and in ../vocab: each trace's kernels summed by kind (GEMM, attention, element-wise, foreach
Adam), per step (each trace holds two), against the FLOPs and bytes the model prices.

Usage: python3 kernel_kinds.py   (from any directory)
"""
import collections
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PEAK = 989.4e12                 # H100 SXM dense bf16
BANDWIDTH = 3350e9 * 0.8        # the description's memory bandwidth x memory_efficiency
VOCAB = 50304                   # every profiled step pads the vocabulary

# trace, hidden, layers, sequence, micro-batch, parameters (torch_step.py's count)
STEPS = [("../vocab/trace_gpt2_mb16_v64.json.gz", 768, 12, 1024, 16, 124.5e6),
         ("../vocab/trace_gpt2-medium_mb8_v64.json.gz", 1024, 24, 1024, 8, 354.9e6),
         ("gpt2-xl_mb4_v64.trace.json.gz", 1600, 48, 1024, 4, 1557.7e6),
         ("gpt3-1.3b_mb4_v64.trace.json.gz", 2048, 24, 2048, 4, 1315.8e6),
         ("gpt3-2.7b_mb2_v64.trace.json.gz", 2560, 32, 2048, 2, 2651.7e6),
         ("gpt-w4096-l8_mb2_v64.trace.json.gz", 4096, 8, 2048, 2, 1825.5e6),
         ("gpt-w8192-l2_mb1_v64.trace.json.gz", 8192, 2, 2048, 1, 2039.7e6)]


def kind(name):
    n = name.lower()
    if "multi_tensor" in n:
        return "adam"
    if "flash" in n or "fmha" in n or "cudnn" in n:
        return "attention"
    if "gemm" in n or "nvjet" in n or "xmma" in n or "cutlass" in n:
        return "gemm"
    return "elementwise"


print("| width | GEMM ms | GEMM efficiency | attention ms | attention efficiency | element-wise ms "
      "| casts ms (priced) | element-wise factor | foreach Adam ms |")
for trace, h, layers, seq, mb, params in STEPS:
    with gzip.open(os.path.join(HERE, trace)) as f:
        events = json.load(f)["traceEvents"]
    ms = collections.Counter()
    for e in events:
        if e.get("cat") == "kernel":
            ms[kind(e["name"])] += e["dur"] / 1e3 / 2  # microseconds, two steps
    tokens = mb * seq
    gemm_flops = 3 * (24 * h * h * tokens * layers + 2 * h * VOCAB * tokens)
    attention_flops = 3.5 * 0.5 * 4 * seq * h * tokens * layers  # causal flash, forward + backward
    fused = 3 * 68 * h * tokens * layers / BANDWIDTH * 1e3        # the layers' fused element-wise bytes
    loss = 30 * tokens * VOCAB / BANDWIDTH * 1e3                   # the eager loss chain
    casts = 12 * params / BANDWIDTH * 1e3                          # autocast's weight casts
    print(f"| {h} | {ms['gemm']:.1f} | {gemm_flops / (ms['gemm'] / 1e3) / PEAK:.2f} | {ms['attention']:.1f} "
          f"| {attention_flops / (ms['attention'] / 1e3) / PEAK:.2f} | {ms['elementwise']:.1f} | {casts:.1f} "
          f"| {(ms['elementwise'] - loss - casts) / fused:.2f} | {ms['adam']:.1f} |")
