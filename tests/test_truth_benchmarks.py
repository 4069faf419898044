"""The scoring of the two truth benchmarks (benchmarks/libraries.py, benchmarks/documented_breaks.py).

Their truth comes from dynamo when they run; here the scoring is checked on made-up runs, and
the held-out split and the case files are checked for what the benchmarks rely on.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import documented_breaks  # noqa: E402
import libraries  # noqa: E402


def _finding(path: str, line: int, mode: str | None = None, end_line: int | None = None) -> dict:
    f = {"path": path, "line": line, "end_line": end_line or line, "rule": "TL005"}
    if mode:
        f["mode"] = mode
    return f


def _run(sites: list[tuple[str, int]], reached: list[tuple[str, int]], files: list[str], whole: bool) -> dict:
    return {
        "error": None,
        "graphs": 1 if whole else 2,
        "whole": whole,
        "sites": [{"path": p, "line": n, "gb_type": "x", "reason": "x"} for p, n in sites],
        "reached": [f"{p}:{n}" for p, n in reached],
        "files": files,
    }


def test_library_scores_recall_precision_and_noise_per_mode(tmp_path: Path) -> None:
    broken, quiet = str(tmp_path / "broken.py"), str(tmp_path / "quiet.py")
    Path(broken).write_text("x\n" * 100)
    Path(quiet).write_text("x\n" * 500)
    runs = {
        # breaks at lines 10 and 20 in eval; in training also at 30
        "a": {
            "eval": _run([(broken, 10), (broken, 20)], [(broken, 5)], [broken], False),
            "train": _run([(broken, 10), (broken, 20), (broken, 30)], [(broken, 5)], [broken], False),
        },
        "b": {"eval": _run([], [(quiet, 3)], [quiet], True), "train": _run([], [(quiet, 3)], [quiet], True)},
        "c": {"eval": {"error": "boom", "files": []}, "train": {"error": "boom", "files": []}},
    }
    findings = [
        _finding(broken, 9, end_line=10),  # covers site 10
        _finding(broken, 5),  # reached, not a break: a false positive
        _finding(broken, 30, mode="train"),  # holds in training only
        _finding(quiet, 3),  # noise in a file of a model that compiles whole
        _finding(quiet, 400, mode="train"),  # not in eval's noise; training's
    ]
    # training is scored on the check of a project that trains, which finds site 20 as well
    trained = [*findings, _finding(broken, 20, mode="train")]
    scores = libraries.score("lib", runs, findings, trained, {broken, quiet})
    ev, tr = scores["eval"], scores["train"]
    assert (len(ev.sites), len(ev.found)) == (2, 1)
    assert (len(tr.sites), len(tr.found)) == (3, 3)
    assert (ev.judged, ev.true) == (3, 1)  # 9..10, 5 and quiet:3; the training finding is not eval's
    assert (tr.judged, tr.true) == (5, 3)
    assert (ev.whole_findings, ev.whole_lines) == (1, 500)
    assert (tr.whole_findings, tr.whole_lines) == (2, 500)
    assert (ev.models, ev.errors, ev.whole_models) == (3, 1, 1)


def test_library_breaks_outside_its_files_are_counted_apart(tmp_path: Path) -> None:
    mine, other = str(tmp_path / "mine.py"), str(tmp_path / "other.py")
    Path(mine).write_text("x\n")
    runs = {"a": {m: _run([(other, 4)], [], [mine], False) for m in ("eval", "train")}}
    s = libraries.score("lib", runs, [], [], {mine})["eval"]
    assert (len(s.sites), s.outside) == (0, 1)


def test_documented_case_scores_lines_and_modes() -> None:
    findings = [_finding("f", 3), _finding("f", 5), _finding("f", 6, mode="train"), _finding("f", 40)]
    s, predicted, real = documented_breaks.score_case({"train": False, "lines": [3, 4], "graphs": 2}, (1, 10), findings)
    assert (predicted, real) == ({3, 5}, {3, 4})
    assert (s.tp, s.fp, s.fn, s.breaking) == (1, 1, 1, 1)
    s, _, _ = documented_breaks.score_case({"train": False, "lines": [], "graphs": 0}, (1, 10), [])
    assert s.breaking == 0  # an empty graph is no break
    s, predicted, _ = documented_breaks.score_case({"train": True, "lines": [6], "graphs": 2}, (1, 10), findings)
    assert (s.tp, s.fp, s.fn) == (1, 2, 0)
    s, _, _ = documented_breaks.score_case({"train": False, "error": "x"}, (1, 10), findings)
    assert (s.errors, s.tp + s.fp + s.fn) == (1, 0)


def test_held_out_split_is_stable_and_about_a_third() -> None:
    cases = [
        (f, n)
        for f in documented_breaks.families()
        for n in documented_breaks.case_spans(os.path.join(documented_breaks.CASES, f"{f}.py"))
    ]
    assert len(cases) >= 100
    held = [c for c in cases if documented_breaks.held_out(*c)]
    assert 0.2 < len(held) / len(cases) < 0.45
    assert documented_breaks.held_out("tensor_truth", "BranchOnMean") == documented_breaks.held_out(
        "tensor_truth", "BranchOnMean"
    )
    assert set(libraries.DEV).isdisjoint(libraries.HELD_OUT) and len(libraries.HELD_OUT) >= 2
    assert all(lib in (libraries.__doc__ or "") for lib in libraries.HELD_OUT)


def test_every_case_is_a_module_with_forward_and_says_nothing_of_its_breaks() -> None:
    for family in documented_breaks.families():
        path = os.path.join(documented_breaks.CASES, f"{family}.py")
        source = Path(path).read_text()
        assert "error: TL" not in source and "expected" not in source.lower()
        tree = ast.parse(source)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                assert any(isinstance(b, ast.FunctionDef) and b.name == "forward" for b in node.body), node.name
