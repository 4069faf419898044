"""How many graph breaks `torchlint check --fix --unsafe-fixes` removes from the example models.

Copies fixtures/ to a temporary folder, measures each declared target (fixtures/pyproject.toml)
with the dynamic pass, applies every fix, and measures again:

    python benchmarks/fix.py            # ~1.5 minutes on a laptop CPU (two dynamic passes)

For each target it prints the dynamo graph-break count before and after, how many of the
breaks before sat on a finding that has a fix, and whether the fixed model computes the same
outputs as the original (eager, eval mode, the same seeds, on the target's example inputs; a
layer the fix hoisted out of ``forward`` is given the weights the original drew there). The bar:
at most 6 breaks left over all targets, no target with more breaks than before, and every
target's outputs equal. It then lists the breaks left, with the reason no fix covers them, and
times the fix step itself against a plain static check (the peer: what `torchlint check` costs
without `--fix`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MAX_BREAKS_AFTER = 6


def torchlint(cwd: Path, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", ".", "--format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):
        sys.exit(f"torchlint check {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout)


def timed(cwd: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "torchlint", "check", ".", "-q", *args], cwd=cwd, capture_output=True, check=False
    )
    return time.perf_counter() - start


def sites_by_target(report: dict, fixable_only: bool = False) -> dict:
    """target -> {(path, line)} of dynamo-confirmed findings (with a fix, if asked)."""
    out = defaultdict(set)
    for f in report["findings"]:
        if f["source"] == "static" or (fixable_only and not f.get("fix")):
            continue
        for target in (f["target"] or "").split(", "):
            out[target].add((f["path"], f["line"]))
    return out


def _targets(fixtures: Path) -> dict:
    import tomllib

    with open(fixtures / "pyproject.toml", "rb") as fh:
        tables = tomllib.load(fh)["tool"]["torchlint"]["targets"]
    return {t["target"]: t for t in tables}


def _tensors(value):
    import torch

    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)


def _run(target: str, table: dict, folder: Path, hoisted_from=None):
    """Build ``target`` from ``folder`` and run it eagerly on its example inputs (same seeds)."""
    import random

    import torch

    from torchlint.dynamic.load import load_input_sets, load_inputs, load_target
    from torchlint.dynamic.targets import parse_ref

    torch.manual_seed(0)
    model, _ = load_target(parse_ref(target), str(folder))
    calls = (
        load_input_sets(parse_ref(table["input-sets-from"]), str(folder))
        if "input-sets-from" in table
        else [load_inputs(parse_ref(table["inputs-from"]), str(folder))]
    )
    if isinstance(model, torch.nn.Module):
        model.eval()
    if hoisted_from is not None and isinstance(model, torch.nn.Module):
        old = {name for name, _ in hoisted_from.named_modules()}
        new = [m for name, m in model.named_modules() if name not in old]
    else:
        new = []
    outs = []
    for args, kwargs in calls:
        torch.manual_seed(1)  # a hoisted layer draws what the original drew in forward
        for m in new:
            if hasattr(m, "reset_parameters"):
                m.reset_parameters()
        torch.manual_seed(1)
        random.seed(1)
        with (
            torch.no_grad(),
            torch.compiler.set_stance("force_eager"),
            warnings.catch_warnings(),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            warnings.simplefilter("ignore")  # the models' own prints and warnings
            outs.append(model(*args, **kwargs))
    return model, outs


def _without_tensors(value: Any) -> Any:
    """``value`` with each tensor in its lists and tuples replaced by None."""
    import torch

    if isinstance(value, (list, tuple)):
        return [_without_tensors(e) for e in value]
    return None if isinstance(value, torch.Tensor) else value


def same_outputs(target: str, original: Path, fixed: Path) -> str:
    """``equal`` when the fixed target computes what the original does (values, shapes, dtypes,
    and the same Python values around the tensors), else a word on what differs."""
    import torch

    table = _targets(original)[target]
    try:
        model0, outs0 = _run(target, table, original)
        _, outs1 = _run(target, table, fixed, hoisted_from=model0)
    except Exception as exc:  # noqa: BLE001 - a fixed model that does not run is a result
        return f"raises {type(exc).__name__}"
    for a, b in zip(outs0, outs1):
        t0, t1 = list(_tensors(a)), list(_tensors(b))
        if len(t0) != len(t1):
            return "DIFFER"
        for x, y in zip(t0, t1):
            if (
                x.shape != y.shape
                or x.dtype != y.dtype
                or not torch.allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True)
            ):
                return "DIFFER"
        if _without_tensors(a) != _without_tensors(b):
            return "DIFFER"
    return "equal"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="torchlint-fix-bench-") as tmp:
        work = Path(tmp) / "fixtures"
        shutil.copytree(REPO / "fixtures", work)
        before = torchlint(work, "--unsafe-fixes")  # --unsafe-fixes only marks the findings here
        fixable = sites_by_target(before, fixable_only=True)
        fix_seconds = timed(
            Path(shutil.copytree(REPO / "fixtures", Path(tmp) / "timing")), "--no-dynamic", "--fix", "--unsafe-fixes"
        )
        check_seconds = timed(REPO / "fixtures", "--no-dynamic")
        after = torchlint(work, "--fix", "--unsafe-fixes")
        changed = sorted(
            p.name for p in work.glob("*.py") if p.read_bytes() != (REPO / "fixtures" / p.name).read_bytes()
        )
        equal = {t["target"]: same_outputs(t["target"], REPO / "fixtures", work) for t in before["targets"]}

    import torch  # noqa: F401 - only to name the version in the header

    print(
        f"torchlint check --fix --unsafe-fixes on fixtures/ (torch {before['torch_version']}, "
        f"{os.cpu_count()} CPUs); files rewritten: {', '.join(changed)}\n"
    )
    head = f"{'target':42s} {'before':>6s} {'fixable':>7s} {'after':>6s}  {'outputs':9s} ok"
    print(head)
    print("-" * len(head))
    after_counts = {t["target"]: t["graph_breaks"] for t in after["targets"]}
    totals = [0, 0, 0]
    all_ok = True
    for t in before["targets"]:
        name = t["target"]
        n_before, n_fix = t["graph_breaks"], len(fixable.get(name, ()))
        n_after = after_counts.get(name)
        ok = n_after is not None and n_after <= n_before and equal[name] == "equal"
        all_ok &= ok
        for i, v in enumerate((n_before, n_fix, n_after or 0)):
            totals[i] += v
        print(f"{name:42s} {n_before:6d} {n_fix:7d} {n_after!s:>6s}  {equal[name]:9s} {'yes' if ok else 'NO'}")
    print("-" * len(head))
    bar = totals[2] <= MAX_BREAKS_AFTER
    all_ok &= bar
    print(
        f"{'total':42s} {totals[0]:6d} {totals[1]:7d} {totals[2]:6d}  "
        f"{'equal' if all(v == 'equal' for v in equal.values()) else 'DIFFER':9s} {'yes' if all_ok else 'NO'}"
    )
    removed = totals[0] - totals[2]
    print(
        f"\n{removed} of {totals[0]} graph breaks removed ({removed / max(totals[0], 1):.0%}); "
        f"graphs {before['summary']['graphs']} -> {after['summary']['graphs']}; "
        f"{totals[2]} left (bar: at most {MAX_BREAKS_AFTER}: {'met' if bar else 'NOT met'})."
    )

    print("\nBreaks left (no fix covers them):")
    for f in after["findings"]:
        if f["source"] == "static":
            continue
        fix = f.get("fix")
        note = f"  <- has an unapplied {fix['applicability']} fix" if fix else ""
        print(f"  {f['path']}:{f['line']}  {f['rule'] or f['gb_code']:6s} {f['name']}{note}")
    print(
        f"\nFix step: {fix_seconds:.2f} s for `check --fix --unsafe-fixes --no-dynamic` vs "
        f"{check_seconds:.2f} s for a plain `check --no-dynamic` (ratio {fix_seconds / check_seconds:.2f}x)."
    )
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
