#!/usr/bin/env python3
"""Eager PyTorch's own GPT-2 training step on one GPU: the reference ccbench train and ccsim train
are checked against on a GPU machine that has PyTorch (docs/gpu.md, "What has run on a GPU").

A plain nanoGPT-style model built from a model card (models/cards/*.json): token and position
embeddings, pre-LayerNorm blocks with fused QKV, scaled_dot_product_attention (causal), GELU MLP of
4x hidden, a tied LM head; AdamW; bf16 autocast with fp32 master weights (ccsim's --precision mixed).
Prints one JSON object: the step time (min / median over the measured steps), peak memory, and
the memory of one more (untimed) step phase by phase: the peak inside forward + loss, inside
backward and inside the optimizer step, and what is held after forward and after backward.

Usage: scripts/torch_step.py models/cards/gpt2.json [--micro-batch 8] [--seq 1024] [-w 3] [-n 10]
                             [--vocab-multiple 64]   (pads the vocabulary as nanoGPT does: 50,257 -> 50,304)
                             [--profile trace.json]  (then two more steps under torch.profiler, written as
                                                      a Chrome trace: ccbench import reads it)
"""
import argparse
import json
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("torch_step.py: PyTorch is not installed", file=sys.stderr)
    sys.exit(2)


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc = nn.Linear(h, 4 * h)
        self.fc_out = nn.Linear(4 * h, h)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, h))
        return x + self.fc_out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, card, seq, vocab):
        super().__init__()
        h, layers, heads = card["n_embd"], card["n_layer"], card["n_head"]
        self.wte = nn.Embedding(vocab, h)
        self.wpe = nn.Embedding(seq, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(h)

    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # tied head, as GPT-2
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("card")
    ap.add_argument("--micro-batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=0, help="default: the card's n_positions")
    ap.add_argument("-w", type=int, default=3)
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("--vocab-multiple", type=int, default=1, help="pad the vocabulary to a multiple of this")
    ap.add_argument("--profile", default="", help="write two more steps under torch.profiler to this Chrome trace")
    args = ap.parse_args()
    if not 1 <= args.vocab_multiple <= 65536:
        print("torch_step.py: --vocab-multiple must be from 1 to 65536", file=sys.stderr)
        sys.exit(2)
    try:
        with open(args.card) as f:
            card = json.load(f)
        seq = args.seq or card["n_positions"]
    except (OSError, ValueError, KeyError) as e:
        print(f"torch_step.py: cannot read model card '{args.card}': {e}", file=sys.stderr)
        sys.exit(2)
    if not torch.cuda.is_available():
        print("torch_step.py: no GPU", file=sys.stderr)
        sys.exit(2)
    torch.backends.cuda.matmul.allow_tf32 = True
    dev = "cuda"
    vocab = -(-card["vocab_size"] // args.vocab_multiple) * args.vocab_multiple
    with torch.device(dev):  # built on the GPU: a 2.7B model's initialisation on the CPU takes longer than its run
        model = Gpt(card, seq, vocab)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    idx = torch.randint(0, card["vocab_size"], (args.micro_batch, seq), device=dev)
    gib = 2**30

    def step(phase_done=lambda name: None):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(idx, idx)
        phase_done("forward")
        loss.backward()
        phase_done("backward")
        opt.step()
        opt.zero_grad(set_to_none=True)
        phase_done("optimizer")

    times = []
    for i in range(args.w + args.n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        if i >= args.w:
            times.append((time.perf_counter() - t0) * 1e3)
        if i == args.w - 1:
            torch.cuda.reset_peak_memory_stats()
    peak = torch.cuda.max_memory_allocated()

    # One more step, untimed, measured phase by phase: the peak since the last phase ended, and
    # what is held after forward and after backward.
    phases = {}

    def mark(name):
        torch.cuda.synchronize()
        phases[name + "_peak_gib"] = round(torch.cuda.max_memory_allocated() / gib, 3)
        if name != "optimizer":
            phases["after_" + name + "_gib"] = round(torch.cuda.memory_allocated() / gib, 3)
        torch.cuda.reset_peak_memory_stats()

    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    phases["step_start_gib"] = round(torch.cuda.memory_allocated() / gib, 3)
    step(mark)

    if args.profile:
        from torch.profiler import ProfilerActivity, profile, schedule
        # The trace is written when the schedule's active steps end (the profiler drops the
        # events of a finished cycle, so exporting after the block would write none).
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
                     on_trace_ready=lambda p: p.export_chrome_trace(args.profile)) as prof:
            for _ in range(3):
                step()
                torch.cuda.synchronize()
                prof.step()
    print(json.dumps({
        "model": card.get("name", args.card), "params": sum(p.numel() for p in model.parameters()),
        "vocab": vocab, "micro_batch": args.micro_batch, "seq": seq, "steps": args.n,
        "step_ms_min": round(min(times), 3), "step_ms_median": round(statistics.median(times), 3),
        "peak_allocated_gib": round(peak / gib, 3),
        "peak_reserved_gib": round(torch.cuda.max_memory_reserved() / gib, 3),
        "phases": phases,
        "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0),
    }))


if __name__ == "__main__":
    main()
