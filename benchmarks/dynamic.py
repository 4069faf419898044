"""Wall time of the dynamic pass against bare ``torch._dynamo.explain`` in one process.

Both sides run the targets declared in ``fixtures/pyproject.toml`` (10 fixture models), each
in a fresh Python process so both pay the torch import once:

* bare: one process imports torch, builds every target and calls ``explain`` on each of its
  calls (no isolation, no log capture, nothing reported);
* torchlint: ``python -m torchlint check fixtures --no-static --format json`` (parent without
  torch, one reused worker, timeouts, log capture, merge, report).

Prints the median of ``--repeat`` runs of each and the ratio (target: under 1.5x).

    .venv/bin/python benchmarks/dynamic.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")

BARE = r"""
import importlib.util, inspect, os, sys, tomllib
import torch
root = sys.argv[1]
targets = tomllib.load(open(os.path.join(root, "pyproject.toml"), "rb"))["tool"]["torchlint"]["targets"]
def load(ref):
    path, name = ref.rsplit(":", 1)
    spec = importlib.util.spec_from_file_location("m_" + os.path.basename(path)[:-3], os.path.join(root, path))
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return getattr(mod, name)
count = 0
for t in targets:
    torch.manual_seed(0)
    obj = load(t["target"])
    if inspect.isclass(obj) or not inspect.signature(obj).parameters or all(
            p.default is not p.empty for p in inspect.signature(obj).parameters.values()):
        obj = obj()
    if isinstance(obj, torch.nn.Module):
        obj.eval()
    if "inputs-from" in t:
        calls = [load(t["inputs-from"])()]
    else:
        calls = list(load(t["input-sets-from"])())
    with torch.no_grad():
        for args in calls:
            torch._dynamo.explain(obj)(*args)
    count += 1
print(count)
"""


def timed(cmd, cwd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    python = sys.executable
    bare_times, lint_times = [], []
    summary = None
    for _ in range(args.repeat):
        seconds, proc = timed([python, "-c", BARE, FIXTURES], FIXTURES)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            return 2
        bare_times.append(seconds)
        seconds, proc = timed([python, "-m", "torchlint", "check", ".", "--no-static", "--format", "json"], FIXTURES)
        if proc.returncode not in (0, 1):
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
            return 2
        lint_times.append(seconds)
        summary = json.loads(proc.stdout)
    bare, lint = statistics.median(bare_times), statistics.median(lint_times)
    targets = summary["targets"]
    print(
        f"targets: {len(targets)} ({sum(1 for t in targets if t['error'] is None)} ran), "
        f"graph breaks: {summary['summary']['graph_breaks']}, recompiles: {summary['summary']['recompiles']}"
    )
    print(
        f"bare torch._dynamo.explain, one process: {bare:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in bare_times)})"
    )
    print(
        f"torchlint check --no-static:              {lint:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in lint_times)})"
    )
    print(f"ratio: {lint / bare:.2f}x (target < 1.5x)")
    return 0 if lint / bare < 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
