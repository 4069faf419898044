"""Latency of a fixture before and after its CUDA-graph hazard is fixed, eager vs compiled.

Before: ``fixtures/cudagraphs/host_copy.py`` (a round trip through the host in the middle of
``forward``: ``.cpu()``, a clamp on the CPU, ``.to(device)``; torchlint reports the CUDA graph
cut there). After: ``fixtures/cudagraphs/clean_encoder.py`` (the same model and weights, the
clamp kept on the GPU; torchlint reports nothing). One step is one synchronised forward.

For each, three ways to run it: eager (the peer), ``torch.compile`` default mode (inductor,
no CUDA graphs) and ``mode="reduce-overhead"`` (inductor + CUDA graphs). Each step is timed
with ``time.perf_counter`` around a fully synchronised call; prints P50/P95 in milliseconds
and the speed-up of P50 over eager, as a Markdown table.

    python benchmarks/cudagraphs.py [--steps 300] [--batch 4] [--seq 32]

Needs a CUDA GPU (exits 2 with one line otherwise).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures", "cudagraphs")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", os.path.join(FIXTURES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=32)
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print(f"benchmarks/cudagraphs.py: needs a CUDA GPU; torch {torch.__version__} sees none", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    before = _load("host_copy").Tagger().cuda().eval()
    after = _load("clean_encoder").Tagger().cuda().eval()
    after.load_state_dict(before.state_dict())
    tokens = torch.randint(0, 1000, (args.batch, args.seq), device="cuda")

    def step(model):
        return model(tokens)[1]

    rows = []
    with torch.no_grad():
        reference = step(after)
        for label, eager in (("before: host round trip in forward", before),
                             ("after: kept on the GPU", after)):
            for mode in ("eager", "default", "reduce-overhead"):
                torch._dynamo.reset()
                model = eager if mode == "eager" else torch.compile(eager, mode=mode)
                mark = mode == "reduce-overhead"
                started = time.perf_counter()
                for _ in range(args.warmup):
                    if mark:
                        torch.compiler.cudagraph_mark_step_begin()
                    out = step(model)
                torch.cuda.synchronize()
                warm = time.perf_counter() - started
                assert torch.allclose(out, reference, atol=1e-3), f"{label} {mode}: wrong result"
                times = []
                for _ in range(args.steps):
                    if mark:
                        torch.compiler.cudagraph_mark_step_begin()
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    step(model)
                    torch.cuda.synchronize()
                    times.append((time.perf_counter() - t0) * 1e3)
                rows.append((label, mode, statistics.median(times), _percentile(times, 0.95), warm))
    eager_p50 = {label: p50 for label, mode, p50, _, _ in rows if mode == "eager"}
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"batch {args.batch} x seq {args.seq}, {args.steps} timed steps after {args.warmup} warm-up")
    print()
    print("| fixture | mode | P50 ms | P95 ms | P50 vs eager | warm-up s |")
    print("|---|---|---:|---:|---:|---:|")
    for label, mode, p50, p95, warm in rows:
        print(f"| {label} | {mode} | {p50:.3f} | {p95:.3f} | {eager_p50[label] / p50:.2f}x | {warm:.1f} |")
    ro = {label: p50 for label, mode, p50, _, _ in rows if mode == "reduce-overhead"}
    labels = list(ro)
    print()
    print(f"reduce-overhead, after vs before the fix: {ro[labels[0]] / ro[labels[1]]:.2f}x faster at P50")
    return 0


if __name__ == "__main__":
    sys.exit(main())
