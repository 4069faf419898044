"""What each graph break costs, reported against what removing it saves, like for like.

The program is a serving loop with two graph breaks whose costs differ many times over while
their rules say nothing of it: a `print` of the batch to a log file (cheap) and Python
post-processing of the scores that dynamo does not compile (a per-row, per-class loop behind
`torch.compiler.disable`, after a host copy of the scores: expensive). Two orders are run
(print first, post-processing first). The program holds four compiled scorers, each its own
function (so each is its own compiled frame): `score_full` with both breaks, `score_no_print`
and `score_no_post` with one removed (the print dropped; the post-processing done with tensor
ops), and `score_fixed` with neither. After a warm-up it calls them round-robin, one call of
each in turn (the first one rotating), so all four see the same machine at the same moments,
and times every call.

Each round runs the program twice, in alternating order: plainly (`python serve.py`) and as
`torchlint run --no-static --format json serve.py`, whose report gives each break of
`score_full` its `cost_ms`. Every figure is the same statistic as `cost_ms`: the mean per call
with the slowest fifth of calls left out (``torchlint.dynamic.costs.TRIM``). The saving of a
break is that mean of `score_full` minus that of the scorer without the break, measured in
the same process as the reported cost (under `torchlint run`) and in the plain run beside
it. Printed per break: the reported `cost_ms`, the savings, their ratio, and the verdict
against the bar: the expensive break's `cost_ms` within 3x of its saving, the cheap break's
below a third of the expensive one's. The part of a saving that `cost_ms` does not hold (the
extra graph's own entry and exit, a fusion the break prevented) shows as `saving - cost`.

On a GPU, ``--device cuda --mode reduce-overhead`` compiles with CUDA graphs and synchronizes
around each call; P50 and P95 per call are printed for each scorer as well.

    .venv/bin/python benchmarks/break_cost.py [--rounds 3] [--calls 300] [--device cpu|cuda]
        [--mode default|reduce-overhead] [--backend inductor|eager] [--rows 48]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torchlint.dynamic.costs import TRIM  # the statistic cost_ms is, for the savings too

HEAD = r"""
import json, sys, time
import torch

calls, device, mode, backend, rows = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
calls, rows = int(calls), int(rows)
torch.manual_seed(0)
torch.set_num_threads(1)
WEIGHTS = [0.5 + (i % 7) / 10 for i in range(64)]
LOG = open("serve.log", "w")  # the batch log goes to a file: a pipe would make each line's cost the reader's


@torch.compiler.disable
def postprocess(scores):
    # per row, per class, in Python: the work a vectorised form does in one kernel
    out = []
    for row in scores.tolist():
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
"""

TAIL = r"""

options = {"backend": backend} if mode == "default" else {"mode": mode}
model = Scorer().to(device).eval()
scorers = {name: torch.compile(fn, **options) for name, fn in SCORERS.items()}
batches = [torch.randn(rows, 64, device=device) for _ in range(8)]
names = list(scorers)
times = {name: [] for name in names}
with torch.no_grad():
    for i in range(20):
        for name in names:
            scorers[name](model, batches[i % len(batches)])
    for i in range(calls):
        x = batches[i % len(batches)]
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            if device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter_ns()
            scorers[name](model, x)
            if device == "cuda":
                torch.cuda.synchronize()
            times[name].append(time.perf_counter_ns() - start)
