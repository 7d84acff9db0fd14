#!/usr/bin/env python3
"""Times the GEMMs of a training step on this GPU with PyTorch (bf16, cuBLAS), one JSON line per
shape: the evidence for a GPU description's gemm_efficiency and unaligned_gemm_slowdown
(docs/training.md). Each shape is F.linear(x[m, k], w[n, k]) as nn.Linear runs it, plus the two
backward GEMMs autograd runs for it (dx = dy w: m x n x k; dw = dy^T x: n x m x k).

Usage: scripts/torch_gemm.py [--tokens 8192] [--hidden 768] [--vocab 50257] [-n 20]
"""
import argparse
import json
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch_gemm.py: PyTorch is not installed", file=sys.stderr)
    sys.exit(2)


def timed(fn, n):
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n * 1e-3  # seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("-n", type=int, default=20)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_gemm.py: no GPU", file=sys.stderr)
        sys.exit(2)
    m, h = args.tokens, args.hidden
    padded = -(-args.vocab // 64) * 64
    shapes = [("qkv", h, 3 * h), ("proj", h, h), ("fc", h, 4 * h), ("fc_out", 4 * h, h),
              ("logits", h, args.vocab), ("logits_padded", h, padded)]
    shapes += [(f"square{d}", d, d) for d in (128, 256, 512, 1024, 2048, 4096, 8192)]
    for name, k, n in shapes:
        mm = m if not name.startswith("square") else int(name[6:])
        x = torch.randn(mm, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn(mm, n, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * mm * k * n
        row = {"name": name, "m": mm, "k": k, "n": n}
        for part, fn in (("forward", lambda: F.linear(x, w)), ("input_grad", lambda: dy @ w),
                         ("weight_grad", lambda: dy.t() @ x)):
            t = timed(fn, args.n)
            row[part + "_ms"] = round(t * 1e3, 4)
            row[part + "_tflops"] = round(flops / t / 1e12, 1)
        print(json.dumps(row), flush=True)
        del x, w, dy


if __name__ == "__main__":
    main()
