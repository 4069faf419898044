"""The pre-commit hook, for real: `pre-commit try-repo <this checkout> torchlint` on a temporary
git repository fails on a graph break and passes once it is fixed; installing torchlint (what
the hook's environment does) does not pull torch; the README's config snippet is valid.

try-repo installs the hook's environment from the package registry into a temporary store on
every call (about half a minute, mostly waiting on the network). It takes this checkout's HEAD
plus uncommitted changes to tracked files; untracked files are left out.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")

from readme_snippets import snippet

REPO = Path(__file__).resolve().parents[1]

BROKEN = """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        return x / scale
"""

FIXED = BROKEN.replace("x.abs().max().item()", "x.abs().max()")

# pip's words when it cannot reach an index (then the test skips, saying so)
_OFFLINE = (
    "Could not find a version that satisfies",
    "No matching distribution found",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ConnectionError",
    "Read timed out",
)


def _skip(reason: str) -> None:
    print(f"skipped: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def pre_commit():
    if shutil.which("git") is None:
        _skip("git is not installed")
    if not (REPO / ".git").exists():
        _skip(f"{REPO} is not a git checkout: try-repo needs one")
    if importlib.util.find_spec("pre_commit") is None:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "pre-commit>=3"], capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
            _skip(f"pre-commit is not installed and pip could not install it: {last}")
    return [sys.executable, "-m", "pre_commit"]


def _env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT_"))}
    if "PRE_COMMIT_HOME" in os.environ:
        env["PRE_COMMIT_HOME"] = os.environ["PRE_COMMIT_HOME"]
    env.pop("VIRTUAL_ENV", None)
    return env


def _start_try_repo(pre_commit, repo: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*pre_commit, "try-repo", str(REPO), "torchlint", "--files", "model.py"],
        cwd=repo,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _project(root: Path, source: str) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=_env())
    (root / "model.py").write_text(source, encoding="utf-8")
    subprocess.run(["git", "add", "model.py"], cwd=root, check=True, env=_env())
    return root


def test_hook_fails_on_a_break_and_passes_once_fixed(pre_commit, tmp_path):
    # try-repo builds the hook's environment afresh on every call (a temporary store), mostly
    # waiting on the registry: the broken and the fixed project run side by side.
    runs = {
        name: _start_try_repo(pre_commit, _project(tmp_path / name, source))
        for name, source in (("broken", BROKEN), ("fixed", FIXED))
    }
    outcome = {}
    for name, proc in runs.items():
        out, _ = proc.communicate(timeout=600)
        if proc.returncode not in (0, 1) and any(w in out for w in _OFFLINE):
            _skip("the package registry is unreachable, so pre-commit cannot build the hook's environment")
        outcome[name] = (proc.returncode, out)

    code, out = outcome["broken"]
    assert code == 1, out
    assert re.search(r"^torchlint\.+Failed$", out, re.M), out
    assert "- exit code: 1" in out, out  # findings, not a tool error (2)
    assert "model.py:7:17: TL001 tensor-item" in out, out  # the hook's own report

    code, out = outcome["fixed"]
    assert code == 0, out
    assert re.search(r"^torchlint\.+Passed$", out, re.M), out


#: a package whose helper breaks only because a forward in another file calls it
PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/base.py": "from torch import nn\n\n\nclass Base(nn.Module):\n    pass\n",
    "pkg/model.py": "from .base import Base\nfrom .utils import scale\n\n\nclass Model(Base):\n"
    "    def forward(self, x):\n        return scale(x)\n",
    "pkg/utils.py": "def scale(x):\n    s = x.abs().max().item()\n    return x / s\n",
}


def test_hook_with_only_the_helper_staged_fails(pre_commit, tmp_path):
    """What pre-commit passes when only the helper changed: the helper alone. Its break comes
    from the forward of another file, which the hook's check sees as part of the project."""
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=_env())
    for name, text in PACKAGE.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=repo, check=True, env=_env())
    proc = subprocess.run(
        [*pre_commit, "try-repo", str(REPO), "torchlint", "--files", "pkg/utils.py"],
        cwd=repo,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    out = proc.stdout
    if proc.returncode not in (0, 1) and any(w in out for w in _OFFLINE):
        _skip("the package registry is unreachable, so pre-commit cannot build the hook's environment")
    assert proc.returncode == 1, out
    assert re.search(r"^torchlint\.+Failed$", out, re.M), out
    assert "pkg/utils.py:2:9: TL001 tensor-item" in out, out
    assert "(called from Model.forward in pkg/model.py)" in out, out


def test_readme_snippet_runs_as_written_with_a_real_rev(pre_commit, tmp_path):
    """The README's .pre-commit-config.yaml, its placeholders filled with a clone of this
    repository and that clone's HEAD sha, runs the hook: a graph break fails the commit."""
    clone = tmp_path / "torchlint"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, env=_env())
    rev = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], check=True, env=_env(), capture_output=True, text=True
    ).stdout.strip()
    project = _project(tmp_path / "project", BROKEN)
    config = snippet("pre-commit").replace("TORCHLINT_GIT_URL", str(clone)).replace("TORCHLINT_REV", rev)
    (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    env = dict(_env(), PRE_COMMIT_HOME=str(tmp_path / "store"))
    proc = subprocess.run(
        [*pre_commit, "run", "--all-files"], cwd=project, env=env, capture_output=True, text=True, timeout=900
    )
    out = proc.stdout + proc.stderr
    if proc.returncode not in (0, 1) and any(w in out for w in _OFFLINE):
        _skip("the package registry is unreachable, so pre-commit cannot build the hook's environment")
    assert proc.returncode == 1, out
    assert re.search(r"^torchlint\.+Failed$", out, re.M), out
    assert "model.py:7:17: TL001 tensor-item" in out, out


def test_installing_torchlint_does_not_pull_torch():
    """The hook's environment is `pip install <checkout>`: torch must stay an extra."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    names = [re.split(r"[\s<>=!~\[;]", d, maxsplit=1)[0].lower() for d in project["dependencies"]]
    assert "torch" not in names and {"libcst", "click", "rich"} <= set(names)
    assert any(d.startswith("torch") for d in project["optional-dependencies"]["dynamic"])


def test_readme_config_and_hook_manifest_are_valid(pre_commit, tmp_path):
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(snippet("pre-commit").replace("TORCHLINT_GIT_URL", str(REPO)), encoding="utf-8")
    for command, path in (("validate-config", config), ("validate-manifest", REPO / ".pre-commit-hooks.yaml")):
        result = subprocess.run([*pre_commit, command, str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
    yaml = pytest.importorskip("yaml")
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert hook["id"] == "torchlint" and hook["entry"] == "torchlint check --no-dynamic"
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]
    assert hook.get("pass_filenames", True)
    ids = [h["id"] for r in yaml.safe_load(config.read_text("utf-8"))["repos"] for h in r["hooks"]]
    assert ids == ["torchlint"]
