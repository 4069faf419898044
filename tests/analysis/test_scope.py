"""One project, whatever the paths: compiled regions are decided over the whole project the
given files belong to (the config's folder, else the repository, else the top package), so a
helper checked alone finds the breaks that a forward in another file makes of it, a caller
checked alone reports what it reaches in files that were not given, and the training mode
comes from the project's training script, not from which files were given.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import BUILT, run_cli, write

from torchlint.config import load_settings
from torchlint.static import static_pass

#: a four-file package: the module base in one file, the helper in another, reached from the
#: forward (one helper only under ``if self.training:``), and a script that trains the model
PACKAGE = {
    "pyproject.toml": "[tool.torchlint]\n",
    "pkg/__init__.py": "",
    "pkg/base.py": """\
        import torch
        from torch import nn


        class Base(nn.Module):
            def __init__(self, dim: int = 16):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
        """,
    "pkg/utils.py": """\
        import torch


        def scale(x):
            s = x.abs().max().item()
            print("scale", s)
            return x / s


        def jitter(x):
            return x + x.std().item()


        def spare(x):
            return x.sum().item()
        """,
    "pkg/model.py": """\
        from .base import Base
        from .utils import jitter, scale


        class Model(Base):
            def forward(self, x):
                y = scale(self.proj(x))
                if self.training:
                    y = jitter(y)
                return y
        """,
    "train.py": """\
        import torch

        from pkg.model import Model


        def main():
            model = Model()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            step = torch.compile(model)
            for bs in (8, 8, 4, 4):
                loss = step(torch.randn(bs, 16)).sum()
                loss.backward()
                opt.step()
                opt.zero_grad()


        if __name__ == "__main__":
            main()
        """,
}

UTILS = os.path.join("pkg", "utils.py")
MODEL = os.path.join("pkg", "model.py")
FROM_FORWARD = f"(called from Model.forward in {MODEL})"
#: (line, rule) of the breaks in the helper: scale's `.item()` and `print`, jitter's `.item()`
HELPER_BREAKS = {(5, "TL001"), (6, "TL004"), (11, "TL001")}


@pytest.fixture
def pkg(tmp_path):
    root = tmp_path / "proj"
    for name, text in PACKAGE.items():
        write(root, name, text)
    return root


def check(folder, *args):
    """(exit code, {(path, line, rule, message)}) of `torchlint check --no-dynamic ARGS`."""
    result = run_cli(["check", "--no-dynamic", "--format", "json", *args], cwd=folder)
    assert result.exit_code in (0, 1), result.output
    found = json.loads(result.stdout)["findings"]
    return result.exit_code, {(f["path"], f["line"], f["rule"], f["message"]) for f in found}


def where(found):
    return {(path, line, rule) for path, line, rule, _ in found}


def test_a_helper_checked_alone_finds_the_breaks_a_forward_in_another_file_makes(pkg):
    code, found = check(pkg, UTILS)
    assert code == 1
    assert where(found) == {(UTILS, line, rule) for line, rule in HELPER_BREAKS}
    assert all(message.endswith(FROM_FORWARD) for *_, message in found)
    # through a real process too, as a hook runs it
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "--no-dynamic", UTILS],
        cwd=pkg,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{UTILS}:5:9: TL001" in proc.stdout


def test_every_file_checked_alone_reports_what_the_whole_project_reports_for_it(pkg):
    code, whole = check(pkg, ".")
    assert code == 1 and where(whole) == {(UTILS, line, rule) for line, rule in HELPER_BREAKS}
    for name in ("pkg/__init__.py", "pkg/base.py", "pkg/utils.py", "pkg/model.py", "train.py"):
        path = os.path.join(*name.split("/"))
        code, alone = check(pkg, path)
        assert {f for f in alone if f[0] == path} == {f for f in whole if f[0] == path}, name
        if name in ("pkg/model.py", "train.py", "pkg/utils.py"):
            # the model reaches the helper; the script compiles the model: what each causes
            assert alone == whole and code == 1, name
        else:
            assert alone == set() and code == 0, name


def test_a_caller_checked_alone_reports_only_the_functions_it_reaches(pkg):
    # `spare` is reached from another module's forward, not from Model's
    write(
        pkg,
        "pkg/other.py",
        """\
        from torch import nn

        from .utils import spare


        class Other(nn.Module):
            def forward(self, x):
                return spare(x)
        """,
    )
    _, whole = check(pkg, ".")
    assert (UTILS, 15, "TL001") in where(whole)
    _, alone = check(pkg, MODEL)
    assert where(alone) == {(UTILS, line, rule) for line, rule in HELPER_BREAKS}
    _, other = check(pkg, os.path.join("pkg", "other.py"))
    assert where(other) == {(UTILS, 15, "TL001")}


def test_the_training_mode_is_decided_from_the_project_not_the_given_files(pkg):
    _, trained = check(pkg, UTILS)
    assert (UTILS, 11, "TL001") in where(trained)  # jitter runs only in training
    (pkg / "train.py").unlink()
    _, evaluated = check(pkg, UTILS)
    assert where(evaluated) == {(UTILS, 5, "TL001"), (UTILS, 6, "TL004")}
    _, whole = check(pkg, ".")
    assert where(whole) == where(evaluated)


def test_without_the_project_a_helper_is_checked_alone(pkg):
    code, found = check(pkg, UTILS, "--no-project")
    assert code == 0 and found == set()


def test_a_warm_run_after_the_caller_drops_the_call_drops_the_helpers_findings(pkg, monkeypatch):
    _, before = check(pkg, UTILS)
    assert (UTILS, 5, "TL001") in where(before)
    model = pkg / "pkg" / "model.py"
    model.write_text(model.read_text().replace("y = scale(self.proj(x))", "y = self.proj(x)"))
    os.utime(model, (1, 1))  # (an edit within the index's clock tick is caught by its stat)
    _, after = check(pkg, UTILS)
    assert where(after) == {(UTILS, 11, "TL001")}
    _, cold = check(pkg, UTILS, "--no-cache")
    assert after == cold
    _, caller = check(pkg, MODEL)
    assert caller == after


def _git(root, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


PROBE = """\
from torch import nn

