"""What each graph break costs, reported against what removing it saves.

Each program is a serving loop (a compiled scorer called on batch after batch) with two graph
breaks whose costs differ many times over while their rules say nothing of it: a `print` of
the batch to a log file (cheap) and Python post-processing of the scores that dynamo does not compile (a
heavy per-row loop behind `torch.compiler.disable`, after a host copy of the scores). The two
programs put them in opposite orders. Each program has fixed variants, each with one break
removed (the print dropped; the post-processing done with tensor ops), written to a temporary
folder and run in the same rounds, in turns:

* `torchlint run --no-static --format json PROGRAM full` reports `cost_ms` per break;
* `python PROGRAM VARIANT` times the warm calls of each variant (median per call of
  ``--calls`` calls, after the warm-up) and prints it.

The saving of a break is the median call time of `full` minus that of the variant without the
break; the table shows it beside the reported `cost_ms` and their ratio. The bar: the
expensive break's `cost_ms` within 3x of its saving, the cheap break's `cost_ms` below a third
of the expensive one's. On a GPU, ``--device cuda --mode reduce-overhead`` compiles with CUDA
graphs, and the programs then also print P50 and P95 per call.

    .venv/bin/python benchmarks/break_cost.py [--rounds 3] [--calls 300] [--device cpu|cuda]
        [--mode default|reduce-overhead] [--backend inductor]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROGRAM = r"""
import json, sys, time
import torch

variant, calls, device, mode, backend, order = sys.argv[1:7]
calls = int(calls)
torch.manual_seed(0)
torch.set_num_threads(1)
WEIGHTS = [0.5 + (i % 7) / 10 for i in range(64)]
LOG = open("serve.log", "w")  # the batch log goes to a file: a pipe would make each line's cost the reader's


@torch.compiler.disable
def postprocess(scores):
    # per row, per class, in Python: the work a vectorised form does in one kernel
    rows = scores.tolist()
    out = []
    for row in rows:
        total = 0.0
        for value, weight in zip(row, WEIGHTS):
            total += value * weight if value > 0 else 0.0
        out.append(total)
    return torch.tensor(out, device=scores.device)


def postprocess_fixed(scores, weights):
    return (scores.clamp(min=0) * weights).sum(dim=1)


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(64, 64)
        self.head = torch.nn.Linear(64, 64)
        self.register_buffer("weights", torch.tensor(WEIGHTS))

    def announce(self, x):
        if variant not in ("no_print", "fixed"):
            print("batch", x.shape[0], file=LOG)

    def post(self, h):
        if variant in ("no_post", "fixed"):
            return postprocess_fixed(h, self.weights)
        return postprocess(h)

    def forward(self, x):
        h = self.enc(x).relu()
        if order == "print_first":
            self.announce(x)
            h = self.head(h)
            s = self.post(h)
        else:
            h = self.head(h)
            s = self.post(h)
            self.announce(x)
        return h.mean(dim=1) + s


options = {"backend": backend} if mode == "default" else {"mode": mode}
model = torch.compile(Scorer().to(device), **options)
batches = [torch.randn(48, 64, device=device) for _ in range(8)]
for i in range(20):
    model(batches[i % len(batches)])
times = []
for i in range(calls):
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    out = model(batches[i % len(batches)])
    if device == "cuda":
        torch.cuda.synchronize()
    times.append(time.perf_counter() - start)
times.sort()
print("BENCH " + json.dumps({"p50_ms": 1000 * times[len(times) // 2], "p95_ms": 1000 * times[int(len(times) * 0.95)]}),
      flush=True)
"""

#: program -> the line (text) of each break, to find its finding in the report
BREAKS = {"print": 'print("batch"', "post": "return postprocess(h)"}
VARIANTS = {"print": "no_print", "post": "no_post"}


def timed(cmd: list[str], cwd: str) -> dict:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    line = next((out for out in done.stdout.splitlines() if out.startswith("BENCH ")), None)
    if line is None:
        raise SystemExit(f"benchmark program failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    data = json.loads(line[6:])
    if "\n{" in done.stdout:  # torchlint's report follows what the program printed
        data["report"] = json.loads(done.stdout[done.stdout.index("\n{") + 1 :])
    return data


def costs_of(report: dict, source: str) -> dict[str, float | None]:
    lines = source.splitlines()
    out: dict[str, float | None] = {}
    for name, text in BREAKS.items():
        line = next(i + 1 for i, s in enumerate(lines) if text in s)
        found = [f for f in report["findings"] if f["line"] == line and f.get("name") != "recompile-limit"]
        out[name] = max((f.get("cost_ms") or 0.0 for f in found), default=None) if found else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--mode", default="default", help="default or reduce-overhead (CUDA graphs)")
    parser.add_argument("--backend", default="inductor")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="torchlint_bench_cost_")
    path = os.path.join(folder, "serve.py")
    with open(path, "w") as handle:
        handle.write(PROGRAM)
    failed = False
    for order in ("print_first", "post_first"):
        tail = [str(args.calls), args.device, args.mode, args.backend, order]
        plain = {v: [sys.executable, "serve.py", v, *tail] for v in ("full", "no_print", "no_post", "fixed")}
        watched = [sys.executable, "-m", "torchlint", "run", "--no-static", "--exit-zero", "--format", "json"]
        watched += ["serve.py", "full", *tail]
        timed(plain["full"], folder)  # warm inductor's cache: every variant then loads its graphs from it
        rows: dict[str, list[float]] = {v: [] for v in plain}
        reported: dict[str, list[float]] = {b: [] for b in BREAKS}
        for r in range(args.rounds):
            names = list(plain) if r % 2 == 0 else list(reversed(plain))
            for name in names:
                rows[name].append(timed(plain[name], folder)["p50_ms"])
            report = timed(watched, folder)["report"]
            for name, ms in costs_of(report, PROGRAM).items():
                if ms is not None:
                    reported[name].append(ms)
        med = {v: statistics.median(x) for v, x in rows.items()}
        print(f"\n{order} ({args.device}, {args.mode}, {args.rounds} rounds of {args.calls} calls): P50 per call")
        for v, ms in med.items():
            print(f"  {v:9s} {ms:8.3f} ms")
        figures = {}
        for name in BREAKS:
            saving = med["full"] - med[VARIANTS[name]]
            cost = statistics.median(reported[name]) if reported[name] else None
            figures[name] = (cost, saving)
            ratio = f"{cost / saving:6.2f}x" if cost is not None and saving > 0 else "   n/a"
            shown = f"{cost:8.3f} ms" if cost is not None else "     n/a   "
            print(f"  break {name:6s} reported cost_ms {shown}   saving {saving:8.3f} ms   cost/saving {ratio}")
        cost_post, saving_post = figures["post"]
        cost_print = figures["print"][0] or 0.0
        within = cost_post is not None and saving_post > 0 and 1 / 3 <= cost_post / saving_post <= 3
        ranked = cost_post is not None and cost_print < cost_post / 3
        print(
            f"  bar: expensive break within 3x of its saving {'OK' if within else 'FAIL'}; "
            f"cheap break below a third of it {'OK' if ranked else 'FAIL'}"
        )
        failed = failed or not (within and ranked)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