print("BENCH " + json.dumps(times), flush=True)
"""

#: per scorer: does it keep the print, the Python post-processing
VARIANTS = {"full": (True, True), "no_print": (False, True), "no_post": (True, False), "fixed": (False, False)}
#: the break -> the scorer without it
WITHOUT = {"print": "no_print", "post": "no_post"}


def scorer(name: str, keep_print: bool, keep_post: bool, order: str) -> str:
    announce = '    print("batch", x.shape[0], file=LOG)  # BREAK:print' if keep_print else None
    post = "    s = postprocess(h)  # BREAK:post" if keep_post else "    s = postprocess_fixed(h, model.weights)"
    body = ["    h = model.enc(x).relu()"]
    if order == "print_first":
        body += [announce, "    h = model.head(h)", post]
    else:
        body += ["    h = model.head(h)", post, announce]
    lines = [f"def score_{name}(model, x):", *(b for b in body if b), "    return h.mean(dim=1) + s"]
    return "\n".join(lines)


def program(order: str) -> str:
    functions = [scorer(name, *keep, order) for name, keep in VARIANTS.items()]
    table = "SCORERS = {" + ", ".join(f'"{name}": score_{name}' for name in VARIANTS) + "}"
    return HEAD + "\n\n" + "\n\n\n".join(functions) + "\n\n\n" + table + "\n" + TAIL


def trimmed_mean_ms(ns: list[int]) -> float:
    ordered = sorted(ns)
    keep = ordered[: max(len(ordered) - int(len(ordered) * TRIM), 1)]
    return sum(keep) / len(keep) / 1e6


def percentile_ms(ns: list[int], q: float) -> float:
    ordered = sorted(ns)
    return ordered[min(int(len(ordered) * q), len(ordered) - 1)] / 1e6


def run(cmd: list[str], cwd: str, report: str | None = None) -> tuple[dict[str, list[int]], dict | None]:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    line = next((out for out in done.stdout.splitlines() if out.startswith("BENCH ")), None)
    if line is None:
        raise SystemExit(f"benchmark program failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    data = None
    if report is not None:
        with open(report) as handle:
            data = json.load(handle)
    return json.loads(line[6:]), data


def costs_of(report: dict, source: str) -> dict[str, float | None]:
    """The reported `cost_ms` of each break of `score_full`."""
    lines = source.splitlines()
    out: dict[str, float | None] = {}
    for name in WITHOUT:
        line = next(i + 1 for i, s in enumerate(lines) if s.endswith(f"# BREAK:{name}"))
        # the first marked line of that break is score_full's (it is defined first)
        found = [f for f in report["findings"] if f["line"] == line and f.get("cost_frame") == "score_full"]
        out[name] = found[0]["cost_ms"] if found else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=300, help="calls of each scorer per run, after the warm-up")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--mode", default="default", help="default or reduce-overhead (CUDA graphs)")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--rows", type=int, default=48, help="rows per batch: the post-processing's Python work")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="torchlint_bench_cost_")
    failed = False
    for order in ("print_first", "post_first"):
        source = program(order)
        path = os.path.join(folder, "serve.py")
        with open(path, "w") as handle:
            handle.write(source)
        tail = [str(args.calls), args.device, args.mode, args.backend, str(args.rows)]
        report = os.path.join(folder, "report.json")
        plain = [sys.executable, "serve.py", *tail]
        watched = [sys.executable, "-m", "torchlint", "run", "--no-static", "--exit-zero", "--format", "json"]
        watched += ["-o", report, "serve.py", *tail]
        run(plain, folder)  # warm inductor's cache: every later run loads its graphs from it
        seen: dict[str, dict[str, list[float]]] = {"plain": {v: [] for v in VARIANTS}, "run": {v: [] for v in VARIANTS}}
        tails: dict[str, list[tuple[float, float]]] = {v: [] for v in VARIANTS}
        reported: dict[str, list[float]] = {b: [] for b in WITHOUT}
        for r in range(args.rounds):
            for kind in ("plain", "run") if r % 2 == 0 else ("run", "plain"):
                times, data = run(plain, folder) if kind == "plain" else run(watched, folder, report)
                for v, ns in times.items():
                    seen[kind][v].append(trimmed_mean_ms(ns))
                    if kind == "plain":
                        tails[v].append((percentile_ms(ns, 0.5), percentile_ms(ns, 0.95)))
                if data is not None:
                    for name, ms in costs_of(data, source).items():
                        if ms is not None:
                            reported[name].append(ms)
        med = {kind: {v: statistics.median(x) for v, x in rows.items()} for kind, rows in seen.items()}
        print(
            f"\n{order} ({args.device}, {args.mode}, {args.backend}, {args.rows} rows; {args.rounds} rounds of "
            f"{args.calls} calls per scorer, round-robin): per call, mean without the slowest {TRIM:.0%}"
        )
        for v in VARIANTS:
            p50 = statistics.median(t[0] for t in tails[v])
            p95 = statistics.median(t[1] for t in tails[v])
            print(
                f"  {v:9s} plain {med['plain'][v]:8.3f} ms (P50 {p50:.3f}, P95 {p95:.3f})   "
                f"under torchlint run {med['run'][v]:8.3f} ms"
            )
        figures = {}
        for name, without in WITHOUT.items():
            cost = statistics.median(reported[name]) if reported[name] else None
            saving_run = med["run"]["full"] - med["run"][without]
            saving_plain = med["plain"]["full"] - med["plain"][without]
            figures[name] = (cost, saving_run)
            ratio = f"{cost / saving_run:5.2f}x" if cost is not None and saving_run > 0 else "  n/a"
            shown = f"{cost:8.3f}" if cost is not None else "     n/a"
            rest = f"{saving_run - cost:+8.3f}" if cost is not None else "     n/a"
            print(
                f"  break {name:5s} cost_ms {shown}   saving {saving_run:8.3f} ms (same process; "
                f"plain run {saving_plain:8.3f} ms)   cost/saving {ratio}   saving - cost {rest} ms"
            )
        cost_post, saving_post = figures["post"]
        cost_print = figures["print"][0]
        within = cost_post is not None and saving_post > 0 and 1 / 3 <= cost_post / saving_post <= 3
        ranked = cost_post is not None and cost_print is not None and cost_print < cost_post / 3
        print(
            f"  bar: expensive break's cost_ms within 3x of its saving {'OK' if within else 'FAIL'}; "
            f"cheap break's below a third of it {'OK' if ranked else 'FAIL'}"
        )
        failed = failed or not (within and ranked)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
