"""Static pass against dynamo on PyTorch's documented graph-break constructs.

    python benchmarks/documented_breaks.py [--quick] [--json] [-v] [--family NAME] [--timeout S]

Measured on torch 2.13.0+cpu (full run, ~40 s on a 2-core machine), line-level:

    dev       201 cases, 109 breaking: precision 1.000  recall 0.974  (tp 111, fp 0, fn 3)
    held-out   62 cases,  30 breaking: precision 1.000  recall 0.871  (tp 27, fp 0, fn 4)

Dev misses: ``exec``, ``y.__class__ = ...``, ``x.data_ptr()``. (``np.random.rand(8, 16)`` is
traced, as an array drawn through torch; ``np.random.rand()``, a Python number, breaks.)
The held-out set is the one measured before the dev cases grew from 100 to 198 (new dev cases
are named so that none falls in the held-out third); per family it is printed by the script:
read it only to measure.

The cases live in ``benchmarks/documented/``, one file per family: each top-level
``nn.Module`` subclass (or function) is one case, a small user model written for this
benchmark after the constructs that PyTorch's own graph-break tests and its graph-break
registry document (``test/dynamo/test_error_messages.py`` and its neighbours,
``torch/_dynamo/graph_break_registry.json``), beside look-alikes that compile whole. Nothing
in a case says where it breaks: every case runs through dynamo on the installed torch (the
oracle of :mod:`torchlint.dynamic.observe`, in a child process per family with a timeout;
``eval()`` + ``no_grad``, or ``train()`` + backward for a case whose class sets
``TRAIN = True``) and the lines dynamo breaks on are the truth. A case's inputs: one
``f32[8,16]`` tensor per required positional parameter of ``forward`` (or of the function).

Then ``torchlint check --no-dynamic --format json`` runs on the folder, and each finding is
given to the case whose source lines hold it. Scores are line-level: a true positive is a
finding on a line dynamo broke on, a false positive a finding on any other line of a case, a
false negative a break line with no finding. A finding with ``"mode": "train"`` counts only
for cases run in training (and ``"mode": "eval"`` only for those run in eval).

HELD-OUT: about a third of the cases, chosen by a stable hash of ``family/case`` (see
:func:`held_out`), are printed apart. Rule work must not be tuned on the held-out cases: do
not read their findings or break lines while changing the static pass.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
CASES = os.path.join(REPO, "benchmarks", "documented")


def held_out(family: str, case: str) -> bool:
    """A stable third of the cases: the first byte of sha256("family/case") below 86."""
    return hashlib.sha256(f"{family}/{case}".encode()).digest()[0] < 86


def families() -> list[str]:
    return sorted(n[:-3] for n in os.listdir(CASES) if n.endswith(".py") and not n.startswith("_"))


def case_spans(path: str) -> dict[str, tuple[int, int]]:
    """Top-level classes and functions of a family file -> (first line, last line)."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out[node.name] = (first, node.end_lineno or node.lineno)
    return out


# --------------------------------------------------------------------------- the worker


