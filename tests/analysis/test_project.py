"""Compiled regions across files: module resolution, bases, calls and facts from other files,
and a per-file cache that stays right when another file changes.

The packages of tests/projects carry `# graph break` on every line where dynamo breaks (the
`dynamo` test checks the marks against torch); the static pass must find exactly those lines.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from support import REPO, run_cli, write

from torchlint.analysis.modules import ModuleMap, package_walk, relative_base
from torchlint.analysis.summary import summarize
from torchlint.config import Settings
from torchlint.static import static_pass
from torchlint.static.cache import Cache

sys.path.insert(0, str(REPO / "benchmarks"))
import project as bench

PROJECTS = sorted(Path(p) for p in bench.project_folders())


def check_json(folder, *extra):
    # (no cache: the folders are the repository's own, which a test run leaves as it found them)
    result = run_cli(
        ["check", ".", "--no-dynamic", "--no-cache", "--format", "json", "--exit-zero", *extra], cwd=folder
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["findings"]


def lines_of(findings, folder):
    return {(os.path.relpath(os.path.join(folder, f["path"]), folder), f["line"]) for f in findings}


# -- module resolution -------------------------------------------------------------------
def test_a_file_is_named_by_walking_up_its_packages(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/sub/__init__.py", "")
    mod = write(tmp_path, "pkg/sub/mod.py", "")
    assert package_walk(str(mod)) == ("pkg.sub.mod", str(tmp_path))
    assert package_walk(str(tmp_path / "pkg" / "sub" / "__init__.py"))[0] == "pkg.sub"
    assert relative_base("pkg.sub.mod", False, 1) == "pkg.sub"
    assert relative_base("pkg.sub.mod", False, 2) == "pkg"
    assert relative_base("pkg.sub", True, 1) == "pkg.sub"
    assert relative_base("pkg.mod", False, 3) is None


def test_src_roots_name_namespace_packages_and_imports_reach_unchecked_files(tmp_path):
    write(tmp_path, "src/ns/layers/__init__.py", "")
    helper = write(tmp_path, "src/ns/layers/ops.py", "")
    entry = write(tmp_path, "src/ns/model.py", "")
    modmap = ModuleMap([str(entry)], roots=[str(tmp_path / "src")])
    assert modmap.module_of(str(entry)) == "ns.model"
    assert modmap.find("ns.layers.ops") == str(helper)  # not checked, but read
    assert modmap.find("ns.layers") == str(tmp_path / "src/ns/layers/__init__.py")
    assert modmap.find("ns.missing") is None


def test_installed_packages_are_followed_only_when_asked(tmp_path):
    entry = write(tmp_path, "app/__init__.py", "")
    # rich: an installed package every torchlint install has (a dependency)
    assert ModuleMap([str(entry)]).find("rich") is None
    assert ModuleMap([str(entry)]).find("torch") is None
    followed = ModuleMap([str(entry)], follow_imports=True).find("rich")
    assert followed is not None and followed.endswith(os.path.join("rich", "__init__.py"))
    assert ModuleMap([str(entry)], follow_imports=True).find("torch") is None  # never read


def test_the_summary_keeps_what_other_files_use():
    s = summarize(
        "import torch\nfrom ..base import Base as B\nfrom . import *\nlogger = get_logger(__name__)\n"
        "disable = torch.compiler.disable\n"
        "class Net(B, Mixin):\n    @property\n    def p(self):\n        return 1\n"
        "    def forward(self, x):\n        if not is_compiling():\n            log(x)\n"
        "        return super().forward(self.p)\n"
        "def f(x) -> torch.Tensor:\n    return x\n"
        "model = torch.compile(Net())\n"
    )
    assert ["B", "base", "Base", 2] in s["imports"] and ["*", "", "*", 1] in s["imports"]
    assert s["bound"]["logger"] == "get_logger" and s["aliases"]["disable"] == "torch.compiler.disable"
    net = s["classes"]["Net"]
    assert net["bases"] == ["B", "Mixin"]
    assert net["methods"]["p"]["decorators"] == ["property"]
    assert ["log", "is_compiling"] in net["methods"]["forward"]["calls"]
    assert ["super().forward", None] in net["methods"]["forward"]["calls"]
    assert net["methods"]["forward"]["attrs"] == ["p"]
    assert s["functions"]["f"]["returns"] == "tensor"
    assert s["compiled"] == [["torch.compile", "call", "Net"]]
    assert summarize("def f(:\n") is None


def test_tensor_and_container_methods_of_a_functions_parameters_are_not_in_its_summary():
    """They reach nothing in another file, so a body edit that adds one (`_probe = q.item()`)
    leaves the summary, and the project's analysis, as they were. A method no tensor or
    container has, or a call of the parameter itself, may run a project class's method (what
    the callers pass): those are kept."""
    before = "from .ops import rotate\ndef helper(q, *args, fn=None):\n    return rotate(q)\n"
    after = before.replace("    return", "    _probe = q.item()\n    args.count(1)\n    return")
    assert summarize(after) == summarize(before)
    assert ["rotate", None] in summarize(after)["functions"]["helper"]["calls"]
    kept = summarize(before.replace("    return", "    fn(*args)\n    q.vf(1)\n    return"))["functions"]["helper"]
    assert kept["pcalls"] == [["fn", None], ["q.vf", None]]
    assert "fn" not in {c[0] for c in kept["calls"]}
    method = "class A:\n    def f(self, x):\n        return self.g(x.sum())\n"
    assert ["self.g", None] in summarize(method)["classes"]["A"]["methods"]["f"]["calls"]


# -- the multi-file set --------------------------------------------------------------------
@pytest.mark.parametrize("folder", PROJECTS, ids=[p.name for p in PROJECTS])
def test_the_static_pass_finds_exactly_the_marked_breaks(folder):
    expected = bench.marked_lines(str(folder))
    assert expected
    assert lines_of(check_json(folder), folder) == expected


@pytest.mark.parametrize("folder", PROJECTS, ids=[p.name for p in PROJECTS])
def test_one_file_at_a_time_misses_what_sits_in_other_files(folder):
    found = lines_of(check_json(folder, "--no-project"), folder)
    assert found < bench.marked_lines(str(folder))


@pytest.mark.dynamo
@pytest.mark.parametrize("folder", PROJECTS, ids=[p.name for p in PROJECTS])
def test_the_marks_are_where_dynamo_breaks(folder):
    assert bench.dynamo_lines(str(folder)) == bench.marked_lines(str(folder))


def test_a_region_reached_from_another_file_says_from_where():
    folder = REPO / "tests" / "projects" / "flat"
    (item,) = [f for f in check_json(folder) if f["path"].endswith("utils.py") and f["rule"] == "TL001"]
    assert item["message"].endswith(f"(called from Net.forward in {os.path.join('shop', 'models', 'net.py')})")
    assert item["region"] == "scale_by_max"


def test_findings_do_not_depend_on_jobs_or_the_cache(project, monkeypatch):
    import shutil

    for folder in PROJECTS:
        shutil.copytree(folder, project / folder.name)
    monkeypatch.setattr(static_pass, "POOL_MIN_FILES", 2)
    monkeypatch.setattr(static_pass, "POOL_MIN_CHARS", 1)
    reports = []
    for extra in (["--jobs", "1", "--no-cache"], ["--jobs", "2", "--no-cache"], ["--jobs", "2"], ["--jobs", "1"]):
        result = run_cli(["check", ".", "--no-dynamic", "--format", "json", "--exit-zero", *extra])
        reports.append(sorted(json.dumps(f, sort_keys=True) for f in json.loads(result.stdout)["findings"]))
    assert reports[0] and all(r == reports[0] for r in reports)


# -- facts across files -------------------------------------------------------------------
def test_is_compiling_wrappers_and_disable_work_through_reexports(project):
    write(project, "pkg/__init__.py", "from .compat import no_compile, compiling\n")
    write(
        project,
        "pkg/compat.py",
        """
        import torch

        def compiling():
            return torch.compiler.is_compiling()

        def no_compile(fn):
            return torch.compiler.disable(fn)
        """,
    )
    write(
        project,
        "pkg/net.py",
        """
        import torch.nn as nn
        from pkg import compiling, no_compile

        class Net(nn.Module):
            def forward(self, x):
                if not compiling():
                    print(x.sum().item())
                return self.log(x)

            @no_compile
            def log(self, x):
                print(x.sum().item())
                return x
        """,
    )
    found = {(f["rule"], f["line"]) for f in check_json(project)}
    assert found == {("TL011", 8)}  # the call of the disabled function: nothing inside it, nothing eager-only


def test_not_a_module_base_from_another_file_is_not_a_region(project):
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/base.py", "class Base:\n    pass\n")
    write(
        project,
        "pkg/net.py",
        """
        from .base import Base

        class Net(Base):
            def forward(self, x):
                return x.sum().item()
        """,
    )
    assert check_json(project) == []


def test_a_decorators_wrapper_is_a_region_and_its_definition_time_code_is_not(project):
    # `wrapped` runs at every call of the forward it replaces; `document` edits a docstring
    # once, when the class body runs, and what it calls is no region (transformers'
    # `auto_docstring` shape)
    write(project, "pkg/__init__.py", "")
    write(
        project,
        "pkg/decorators.py",
        """
        import functools

        def traced(func):
            @functools.wraps(func)
            def wrapped(self, *args, **kwargs):
                print("calling", func.__name__)
                return func(self, *args, **kwargs)
            return wrapped

        def documented(obj=None, *, intro=None):
            def document(fn):
                print("documenting", fn.__qualname__)
                fn.__doc__ = (intro or "") + (fn.__doc__ or "")
                return fn
            if obj is not None:
                return document(obj)
            return document
        """,
    )
    write(
        project,
        "pkg/net.py",
        """
        import torch
        from .decorators import documented, traced

        class A(torch.nn.Module):
            @traced
            def forward(self, x):
                return x + 1

        class B(torch.nn.Module):
            @documented
            def forward(self, x):
                return x + 1
        """,
    )
    found = {(f["path"].replace(os.sep, "/").split("pkg/")[-1], f["rule"], f["line"]) for f in check_json(project)}
    assert found == {("decorators.py", "TL004", 6)}


def test_static_mode_never_imports_the_project(project):
    write(project, "pkg/__init__.py", "open('imported.txt', 'w').close()\n")
    write(
        project,
        "pkg/base.py",
        "open('imported.txt', 'w').close()\nimport torch.nn as nn\nclass Base(nn.Module):\n    pass\n",
    )
    write(
        project,
        "pkg/net.py",
        "from .base import Base\nclass Net(Base):\n    def forward(self, x):\n        return x.item()\n",
    )
    assert [f["line"] for f in check_json(project)] == [4]
    assert not (project / "imported.txt").exists()


# -- the cache across files -----------------------------------------------------------------
BASE_PLAIN = "class Base:\n    pass\n"
BASE_MODULE = "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n"
NET = (
    "from .base import Base\nfrom .helpers import peak\n\n\n"
    "class Net(Base):\n    def forward(self, x):\n        return peak(x)\n"
)
HELPERS = "def peak(x):\n    return x.max()\n"


@pytest.fixture
def counted(monkeypatch):
    """The paths the static pass lints (not answered by the cache), run by run."""
    linted = []
    real = static_pass.lint_file

    def spy(path, *args, **kwargs):
        linted.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(static_pass, "lint_file", spy)
    return linted


def static(project, cache):
    files = sorted(str(p) for p in project.rglob("*.py"))
    findings, errors = static_pass.run_static(files, settings=Settings(), cache=cache)
    assert errors == []
    return {(os.path.basename(f.path), f.line, f.rule) for f in findings}


def test_editing_a_base_class_in_one_file_changes_the_findings_of_another(project, counted):
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/base.py", BASE_PLAIN)
    write(project, "pkg/net.py", NET)
    write(project, "pkg/helpers.py", "def peak(x):\n    return x.max().item()\n")
    cache = Cache(str(project / ".cache"), ["TL0"], [])
    assert static(project, cache) == set()
    counted.clear()
    write(project, "pkg/base.py", BASE_MODULE)  # Net becomes an nn.Module: its forward a region
    assert static(project, cache) == {("helpers.py", 2, "TL001")}
    assert sorted(counted) == ["base.py", "helpers.py", "net.py"]
    counted.clear()
    assert static(project, cache) == {("helpers.py", 2, "TL001")}  # warm: nothing re-checked
    assert counted == []
    write(project, "pkg/base.py", BASE_PLAIN)
    assert static(project, cache) == set()


def test_editing_a_helper_rechecks_the_helper_and_nothing_else(project, counted):
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/base.py", BASE_MODULE)
    write(project, "pkg/net.py", NET)
    write(project, "pkg/helpers.py", HELPERS)
    cache = Cache(str(project / ".cache"), ["TL0"], [])
    assert static(project, cache) == set()
    counted.clear()
    write(project, "pkg/helpers.py", "def peak(x):\n    return x.max().item()\n")
    assert static(project, cache) == {("helpers.py", 2, "TL001")}
    assert counted == ["helpers.py"]


def test_project_analysis_can_be_turned_off(project):
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/base.py", BASE_MODULE)
    write(project, "pkg/net.py", NET)
    write(project, "pkg/helpers.py", "def peak(x):\n    return x.max().item()\n")
    assert len(check_json(project)) == 1
    assert check_json(project, "--no-project") == []
    write(project, "pyproject.toml", "[tool.torchlint]\nproject = false\n")
    assert check_json(project) == []


def test_an_edit_that_leaves_every_summary_alone_reuses_the_whole_analysis(project, counted, monkeypatch):
    from torchlint.analysis import project as project_mod

    analyses = []
    real = project_mod.Project.analyze
    monkeypatch.setattr(
        project_mod.Project, "analyze", lambda self, *a, **kw: (analyses.append(1), real(self, *a, **kw))[1]
    )
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/base.py", BASE_MODULE)
    write(project, "pkg/net.py", NET)
    write(project, "pkg/helpers.py", "def peak(x):\n    return x.max().item()\n")
    cache = Cache(str(project / ".cache"), ["TL0"], [])
    assert static(project, cache) == {("helpers.py", 2, "TL001")}
    analyses.clear()
    counted.clear()
    write(project, "pkg/helpers.py", "# the peak\n\ndef peak(x):\n    return x.max().item()\n")
    assert static(project, cache) == {("helpers.py", 4, "TL001")}
    assert analyses == [] and counted == ["helpers.py"]  # moved code: facts reused, one file linted
    write(project, "pkg/helpers.py", "def peak(x):\n    return x.max().item()\n\ndef other(x):\n    return x\n")
    assert static(project, cache) == {("helpers.py", 2, "TL001")}
    assert analyses  # a new function: the project is analysed again


def test_editing_a_reached_helper_to_call_another_file_rechecks_that_file(project, counted):
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/base.py", BASE_MODULE)
    write(project, "pkg/net.py", NET)
    write(project, "pkg/helpers.py", HELPERS)
    write(project, "pkg/deep.py", "def clip(x):\n    return x.clamp(max=x.max().item())\n")
    cache = Cache(str(project / ".cache"), ["TL0"], [])
    assert static(project, cache) == set()  # clip is reached from no region
    counted.clear()
    write(project, "pkg/helpers.py", "from .deep import clip\n\n\ndef peak(x):\n    return clip(x).max()\n")
    assert static(project, cache) == {("deep.py", 2, "TL001")}
    assert sorted(counted) == ["deep.py", "helpers.py"]  # net.py's facts did not change
    counted.clear()
    write(project, "pkg/helpers.py", "import torch\n\n\n@torch.compiler.disable\ndef peak(x):\n    return x\n")
    assert static(project, cache) == set()  # the helper is not traced: nothing it calls is either
    write(project, "pkg/helpers.py", HELPERS)
    assert static(project, cache) == set()


# -- the order the files are given in ---------------------------------------------------------
def test_findings_do_not_depend_on_the_order_of_the_files(project):
    import random
    import shutil

    for folder in PROJECTS:
        shutil.copytree(folder, project / folder.name)
    files = sorted(str(p) for p in project.rglob("*.py"))
    shuffled = list(files)
    random.Random(7).shuffle(shuffled)
    seen = []
    for order in (files, list(reversed(files)), shuffled):
        findings, errors = static_pass.run_static(order, settings=Settings())
        assert errors == []
        seen.append(sorted((f.path, f.line, f.rule, f.message, f.region) for f in findings))
    assert seen[0] and seen[0] == seen[1] == seen[2]


# -- fixes see the project ------------------------------------------------------------------
UTILS = 'def scale_by_max(x):\n    print("mean", x.mean())\n    return x / x.abs().max().item()\n'
MODEL = (
    "import torch.nn as nn\n\nfrom .utils import scale_by_max\n\n\nclass Net(nn.Module):\n"
    "    def forward(self, x):\n        return scale_by_max(x)\n"
)


def helper_project(project):
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/utils.py", UTILS)  # no torch import: a region only through model.py
    write(project, "pkg/model.py", MODEL)
    return project / "pkg" / "utils.py"


def test_fix_rewrites_a_helper_reached_from_a_forward_in_another_file(project):
    utils = helper_project(project)
    result = run_cli(["check", "pkg", "--no-dynamic", "--fix"])  # the safe fix: the print guarded
    assert result.exit_code == 1, result.output
    assert "    if not torch.compiler.is_compiling():\n        print(" in utils.read_text()
    assert ".max().item()" in utils.read_text()  # the .item() fix is unsafe: left
    result = run_cli(["check", "pkg", "--no-dynamic", "--fix", "--unsafe-fixes"])
    assert result.exit_code == 0, result.output
    assert "return x / x.abs().max()\n" in utils.read_text()
    again = run_cli(["check", "pkg", "--no-dynamic", "--format", "json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["findings"] == []


def test_diff_shows_the_helper_fix_and_without_the_project_there_is_none(project):
    utils = helper_project(project)
    result = run_cli(["check", "pkg", "--no-dynamic", "--diff", "--unsafe-fixes"])
    assert result.exit_code == 1
    assert "+++ b/pkg/utils.py" in result.stdout and "+    return x / x.abs().max()" in result.stdout
    assert utils.read_text() == UTILS
    result = run_cli(["check", "pkg", "--no-dynamic", "--fix", "--unsafe-fixes", "--no-project"])
    assert result.exit_code == 0 and utils.read_text() == UTILS  # one file at a time: no region there


# -- no tree for a file without regions -------------------------------------------------------
def regions_found(source, facts):
    """The regions the per-file analysis finds in ``source`` with ``facts`` (libcst)."""
    import libcst as cst

    from torchlint.analysis.names import ImportTable
    from torchlint.analysis.regions import build_index, find_regions

    module = cst.parse_module(source)
    imports = ImportTable.from_module(module)
    imports.apply_project(facts or {})
    return find_regions(build_index(module, imports), facts)


def test_a_file_said_to_hold_no_region_holds_none():
    from torchlint.analysis.roots import may_hold_regions

    folders = PROJECTS + [REPO / "fixtures", REPO / "tests" / "fixes"]
    files = sorted(str(p) for folder in folders for p in folder.rglob("*.py"))
    sources = static_pass.read_for_project(files)
    facts, bare = static_pass.project_facts(files, sources, Settings())
    held = 0
    for path, source, fact in zip(files, sources, facts):
        found = bool(regions_found(source, fact))
        assert may_hold_regions(summarize(source), fact) or not found, path
        assert (os.path.abspath(path) in bare) == (not may_hold_regions(summarize(source), fact)), path
        held += found
    assert held > 20 and bare  # both kinds are there


@pytest.mark.parametrize(
    "source",
    [
        # any name may be torch's
        "from torch import *\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n",
        "from torch import compile as c\n\ndef f(x):\n    return x\n\ng = c(f)\n",
        "import torch\n\nclass Base:\n    def forward(self, x):\n        return x\n\n"
        "class Net(Base, torch.nn.Module):\n    pass\n",  # the forward of a base that is no module
        "import torch.nn\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
        "import torch as T\n\n@T.compile\ndef f(x):\n    return x\n",
    ],
)
def test_a_file_that_may_hold_a_region_is_parsed(source):
    from torchlint.analysis.roots import may_hold_regions

    assert may_hold_regions(summarize(source), {})
    assert regions_found(source, {})


def test_a_file_whose_classes_are_no_modules_is_not_parsed():
    from torchlint.analysis.roots import may_hold_regions

    config = (
        "import torch\nfrom ...configuration_utils import PretrainedConfig\n\n"
        "class LlamaConfig(PretrainedConfig):\n    def __init__(self, n=2):\n        self.n = torch.ones(n)\n"
    )
    assert not may_hold_regions(summarize(config), {}) and not regions_found(config, {})
    # the same class made a module by another file (a project fact)
    assert may_hold_regions(summarize(config), {"module_local": ["LlamaConfig"]})
    assert may_hold_regions(summarize(config), {"aliases": {"PretrainedConfig": "torch.nn.Module"}})


# -- an analysis redone in part gives what a whole analysis gives --------------------------
def _edits(source: str):
    """Edits that change what a file offers other files: a new function, and its last
    top-level statement removed (a class, a function, an import...)."""
    import ast

    yield source.rstrip("\n") + "\n\n\ndef _probe_added(x):\n    return x.max().item()\n"
    yield source.replace("def ", "def renamed_", 1)
    tree = ast.parse(source)
    if tree.body:
        last = tree.body[-1]
        lines = source.splitlines(keepends=True)
        yield "".join(lines[: last.lineno - 1] + lines[last.end_lineno :])


#: a package whose submodule is reached only as an attribute of the package (``pkg.ops.f``:
#: found on disk by the lookup, never imported by name)
LAZY = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "def scale(x):\n    return x * x.sum().item()\n",
    "model.py": "import torch\nimport pkg\n\n\nclass Net(torch.nn.Module):\n"
    "    def forward(self, x):\n        return pkg.ops.scale(x)\n",
}


@pytest.mark.parametrize("name", ["flat", "hf_like", "srclayout", "lazy"])
def test_an_analysis_redone_in_part_gives_the_facts_of_a_whole_one(name, tmp_path, monkeypatch):
    from torchlint.analysis import project as project_mod

    if name == "lazy":
        for rel, text in LAZY.items():
            write(tmp_path / name, rel, text)
    else:
        shutil.copytree(Path(__file__).parents[1] / "projects" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path / name)
    files = sorted(str(p.relative_to(tmp_path / name)) for p in (tmp_path / name).rglob("*.py"))
    settings = Settings()
    cache = Cache(str(tmp_path / "cache"), ["TL0"], [])
    partial = []
    real = project_mod.Project.analyze

    def spy(self, earlier=None, unchanged=()):
        partial.append(len(set(unchanged)))
        return real(self, earlier, unchanged)

    monkeypatch.setattr(project_mod.Project, "analyze", spy)
    static_pass.project_facts(files, static_pass.read_for_project(files), settings, cache)  # stored: a whole analysis
    for path in files:
        original = Path(path).read_text(encoding="utf-8")
        for edited in _edits(original):
            Path(path).write_text(edited, encoding="utf-8")
            texts = static_pass.read_for_project(files)
            assert static_pass.project_facts(files, texts, settings, cache) == static_pass.project_facts(
                files, texts, settings
            ), path
        Path(path).write_text(original, encoding="utf-8")
    assert any(partial), "no edit was analysed in part"


@pytest.mark.parametrize(
    "call",
    [
        "torch.compile(Net())",
        "(torch.compile)(Net())",
        "torch.compile  # a comment\n    (Net())",
        "torch.compile \\\n(Net())",
        "torch . compile(Net())",
    ],
)
def test_compile_calls_are_found_however_they_are_written(call):
    source = f"import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    pass\n\nm = ({call})\n"
    assert summarize(source)["compiled"] == [["torch.compile", "call", "Net"]], call
    crlf = source.replace("\n", "\r\n")
    assert summarize(crlf)["compiled"] == [["torch.compile", "call", "Net"]], call


def test_a_compile_named_only_in_text_is_no_compile_call():
    source = '"""Use torch.compile(model) to go faster."""\n# torch.compile(x)\nimport re\nP = re.compile("a")\n'
    assert "compiled" not in summarize(source) and "instances" not in summarize(source)


def test_what_a_wrapper_calls_among_the_decorators_functions_is_a_region_too(project):
    # `dynamic_rope_update`'s shape: the wrapper calls a sibling nested function per call
    write(project, "pkg/__init__.py", "")
    write(
        project,
        "pkg/decorators.py",
        """
        def updated(forward):
            def refresh(self, x):
                print("refreshing")

            def wrapper(self, x):
                refresh(self, x)
                return forward(self, x)

            return wrapper
        """,
    )
    write(
        project,
        "pkg/net.py",
        """
        import torch
        from .decorators import updated

        class A(torch.nn.Module):
            @updated
            def forward(self, x):
                return x + 1
        """,
    )
    found = {(f["path"].replace(os.sep, "/").split("pkg/")[-1], f["rule"], f["line"]) for f in check_json(project)}
    assert found == {("decorators.py", "TL004", 3)}


# -- calls a name alone does not resolve: a local alias, a class picked from a table, an override
SOLVER_FILES = {
    "odesolve/__init__.py": "from .api import odeint, odeint_adjoint\n",
    "odesolve/base.py": """
        import torch

        class Solver:
            def __init__(self, func, y0):
                self.func = func
                self.y0 = y0

            def integrate(self, t):
                out = [self.y0]
                y = self.y0
                for t0, t1 in zip(t[:-1], t[1:]):
                    y = self.step(y, t0, t1)
                    out.append(y)
                return torch.stack(out)

            def step(self, y, t0, t1):
                raise NotImplementedError
        """,
    "odesolve/fixed.py": """
        import torch

        from .base import Solver

        class Euler(Solver):
            def step(self, y, t0, t1):
                return y + (t1 - t0) * self.func(t0, y)

        class Adaptive(Solver):
            def step(self, y, t0, t1):
                dt = t1 - t0
                k = self.func(t0, y)
                err = torch.linalg.vector_norm(dt * k)
                if err > 1.0:
                    dt = dt / 2
                return y + dt * k
        """,
    "odesolve/api.py": """
        from .fixed import Adaptive, Euler

        SOLVERS = {"euler": Euler, "adaptive": Adaptive}

        def odeint(func, y0, t, method="adaptive"):
            solver = SOLVERS[method](func, y0)
            return solver.integrate(t)

        def odeint_adjoint(func, y0, t, method="adaptive"):
            return odeint(func, y0, t, method)
        """,
    "model.py": """
        import torch
        from odesolve import odeint, odeint_adjoint
        from torch import nn

        class Field(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(8, 8)

            def forward(self, t, y):
                return torch.tanh(self.lin(y))

        class Flow(nn.Module):
            def __init__(self, adjoint=False):
                super().__init__()
                self.field = Field()
                self.adjoint = adjoint
                self.register_buffer("times", torch.linspace(0.0, 1.0, 3))

            def forward(self, y0):
                solve = odeint_adjoint if self.adjoint else odeint
                return solve(self.field, y0, self.times)
        """,
}
#: `if err > 1.0:` in the subclass's step, reached from Flow.forward through the alias `solve`,
#: the table SOLVERS, the instance `solver` and the base class's `self.step(...)`
SOLVER_BREAK = ("fixed.py", 14, "TL005")
#: `return solver.integrate(t)`: the break inside spreads to the call, since dynamo cannot
#: rebuild the solver made in that frame to resume in it (TL021)
SPREAD = ("api.py", 7, "TL021")


def write_solver(project) -> None:
    for name, text in SOLVER_FILES.items():
        write(project, name, text)


def test_calls_through_an_alias_a_class_table_and_an_override_are_followed(project, counted):
    write_solver(project)
    cache = Cache(str(project / ".cache"), ["TL0"], [])
    assert static(project, cache) == {SOLVER_BREAK, SPREAD}
    # a subclass added in a file the base class does not read: its override is reached too
    write(
        project,
        "odesolve/extra.py",
        """
        from .base import Solver

        class Noisy(Solver):
            def step(self, y, t0, t1):
                print("step", float(t1 - t0))
                return y + (t1 - t0) * self.func(t0, y)
        """,
    )
    assert static(project, cache) == {SOLVER_BREAK, SPREAD, ("extra.py", 5, "TL004")}
    assert static(project, None) == static(project, cache)
    (project / "odesolve/extra.py").unlink()
    assert static(project, cache) == {SOLVER_BREAK, SPREAD}


@pytest.mark.dynamo
def test_dynamo_breaks_where_the_followed_calls_lead(project):
    import torch

    from torchlint.dynamic.observe import observe
    from torchlint.verify import silenced

    write_solver(project)
    sys.path.insert(0, str(project))
    try:
        import model  # type: ignore[import-not-found]

        files = {os.path.realpath(p) for p in project.rglob("*.py")}
        with silenced():
            obs = observe(model.Flow(), [[torch.randn(4, 8)]], user_files=files)
    finally:
        sys.path.remove(str(project))
        for name in [m for m in sys.modules if m == "model" or m.startswith("odesolve")]:
            del sys.modules[name]
    lines = {(os.path.basename(b.path), b.line) for b in obs.breaks}
    assert lines == {SOLVER_BREAK[:2], SPREAD[:2]}


def test_a_call_only_made_while_tracing_or_scripting_is_no_region(project):
    # dynamo reads torch.jit.is_tracing() / is_scripting() as False: what runs only when they
    # are true is never compiled, what runs in their other arm is, nested guards included
    write(project, "pkg/__init__.py", "")
    write(
        project,
        "pkg/ops.py",
        """
        import warnings

        import torch

        def traced_loop(x):
            warnings.warn("traced")
            return x

        def eager_loop(x):
            print("eager")
            return x

        def is_exporting():
            return False

        def hysteresis(x):
            if is_exporting():
                return x
            elif torch.jit.is_tracing():
                return traced_loop(x)
            else:
                return eager_loop(x)
        """,
    )
    write(
        project,
        "pkg/net.py",
        """
        import torch
        from .ops import hysteresis

        class Net(torch.nn.Module):
            def forward(self, x):
                return hysteresis(x)
        """,
    )
    found = {(os.path.basename(f["path"]), f["rule"], f["line"]) for f in check_json(project)}
    assert found == {("ops.py", "TL004", 10)}


def test_an_is_compiling_looked_up_with_getattr_and_wrapped_is_one(project):
    # kornia's shape: the function found with getattr at import, a wrapper returning bool() of
    # it or a constant, imported by another file that checks it in an `and`, and read in an
    # `and` of its own file (what follows `not is_compiling()` never runs)
    write(project, "pkg/__init__.py", "")
    write(
        project,
        "pkg/utils.py",
        """
        import torch

        _torch_is_compiling = getattr(torch.compiler, "is_compiling", None) or getattr(
            torch._dynamo, "is_compiling", None
        )

        def is_compiling() -> bool:
            return bool(_torch_is_compiling()) if _torch_is_compiling is not None else False

        def move(x, device):
            pinned = x.device.type == "cpu" and not is_compiling() and x.is_pinned()
            return x.to(device, non_blocking=pinned)
        """,
    )
    write(
        project,
        "pkg/net.py",
        """
        import warnings

        import torch
        from .utils import is_compiling, move

        class Net(torch.nn.Module):
            def forward(self, x, eps=1e-8):
                if not torch.jit.is_scripting() and not is_compiling() and eps != 1e-8:
                    warnings.warn("eps is ignored")
                print("always")
                return move(x, x.device)
        """,
    )
    found = {(os.path.basename(f["path"]), f["rule"], f["line"]) for f in check_json(project)}
    assert found == {("net.py", "TL004", 10)}
