"""The example models in fixtures/: the static report each one must produce.

Their real graph breaks, measured with dynamo on torch 2.13, are in
fixtures/expected_breaks.json; the static pass must predict exactly those lines.
"""

from __future__ import annotations

import json

import pytest
from support import FIXTURES, run_json

EXPECTED = {
    "cnn_item_branch.py": [(41, "TL001"), (67, "TL005")],
    "transformer_block.py": [(40, "TL004"), (65, "TL007")],
    "detection_head.py": [(63, "TL008"), (64, "TL008"), (65, "TL008"), (66, "TL008")],
    "gather_loop.py": [(42, "TL006")],
    "clean_model.py": [],
    "train_script.py": [],
    "seq_model_misc.py": [(53, "TL004"), (57, "TL003"), (61, "TL009"), (63, "TL009"), (65, "TL009"), (68, "TL009")],
    "compiled_functions.py": [(28, "TL011"), (49, "TL011")],
    "iterative_refine.py": [(52, "TL001"), (58, "TL009")],
    "shape_recompile.py": [],
    "audio_frontend.py": [(35, "TL009"), (45, "TL002"), (47, "TL015"), (50, "TL008"), (52, "TL014"), (53, "TL002")],
    "threaded_ranker.py": [(31, "TL013")],
    # a notebook: (cell, line in the cell, rule); its code cells run as one module
    "notebook.ipynb": [(2, 9, "TL001"), (3, 5, "TL004")],
}


@pytest.fixture(scope="module")
def report():
    code, data = run_json(["check", str(FIXTURES), "--no-dynamic"])
    assert code == 1
    return data


def by_file(report):
    out = {name: [] for name in EXPECTED}
    for f in report["findings"]:
        where = (f["cell"], f["line"]) if "cell" in f else (f["line"],)
        out[f["path"].rsplit("/", 1)[-1]].append((*where, f["rule"]))
    return out


def test_every_fixture_has_an_expected_report():
    shipped = {p.name for p in FIXTURES.glob("*.py")} | {p.name for p in FIXTURES.glob("*.ipynb")}
    assert shipped == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_static_report_of_fixture(report, name):
    assert by_file(report)[name] == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_static_lines_are_dynamos_break_lines(name):
    """The expectation above is not invented: it is the set of lines dynamo breaks on."""
    truth = json.loads((FIXTURES / "expected_breaks.json").read_text())[name]
    assert sorted({(b.get("cell"), b["line"]) if "cell" in b else b["line"] for b in truth["breaks"]}) == [
        where[:-1] if len(where) == 3 else where[0] for where in EXPECTED[name]
    ]


def test_training_loop_and_init_are_not_compiled_regions(report):
    train = (FIXTURES / "train_script.py").read_text().splitlines()
    # The script does call .item() and print, outside the compiled region.
    assert any(".item()" in line for line in train) and any("print(" in line for line in train)
    assert by_file(report)["train_script.py"] == []


def test_regions_are_named(report):
    regions = {(f["path"].rsplit("/", 1)[-1], f["line"]): f["region"] for f in report["findings"]}
    assert regions[("cnn_item_branch.py", 41)].endswith(".forward") or "." in regions[("cnn_item_branch.py", 41)]
    gather = [f for f in report["findings"] if f["path"].endswith("gather_loop.py")][0]
    assert "called from" in gather["message"]


@pytest.mark.dynamo
def test_expected_breaks_are_what_dynamo_breaks_on_now():
    """expected_breaks.json is a measurement: the dynamic pass over the fixture targets on the
    installed torch gives the same break lines per file (GB codes included)."""
    torch = pytest.importorskip("torch")
    truth = json.loads((FIXTURES / "expected_breaks.json").read_text())
    measured_on = {entry["torch_version"].split("+")[0] for entry in truth.values()}
    if measured_on != {torch.__version__.split("+")[0]}:
        pytest.skip(
            f"expected_breaks.json was measured on torch {', '.join(sorted(measured_on))}; "
            "other versions' counts are checked by benchmarks/torch_matrix.py"
        )
    _, data = run_json(["check", ".", "--no-static", "--exit-zero"], cwd=FIXTURES)
    assert not data["errors"] and all(t["error"] is None for t in data["targets"])
    seen = {}
    for f in data["findings"]:
        seen.setdefault(f["path"].rsplit("/", 1)[-1], set()).add((f["line"], f["gb_code"]))
    files = {t["target"].split(":", 1)[0] for t in data["targets"]}
    assert files == set(truth) - {"notebook.ipynb"}
    for name in files:
        assert seen.get(name, set()) == {(b["line"], b["gb_code"]) for b in truth[name]["breaks"]}, name