from pkg.utils import spare


class Probe(nn.Module):
    def forward(self, x):
        return spare(x)
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_ignored_and_excluded_files_are_not_part_of_the_project(pkg):
    write(pkg, "scratch/probe.py", PROBE)
    spare = (UTILS, 15, "TL001")
    assert spare in where(check(pkg, UTILS)[1])
    _git(pkg, "init", "-q")
    write(pkg, ".gitignore", "scratch/\n")
    assert spare not in where(check(pkg, UTILS)[1])
    (pkg / ".gitignore").unlink()
    assert spare in where(check(pkg, UTILS)[1])
    write(pkg, "pyproject.toml", '[tool.torchlint]\nexclude = ["scratch"]\n')
    assert spare not in where(check(pkg, UTILS)[1])


def test_without_a_config_the_project_is_the_repository_else_the_working_folder_or_the_top_package(pkg):
    (pkg / "pyproject.toml").unlink()
    beside = {(5, "TL001"), (6, "TL004")}  # what the package alone shows: no training loop in it
    # no repository, checked from the folder that holds the package: that folder, so the
    # training script beside the package counts
    _, found = check(pkg, UTILS)
    assert {(line, rule) for _, line, rule in where(found)} == HELPER_BREAKS
    # of such a folder only its own scripts and packages are read, never the rest of it (a
    # home folder): a script in a folder that is no package is not seen
    (pkg / "notes").mkdir()
    (pkg / "train.py").rename(pkg / "notes" / "train.py")
    _, found = check(pkg, UTILS)
    assert {(line, rule) for _, line, rule in where(found)} == beside
    (pkg / "notes" / "train.py").rename(pkg / "train.py")
    # checked from inside the package: the top package (the script outside it is not seen)
    _, found = check(pkg / "pkg", "utils.py")
    assert {(line, rule) for _, line, rule in where(found)} == beside
    # a Python project's own metadata marks its folder, as a repository does
    write(pkg, "setup.cfg", "[metadata]\nname = pkg\n")
    _, found = check(pkg / "pkg", "utils.py")
    assert {(line, rule) for _, line, rule in where(found)} == HELPER_BREAKS
    (pkg / "setup.cfg").unlink()
    if shutil.which("git") is not None:
        _git(pkg, "init", "-q")  # the repository: the training script counts
        _, found = check(pkg / "pkg", "utils.py")
        assert {(line, rule) for _, line, rule in where(found)} == HELPER_BREAKS


def test_the_project_scope_is_the_config_folder_repository_or_top_package(pkg, tmp_path):
    settings = load_settings(start=str(pkg))
    scope = static_pass.project_scope([str(pkg / "pkg" / "utils.py")], settings)
    assert scope.root == str(pkg)
    assert sorted(os.path.relpath(p, pkg) for p in scope.files) == sorted(
        os.path.join(*n.split("/")) for n in PACKAGE if n.endswith(".py")
    )
    write(pkg, ".venv/lib/site-packages/dep/mod.py", "import torch\n")
    assert not any(".venv" in p for p in static_pass.project_scope([str(pkg / "train.py")], settings).files)


def test_the_editor_agrees_with_the_check_on_the_same_project(pkg, monkeypatch):
    from torchlint.lsp import core
    from torchlint.lsp.project import WorkspaceProject

    _, whole = check(pkg, ".")
    monkeypatch.chdir(pkg)
    settings = load_settings(start=str(pkg))
    project = WorkspaceProject(str(pkg), settings)
    seen = set()
    for name in PACKAGE:
        if name.endswith(".py"):
            path = str(pkg / name)
            text = Path(path).read_text()
            project.set_buffer(path, text)
            for f in core.lint_text(text, path, settings, facts=project.facts(path)).findings:
                seen.add((os.path.relpath(f.path, pkg), f.line, f.rule, f.message))
    assert seen == whole
    assert (UTILS, 11, "TL001") in where(seen)  # trained: the training script is in the project


