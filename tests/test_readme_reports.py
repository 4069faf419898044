"""The reports shown in README.md and docs/ are what a real run prints, exit code included
(seconds aside): benchmarks/readme_reports.py regenerates them; these tests fail when a page
drifts. The Quick start's commands are the main job and CI's, and the main job's extra installs
what the fixtures import."""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import sys
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import readme_reports  # noqa: E402
from readme_snippets import snippet  # noqa: E402

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


def test_abridge_keeps_the_named_findings_then_everything_after_them():
    out = (
        "a.py:1:1: TL001 x\n  1 | y\n\nb.py:2:3: TL004 z\n  2 | w\n\nnb.ipynb:cell 2:9:29: TL001 v\n  9 | u\n\n"
        "a.py:T: 1 graph, 0 graph breaks, 0 recompiles (1.0 s)\nFound 3 findings in 3 files.\n"
    )
    assert readme_reports.abridge(out, ["b.py:2:"]) == (
        "b.py:2:3: TL004 z\n  2 | w\n\na.py:T: 1 graph, 0 graph breaks, 0 recompiles (1.0 s)\n"
        "Found 3 findings in 3 files.\n"
    )
    assert readme_reports.abridge(out, None) == out
    assert readme_reports.masked("(12.5 s) (3 s)") == "(… s) (… s)"
    cost = "fix this first: a.py:4, 1.5 ms per call (83% of `f`)\n  then: b.py:9, 12 µs per call (2% of `f`)"
    assert (
        readme_reports.masked(cost)
        == "fix this first: …, … ms per call (…% of `f`)\n  then: …, … ms per call (…% of `f`)"
    )


def test_a_report_block_is_a_shell_session_with_its_exit_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- report: x -->\n```console\n$ torchlint check a.py\nFound 1 finding.\n$ echo $?\n1\n```\n")
    (block,) = readme_reports.blocks([page])
    assert (block.command, block.shown, block.exit_code) == ("torchlint check a.py", "Found 1 finding.\n", 1)
    page.write_text("<!-- report: x -->\n```console\nFound 1 finding.\n```\n")
    with pytest.raises(SystemExit, match="must be `\\$ COMMAND`"):
        readme_reports.blocks([page])


def test_every_report_in_the_docs_is_registered_and_every_registered_one_is_shown():
    found = readme_reports.blocks()
    assert readme_reports.check_registry(found) == []
    assert {b.path.name for b in found} >= {"README.md", "getting-started.md"}


def test_the_static_reports_match_a_real_run(capsys):
    """The reports without the dynamic pass: seconds to run, so in the fast lane."""
    code = readme_reports.main(["--static"])
    assert code == 0, capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.dynamo
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the report runs dynamo: torch is not installed")
def test_the_dynamic_reports_match_a_real_run(capsys):
    from torchlint.matrix import installed_torch, minor

    if minor(installed_torch()) != readme_reports.TORCH:
        pytest.skip(
            f"the reports are from torch {readme_reports.TORCH}; torch {installed_torch()} "
            "counts graphs and names some breaks differently"
        )
    code = readme_reports.main(["--dynamic"])
    assert code == 0, capsys.readouterr().out


def _commands(name: str):
    return [shlex.split(part) for part in snippet(name).strip().split("&&")]


def test_the_readme_example_is_the_main_jobs_report():
    *_, main_job = _commands("quick-start")
    (example,) = [b for b in readme_reports.blocks() if b.name == "fixtures"]
    assert example.path.name == "README.md"
    assert main_job == [".venv/bin/torchlint", *shlex.split(example.command)[1:]]
    assert main_job[0].endswith("/torchlint") and example.exit_code == 1
    # the prose beside it: how many findings it keeps, and the exit code
    readme = example.path.read_text("utf-8")
    prose = readme[readme.index("## Example report") : readme.index("<!-- report: fixtures -->")]
    shown = re.findall(r"^\S+(?::cell \d+)?:\d+:\d+: ", example.shown, re.M)
    words = {"one": 1, "two": 2, "three": 3, "four": 4}
    assert words[re.search(r"abridged to (\w+) of its findings", prose).group(1)] == len(shown)
    assert len(shown) == len(readme_reports.REPORTS["fixtures"].keep)
    assert int(re.search(r"it exits (\d)", prose).group(1)) == example.exit_code
    for path in readme_reports.doc_files():
        for quoted in re.findall(r"main job exits (\d)", path.read_text("utf-8")):
            assert int(quoted) == example.exit_code, path


def test_ci_runs_the_readmes_test_command():
    ci = (REPO / ".ci" / "run").read_text("utf-8")
    assert snippet("tests").strip() in ci


def _extras(command):
    m = re.fullmatch(r"\.\[([\w,-]+)\]", command[command.index("-e") + 1])
    assert m, command
    return m.group(1).split(",")


def _fixture_imports():
    """The top-level modules the fixtures' declared targets import (outside the standard
    library and the fixtures folder)."""
    fixtures = REPO / "fixtures"
    config = tomllib.loads((fixtures / "pyproject.toml").read_text("utf-8"))
    files = {t["target"].split(":")[0] for t in config["tool"]["torchlint"]["targets"]}
    local = {p.stem for p in fixtures.glob("*.py")}
    names = set()
    for name in files:
        for node in ast.walk(ast.parse((fixtures / name).read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in local}


@pytest.mark.skipif(sys.version_info < (3, 10), reason="sys.stdlib_module_names is Python 3.10+")
def test_the_main_jobs_extra_installs_every_module_the_fixtures_import():
    """A fresh clone installs only what the Quick start names: a module a fixture imports that
    the extra lacks makes its target fail to load, and the main job exit 2."""
    install = next(c for c in _commands("quick-start") if "install" in c)
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    wanted = {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in project["dependencies"]}
    for extra in _extras(install):
        wanted |= {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in project["optional-dependencies"][extra]}
    dists = metadata.packages_distributions()
    imports = _fixture_imports()
    assert {"torch", "numpy"} <= imports
    missing = sorted(m for m in imports if not {d.lower() for d in dists.get(m, [m])} & wanted)
    assert missing == [], f"the Quick start's extras lack what the fixtures import: {missing}"
