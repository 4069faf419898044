"""How many graph breaks `torchlint check --fix --unsafe-fixes` removes from the example models.

Copies fixtures/ to a temporary folder, measures each declared target (fixtures/pyproject.toml)
with the dynamic pass, applies every fix, and measures again:

    python benchmarks/fix.py            # ~1.5 minutes on a laptop CPU (two dynamic passes)

For each target it prints the dynamo graph-break count before and after, and how many of the
breaks before sat on a finding that has a fix. The target: after == before - fixable (every
break caused by a fixable pattern is gone, the others remain). It then lists the breaks left,
with the reason no fix covers them, and times the fix step itself against a plain static check
(the peer: what `torchlint check` costs without `--fix`).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def torchlint(cwd: Path, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "torchlint", "check", ".", "--format", "json", *args],
                          cwd=cwd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"torchlint check {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout)


def timed(cwd: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "torchlint", "check", ".", "-q", *args], cwd=cwd,
                   capture_output=True, check=False)
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


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="torchlint-fix-bench-") as tmp:
        work = Path(tmp) / "fixtures"
        shutil.copytree(REPO / "fixtures", work)
        before = torchlint(work, "--unsafe-fixes")  # --unsafe-fixes only marks the findings here
        fixable = sites_by_target(before, fixable_only=True)
        fix_seconds = timed(Path(shutil.copytree(REPO / "fixtures", Path(tmp) / "timing")), "--no-dynamic",
                            "--fix", "--unsafe-fixes")
        check_seconds = timed(REPO / "fixtures", "--no-dynamic")
        after = torchlint(work, "--fix", "--unsafe-fixes")
        changed = sorted(p.name for p in work.glob("*.py")
                         if p.read_bytes() != (REPO / "fixtures" / p.name).read_bytes())

    import torch  # noqa: F401 - only to name the version in the header

    print(f"torchlint check --fix --unsafe-fixes on fixtures/ (torch {before['torch_version']}, "
          f"{os.cpu_count()} CPUs); files rewritten: {', '.join(changed)}\n")
    head = f"{'target':42s} {'before':>6s} {'fixable':>7s} {'after':>6s} {'expected':>8s}  ok"
    print(head)
    print("-" * len(head))
    after_counts = {t["target"]: t["graph_breaks"] for t in after["targets"]}
    totals = [0, 0, 0, 0]
    all_ok = True
    for t in before["targets"]:
        name = t["target"]
        n_before, n_fix = t["graph_breaks"], len(fixable.get(name, ()))
        n_after, expected = after_counts.get(name), t["graph_breaks"] - len(fixable.get(name, ()))
        ok = n_after == expected
        all_ok &= ok
        for i, v in enumerate((n_before, n_fix, n_after or 0, expected)):
            totals[i] += v
        print(f"{name:42s} {n_before:6d} {n_fix:7d} {n_after!s:>6s} {expected:8d}  {'yes' if ok else 'NO'}")
    print("-" * len(head))
    print(f"{'total':42s} {totals[0]:6d} {totals[1]:7d} {totals[2]:6d} {totals[3]:8d}  {'yes' if all_ok else 'NO'}")
    removed = totals[0] - totals[2]
    print(f"\n{removed} of {totals[0]} graph breaks removed ({removed / max(totals[0], 1):.0%}); "
          f"graphs {before['summary']['graphs']} -> {after['summary']['graphs']}.")

    print("\nBreaks left (no fix covers them):")
    for f in after["findings"]:
        if f["source"] == "static":
            continue
        fix = f.get("fix")
        note = f"  <- has an unapplied {fix['applicability']} fix" if fix else ""
        print(f"  {f['path']}:{f['line']}  {f['rule'] or f['gb_code']:6s} {f['name']}{note}")
    print(f"\nFix step: {fix_seconds:.2f} s for `check --fix --unsafe-fixes --no-dynamic` vs "
          f"{check_seconds:.2f} s for a plain `check --no-dynamic` (ratio {fix_seconds / check_seconds:.2f}x).")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