def worker(family: str, only: list[str]) -> int:
    """Run each case of one family through dynamo; one ``@@RESULT@@`` line per case."""
    import inspect
    import warnings

    import torch

    from torchlint.dynamic.load import load_module_from_path
    from torchlint.dynamic.observe import default_args, observe
    from torchlint.verify import silenced

    path = os.path.realpath(os.path.join(CASES, f"{family}.py"))
    module = load_module_from_path(path)
    for name in case_spans(path):
        if only and name not in only:
            continue
        obj = getattr(module, name)
        train = bool(getattr(obj, "TRAIN", False))
        result: dict[str, Any] = {"case": name, "train": train}
        start = time.time()
        try:
            torch.manual_seed(0)
            target = obj() if inspect.isclass(obj) else obj
            args = default_args(target)
            if train:
                for a in args:
                    a.requires_grad_(True)
            with silenced(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                obs = observe(target, [args], user_files={path}, train=train)
            result.update(
                graphs=obs.graphs,
                lines=sorted(obs.break_lines(path)),
                types=sorted({b.gb_type or b.reason[:60] for b in obs.breaks if b.path == path}),
                unplaced=sum(1 for b in obs.breaks if b.path != path),
                error=None,
            )
        except Exception as exc:  # noqa: BLE001 (reported; the case is then not scored)
            result["error"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:160]}"
        result["seconds"] = round(time.time() - start, 2)
        sys.stdout.write("\n@@RESULT@@" + json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0


def run_family(family: str, timeout: float, only: list[str]) -> dict[str, dict[str, Any]]:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", family, *only]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
        stdout, problem = proc.stdout, f"worker exit {proc.returncode}: "
        problem += ((proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"])[0][:160]
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        stdout = out.decode(errors="replace") if isinstance(out, bytes) else out
        problem = f"timeout after {timeout:.0f}s"
    results = {}
    for chunk in stdout.split("@@RESULT@@")[1:]:
        r = json.loads(chunk.strip().splitlines()[0])
        results[r["case"]] = r
    spans = case_spans(os.path.join(CASES, f"{family}.py"))
    for name in spans:
        if not only or name in only:
            results.setdefault(name, {"case": name, "train": False, "error": problem})
    return results


# --------------------------------------------------------------------------- the static pass and scores


def static_findings(paths: list[str], options: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    exe = os.path.join(os.path.dirname(sys.executable), "torchlint")
    cmd = [exe] if os.path.exists(exe) else [sys.executable, "-m", "torchlint"]
    proc = subprocess.run(
        [*cmd, "check", "--no-dynamic", "--format", "json", "--exit-zero", *options, *paths],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"torchlint check failed: {(proc.stderr or proc.stdout).strip()[-300:]}") from None
    for f in report["findings"]:
        f["path"] = os.path.realpath(os.path.join(REPO, f["path"]))
    return report["findings"]


@dataclass
class Score:
    cases: int = 0
    breaking: int = 0  # cases dynamo broke on (at a line of the case)
    errors: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def add(self, other: Score) -> None:
        for k in ("cases", "breaking", "errors", "tp", "fp", "fn"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def to_dict(self) -> dict[str, Any]:
        r = {k: getattr(self, k) for k in ("cases", "breaking", "errors", "tp", "fp", "fn")}
        r["precision"] = None if self.precision is None else round(self.precision, 3)
        r["recall"] = None if self.recall is None else round(self.recall, 3)
        return r


def score_case(result: dict[str, Any], span: tuple[int, int], findings: list[dict[str, Any]]) -> tuple[Score, set, set]:
    s = Score(cases=1)
    if result.get("error"):
        s.errors = 1
        return s, set(), set()
    mode = "train" if result["train"] else "eval"
    predicted = {f["line"] for f in findings if span[0] <= f["line"] <= span[1] and f.get("mode") in (None, mode)}
    real = set(result["lines"])
    s.breaking = 1 if real else 0
    s.tp, s.fp, s.fn = len(predicted & real), len(predicted - real), len(real - predicted)
    return s, predicted, real


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every third case of each family")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the dev cases the static pass gets wrong")
    parser.add_argument("--family", default="", help="comma-separated families")
    parser.add_argument("--timeout", type=float, default=400.0, help="seconds per family")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="families run at once (default 2)")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.worker:
        return worker(opts.worker[0], opts.worker[1:])

    started = time.time()
    chosen = [f for f in families() if not opts.family or f in opts.family.split(",")]
    spans = {f: case_spans(os.path.join(CASES, f"{f}.py")) for f in chosen}
    picks = {f: ([n for i, n in enumerate(spans[f]) if i % 3 == 0] if opts.quick else []) for f in chosen}
    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        runs = dict(zip(chosen, pool.map(lambda f: run_family(f, opts.timeout, picks[f]), chosen)))
    findings = static_findings([os.path.join(CASES, f"{f}.py") for f in chosen])
    report: dict[str, Any] = {"families": {}, "dev": {}, "held_out": {}, "cases": {}}
    totals = {"dev": Score(), "held_out": Score()}
    for family in chosen:
        path = os.path.realpath(os.path.join(CASES, f"{family}.py"))
        mine = [f for f in findings if f["path"] == path]
        per = {"dev": Score(), "held_out": Score()}
        for name, result in runs[family].items():
            s, predicted, real = score_case(result, spans[family][name], mine)
            split = "held_out" if held_out(family, name) else "dev"
            per[split].add(s)
            report["cases"][f"{family}/{name}"] = {
                "split": split,
                "train": result.get("train"),
                "error": result.get("error"),
                "break_lines": sorted(real),
                "static_lines": sorted(predicted),
                "gb_types": result.get("types", []),
            }
            if opts.verbose and (predicted != real or result.get("error")) and split == "dev":
                print(
                    f"  {split:8s} {family}/{name}: dynamo={sorted(real)} static={sorted(predicted)} "
                    f"{result.get('types', '')}{' ERROR ' + result['error'] if result.get('error') else ''}",
                    file=sys.stderr,
                )
        report["families"][family] = {split: per[split].to_dict() for split in per}
        for split in per:
            totals[split].add(per[split])
    for split in totals:
        report[split] = totals[split].to_dict()
    report["seconds"] = round(time.time() - started, 1)
    if opts.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        _print(report)
    return 0


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def _line(label: str, d: dict[str, Any]) -> str:
    return (
        f"{label:34s} cases={d['cases']:3d} breaking={d['breaking']:3d} err={d['errors']} "
        f"precision={_fmt(d['precision'])} recall={_fmt(d['recall'])} (tp={d['tp']} fp={d['fp']} fn={d['fn']})"
    )


def _print(report: dict[str, Any]) -> None:
    for split, title in (("dev", "DEV"), ("held_out", "HELD-OUT (do not tune on these)")):
        print(f"== {title}")
        for family, d in report["families"].items():
            print(_line(f"{family}", d[split]))
        print(_line(f"TOTAL {split}", report[split]))
    print(f"({report['seconds']}s)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