@pytest.mark.dynamo
def test_the_helpers_breaks_are_where_dynamo_breaks_the_trained_model(pkg):
    probe = textwrap.dedent("""\
        import json, os, sys
        import torch
        sys.path.insert(0, os.getcwd())
        from pkg.model import Model
        model = Model()  # training mode, as the script runs it
        out = torch._dynamo.explain(model)(torch.randn(8, 16))
        lines = sorted({(os.path.relpath(frame.filename), frame.lineno)
                        for reason in out.break_reasons for frame in reason.user_stack[-1:]})
        print(json.dumps(lines))
        """)
    proc = subprocess.run([sys.executable, "-c", probe], cwd=pkg, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    broke = {tuple(x) for x in json.loads(proc.stdout.strip().splitlines()[-1])}
    assert {(UTILS, 5), (UTILS, 11)} <= broke  # the `.item()`s, jitter's in training mode
    _, found = check(pkg, UTILS)
    # every break dynamo finds is flagged (the `print` after the first break runs in a
    # resumed frame, which explain does not report here; TL004 flags it)
    assert broke <= {(path, line) for path, line, _ in where(found)}


def test_a_warm_run_takes_what_the_given_file_reaches_without_the_whole_analysis(pkg, monkeypatch):
    from torchlint.static.cache import Cache

    _, cold = check(pkg, MODEL)
    assert where(cold) == {(UTILS, line, rule) for line, rule in HELPER_BREAKS}
    model = pkg / "pkg" / "model.py"
    model.write_text(model.read_text() + "# a comment: no summary changes\n")
    os.utime(model, (1, 1))

    def no_graph(self, key, *args):
        raise AssertionError("the call graph or every file's facts were read")

    with monkeypatch.context() as m:
        m.setattr(Cache, "get_project_graph", no_graph)
        m.setattr(Cache, "get_project_facts", no_graph)
        _, warm = check(pkg, MODEL)
    assert warm == cold
    # the caller drops a call (its summary changes: a new analysis): what it reaches is
    # worked out again, not taken from what was kept for the analysis before
    model.write_text(model.read_text().replace("y = scale(self.proj(x))", "y = self.proj(x)"))
    os.utime(model, (2, 2))
    _, after = check(pkg, MODEL)
    assert where(after) == {(UTILS, 11, "TL001")}
    assert after == check(pkg, MODEL, "--no-cache")[1]


@pytest.mark.parametrize("layout", ["config", "git", "package"])
def test_the_static_and_the_dynamic_pass_name_the_same_project(tmp_path, layout):
    """Where the static pass decides regions and where the dynamic pass places breaks is one
    folder: the config's, else the repository's, else the top package's."""
    from torchlint.dynamic.records import project_root as dynamic_root
    from torchlint.files import project_root as static_root

    top = tmp_path / "top"
    (top / "pkg" / "sub").mkdir(parents=True)
    for folder in (top / "pkg", top / "pkg" / "sub"):
        (folder / "__init__.py").write_text("")
    (top / "pkg" / "sub" / "m.py").write_text("import torch\n")
    expected = {"config": top, "git": top, "package": top / "pkg"}[layout]
    if layout == "config":
        (top / "pyproject.toml").write_text("[tool.torchlint]\n")
    elif layout == "git":
        (top / ".git").mkdir()
    cwd = str(top / "pkg" / "sub")
    settings = load_settings(None, start=cwd)
    config_root = settings.root if settings.source else None
    assert static_root(["m.py"], config_root, cwd) == str(expected)
    assert dynamic_root(settings, cwd, ["m.py"]) == str(expected)
    assert dynamic_root(None, cwd, ["m.py"]) == str(expected)  # explain(): the config found from cwd


def test_a_project_folder_named_torch_is_not_torch(tmp_path):
    # a test double of torch in the project (`tests/doubles/torch/__init__.py`, its folder no
    # package) would otherwise be the module `torch` every file imports
    write(tmp_path, "pyproject.toml", "[project]\nname = 'net'\n")
    write(tmp_path, "tests/doubles/torch/__init__.py", "class Tensor:\n    def item(self):\n        return 0\n")
    write(
        tmp_path,
        "net.py",
        """
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                return x * x.sum().item()
    """,
    )
    _, found = check(tmp_path, "net.py")
    assert where(found) == {("net.py", 6, "TL001")}


def test_what_a_build_function_returns_is_compiled_and_its_handed_loss_runs_in_eval(tmp_path):
    # `model = build(); torch.compile(model)` compiles the module build returns, never build
    # itself (whose constructors would be taken for code run under compile), and the loss the
    # constructor is handed runs in eval too: the model's forward calls it
    write(tmp_path, "pyproject.toml", "[project]\nname = 'enhance'\n")
    for name, text in BUILT.items():
        write(tmp_path, name, text)
    result = run_cli(["check", "--no-dynamic", "--format", "json", "model.py"], cwd=tmp_path)
    found = json.loads(result.stdout)["findings"]
    assert [(f["line"], f["rule"], f.get("mode")) for f in found] == [(6, "TL004", None)]
