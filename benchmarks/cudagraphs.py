"""Latency of a fixture before and after its CUDA-graph hazard is fixed, eager vs compiled.

Before: ``fixtures/cudagraphs/host_copy.py`` (a round trip through the host in the middle of
``forward``: ``.cpu()``, a clamp on the CPU, ``.to(device)``; torchlint reports the CUDA graph
cut there). After: ``fixtures/cudagraphs/clean_encoder.py`` (the same model and weights, the
clamp kept on the GPU; torchlint reports nothing). One step is one synchronised forward.

Each is run four ways: eager (the peer), ``torch.compile`` default mode (inductor, no CUDA
graphs), ``mode="reduce-overhead"`` (inductor + CUDA graphs, with inductor's graph partitions
as the installed torch sets them: on in 2.11 and 2.13), and ``reduce-overhead`` with
``graph_partition`` off (how inductor treated CPU work before partitions: the whole graph
runs without a CUDA graph, "skipping cudagraphs due to cpu device"). Everything is compiled
first; then ``--rounds`` rounds time ``--steps`` steps of every configuration in turn, so
clock and host drift hit all of them alike. Prints P50/P95 in milliseconds over all rounds
and the speed-up of P50 over eager, as a Markdown table.

    python benchmarks/cudagraphs.py [--steps 100] [--rounds 5] [--batch 4] [--seq 32]

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


MODES = (
    ("eager", None),
    ("default", {}),
    ("reduce-overhead", {"mode": "reduce-overhead"}),
    # what mode="reduce-overhead" sets, plus partitions off (torch.compile takes mode or options)
    ("reduce-overhead, partitions off", {"options": {"triton.cudagraphs": True, "graph_partition": False}}),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=32)
    args = parser.parse_args()

    import copy

    import torch

    if not torch.cuda.is_available():
        print(f"benchmarks/cudagraphs.py: needs a CUDA GPU; torch {torch.__version__} sees none", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    before = _load("host_copy").Tagger().cuda().eval()
    after = _load("clean_encoder").Tagger().cuda().eval()
    after.load_state_dict(before.state_dict())
    tokens = torch.randint(0, 1000, (args.batch, args.seq), device="cuda")

    configs = []  # (fixture, mode, callable, uses CUDA graphs, warm-up seconds)
    with torch.no_grad():
        reference = after(tokens)[1].clone()
        for label, eager in (("before: host round trip in forward", before), ("after: kept on the GPU", after)):
            for mode, kwargs in MODES:
                model = eager if kwargs is None else torch.compile(copy.deepcopy(eager), **kwargs)
                graphs = mode.startswith("reduce-overhead")
                started = time.perf_counter()
                for _ in range(args.warmup):
                    if graphs:
                        torch.compiler.cudagraph_mark_step_begin()
                    out = model(tokens)[1]
                torch.cuda.synchronize()
                assert torch.allclose(out, reference, atol=1e-3), f"{label} {mode}: wrong result"
                configs.append((label, mode, model, graphs, time.perf_counter() - started))
        times = {(label, mode): [] for label, mode, _, _, _ in configs}
        for _ in range(args.rounds):
            for label, mode, model, graphs, _ in configs:
                for _ in range(args.steps):
                    if graphs:
                        torch.compiler.cudagraph_mark_step_begin()
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    model(tokens)
                    torch.cuda.synchronize()
                    times[(label, mode)].append((time.perf_counter() - t0) * 1e3)
    rows = [
        (label, mode, statistics.median(times[(label, mode)]), _percentile(times[(label, mode)], 0.95), warm)
        for label, mode, _, _, warm in configs
    ]
    eager_p50 = {label: p50 for label, mode, p50, _, _ in rows if mode == "eager"}
    print(
        f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, batch {args.batch} x seq "
        f"{args.seq}, {args.rounds} rounds x {args.steps} timed steps per configuration, interleaved"
    )
    print()
    print("| fixture | mode | P50 ms | P95 ms | P50 vs eager | compile + warm-up s |")
    print("|---|---|---:|---:|---:|---:|")
    for label, mode, p50, p95, warm in rows:
        print(f"| {label} | {mode} | {p50:.3f} | {p95:.3f} | {eager_p50[label] / p50:.2f}x | {warm:.1f} |")
    p50 = {(label, mode): v for label, mode, v, _, _ in rows}
    labels = list(eager_p50)
    print()
    for mode in ("reduce-overhead", "reduce-overhead, partitions off"):
        print(f"{mode}: after the fix {p50[(labels[0], mode)] / p50[(labels[1], mode)]:.2f}x as fast as before (P50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
