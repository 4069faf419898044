"""Held-out accuracy of the static pass: programs written apart from the rule pages and tests.

``benchmarks/heldout/*.py`` are small single-file programs, each with a real break pattern;
``benchmarks/heldout/lookalike/*.py`` are programs that look like breaks and are not (dtype
tests, sizes from shapes, flags, config attributes, ``is None``, lengths, ``torch.Size``).
Each file's first line names the dynamo target and inputs
(``# dynamo: target=Net inputs=f32[4,8];i64[4]``, ``train=1`` to run it in train mode with a
backward, as a training step would). The break lines are measured here, now,
with dynamo on the installed torch (the oracle of :mod:`torchlint.dynamic.observe`); the
static pass runs with every default graph-break rule. A static line is a true positive when
dynamo breaks on it.

    python benchmarks/heldout.py [-v]

Prints one row per file, then ``held-out precision=P recall=R`` and the number of findings
on the look-alike files (the bar: recall >= 0.95, precision >= 0.98, zero on look-alikes).
"""

from __future__ import annotations

import glob
import os
import re
import sys
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from torchlint.rules import all_rules  # noqa: E402
from torchlint.static.lint import lint_file  # noqa: E402
from torchlint.verify import silenced  # noqa: E402

HERE = os.path.join(REPO, "benchmarks", "heldout")
_HEADER = re.compile(r"#\s*dynamo:\s*target=(\S+)\s+inputs=(\S*)(\s+train=1)?")


def measure(code: str) -> set[int]:
    from torchlint.dynamic.observe import observe_source

    m = _HEADER.match(code)
    if m is None:
        raise ValueError("first line must be `# dynamo: target=... inputs=...`")
    target, inputs, train = m.group(1), m.group(2), m.group(3) is not None
    with warnings.catch_warnings(), silenced():
        warnings.simplefilter("ignore")
        obs, path = observe_source(code, target, inputs.split(";") if inputs else [], train=train)
    return obs.break_lines(path)


def score(files: list[str], verbose: bool) -> tuple[int, int, int]:
    rules = [r for r in all_rules() if r.severity == "error"]
    tp = fp = fn = 0
    for path in files:
        with open(path, encoding="utf-8") as handle:
            code = handle.read()
        # a program run in train mode is linted for training, as `torchlint check --train` does
        m = _HEADER.match(code)
        facts = {"train": True} if m is not None and m.group(3) else None
        static = {f.line for f in lint_file(os.path.basename(path), code, rules, facts=facts).findings}
        try:
            real = measure(code)
            note = ""
        except Exception as exc:  # noqa: BLE001 (a broken program scores as no break, and says so)
            real, note = set(), f"  (dynamo run failed: {type(exc).__name__}: {str(exc)[:60]})"
        a, b, c = len(static & real), len(static - real), len(real - static)
        tp, fp, fn = tp + a, fp + b, fn + c
        name = os.path.relpath(path, HERE)
        print(f"{name:34s} breaks={len(real):2d} static={len(static):2d} tp={a} fp={b} fn={c}{note}")
        if verbose:
            lines = code.splitlines()
            for n in sorted(static - real):
                print(f"    fp {n}: {lines[n - 1].strip()}")
            for n in sorted(real - static):
                print(f"    fn {n}: {lines[n - 1].strip()}")
    return tp, fp, fn


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    import torch

    print(f"torch {torch.__version__}")
    positives = sorted(glob.glob(os.path.join(HERE, "*.py")))
    lookalikes = sorted(glob.glob(os.path.join(HERE, "lookalike", "*.py")))
    tp, fp, fn = score(positives, verbose)
    ltp, lfp, lfn = score(lookalikes, verbose)
    rules = [r for r in all_rules() if r.severity == "error"]
    look_findings = sum(len(lint_file(p, open(p, encoding="utf-8").read(), rules).findings) for p in lookalikes)
    tp, fp, fn = tp + ltp, fp + lfp, fn + lfn
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(
        f"look-alike files: {len(lookalikes)}, static findings on them: {look_findings}, "
        f"dynamo breaks in them: {ltp + lfn}"
    )
    print(
        f"held-out precision={precision:.2f} recall={recall:.2f} (tp={tp} fp={fp} fn={fn}; "
        f"{len(positives)} programs, {len(lookalikes)} look-alike files)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
