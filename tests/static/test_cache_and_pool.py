"""The static pass at scale: per-file cache, process pool, pre-filter, fast tree walk.

Findings must not depend on how they were computed: fresh or from the cache, on one process
or on several, through libcst's own visitor or torchlint's field walk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider
from support import FIXTURES, REPO, run_cli, write

from torchlint.analysis import regions, tree
from torchlint.static import cache as cache_mod
from torchlint.static import sources, static_pass
from torchlint.static.modes import reads_mode

MODEL = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        s = x.sum().item()
        print("step", s)
        if x.mean() > 0:
            x = x * 2
        return self.fc(x) + s
"""


@pytest.fixture
def corpus(project):
    """The fixture models plus a few files of our own, as the working directory."""
    for src in sorted(FIXTURES.glob("*.py")):
        shutil.copy(src, project / src.name)
    write(project, "pkg/net.py", MODEL)
    write(project, "pkg/plain.py", "def add(a, b):\n    return a + b\n")
    write(project, "pkg/broken.py", "import torch\n\ndef f(:\n    pass\n")
    return project


@pytest.fixture
def pool_always(monkeypatch):
    """Use the process pool however few files there are (the thresholds are for speed);
    yields the number of files each pool was given."""
    monkeypatch.setattr(static_pass, "POOL_MIN_FILES", 2)
    monkeypatch.setattr(static_pass, "POOL_MIN_CHARS", 1)
    sizes = []
    real = static_pass._lint_in_pool

    def spy(todo, *args):
        sizes.append(len(todo))
        return real(todo, *args)

    monkeypatch.setattr(static_pass, "_lint_in_pool", spy)
    return sizes


def fresh_candidates(folder: Path):
    return [p for p in folder.rglob("*.py") if sources.is_candidate(p.read_text(encoding="utf-8"))]


def check(*args):
    result = run_cli(["check", ".", "--no-dynamic", *args])
    assert result.exit_code in (0, 1, 2), result.stderr
    return result


def report(*args):
    out = json.loads(check("--format", "json", *args).stdout)
    return out["findings"], out["errors"]


def entries(folder: Path):
    return sorted((folder / cache_mod.ENTRIES).glob("*/*.json"))


# -- same findings however they are computed ---------------------------------------------
def test_findings_are_the_same_fresh_cached_and_on_one_or_two_processes(corpus, pool_always):
    fresh_text = check("--no-cache", "--jobs", "1").stdout
    fresh = report("--no-cache", "--jobs", "1")
    assert fresh[0] and fresh[1], "the corpus should have findings and a parse error"
    assert any(f["path"] == "pkg/net.py" for f in fresh[0])
    assert not pool_always
    assert report("--no-cache", "--jobs", "2") == fresh
    # two processes did the work; the fixtures train, so training mode is checked too, again
    # only for the files whose code reads the mode
    assert pool_always[0] == len(fresh_candidates(corpus))
    in_training = sum(1 for p in fresh_candidates(corpus) if reads_mode(p.read_text(encoding="utf-8")))
    assert 0 < in_training < pool_always[0] and pool_always[1:] == [in_training]
    assert not (corpus / ".torchlint_cache").exists()  # --no-cache writes nothing either

    assert report("--jobs", "2") == fresh  # cold: computes and stores
    stored = entries(corpus / ".torchlint_cache")
    assert len(stored) == len(fresh_candidates(corpus)) + in_training  # (one entry per mode checked)
    assert report("--jobs", "1") == fresh  # warm: read back
    assert check("--jobs", "2").stdout == fresh_text  # text output (source lines, fix marks) too
    assert entries(corpus / ".torchlint_cache") == stored  # nothing recomputed
    assert len(pool_always) == 4  # ... and no pool started for it


def test_a_changed_file_is_checked_again(corpus):
    before, _ = report()
    (corpus / "pkg/net.py").write_text(textwrap.dedent(MODEL).replace("s = x.sum().item()", "s = x.sum()"))
    after, _ = report()
    assert [f for f in before if f["rule"] == "TL001" and f["path"] == "pkg/net.py"]
    assert not [f for f in after if f["rule"] == "TL001" and f["path"] == "pkg/net.py"]
    assert after == report("--no-cache")[0]


def test_a_warm_run_does_not_import_libcst(corpus):
    assert check().exit_code  # fill the cache
    code = (
        "import sys\nfrom torchlint.cli import main\n"
        "try:\n    main(['check', '.', '--no-dynamic', '--format', 'json'])\n"
        "except SystemExit:\n    pass\n"
        "print('libcst' in sys.modules, sys.modules.get('torch') is not None, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=corpus, capture_output=True, text=True, timeout=120)
    assert done.stderr.strip().splitlines()[-1] == "False False", done.stderr
    assert json.loads(done.stdout)["findings"]


# -- the cache trusts nothing ------------------------------------------------------------
def test_corrupt_and_foreign_entries_are_ignored_and_replaced(corpus):
    expected = report()
    folder = corpus / ".torchlint_cache"
    stored = entries(folder)
    assert len(stored) >= 4
    good = json.loads(stored[0].read_text())
    tampered = dict(good, findings=[dict(f, line="1") for f in good["findings"]] or [{"rule": 1}])
    damage = [
        b"",  # truncated to nothing
        b'{"format": 1, "key": ',  # cut half-way
        b"\x00\xff not json",
        json.dumps(dict(good, format=999)).encode(),  # another format
        json.dumps(tampered).encode(),  # findings of the wrong shape
        stored[0].read_bytes(),  # another file's entry, under this key
        json.dumps([1, 2, 3]).encode(),
    ]
    for path, data in zip(stored[1:], damage):
        path.write_bytes(data)
    stored[0].write_bytes(json.dumps(tampered).encode())
    assert report() == expected
    for path in stored:  # each bad entry was recomputed and written again
        entry = json.loads(path.read_text())
        assert entry["key"] == path.parent.name + path.stem


def test_an_unwritable_cache_does_not_fail_the_run(corpus):
    (corpus / "blocker").write_text("a file where the cache folder should be")
    result = run_cli(["check", ".", "--no-dynamic", "--cache-dir", "blocker/cache", "--format", "json"])
    assert result.exit_code == 2  # the parse error in pkg/broken.py, nothing about the cache
    assert [e["path"] for e in json.loads(result.stdout)["errors"]] == ["pkg/broken.py"]


def test_changed_settings_invalidate(corpus):
    all_findings, _ = report()
    only_item, _ = report("--select", "TL001")
    assert {f["rule"] for f in only_item} == {"TL001"}
    assert only_item == report("--select", "TL001", "--no-cache")[0]
    (corpus / "pyproject.toml").write_text('[tool.torchlint]\nignore = ["TL004"]\n')
    ignored, _ = report()
    assert ignored == report("--no-cache")[0]
    assert {f["rule"] for f in ignored} == {f["rule"] for f in all_findings} - {"TL004"}


def test_cache_key_covers_engine_settings_and_content(tmp_path):
    a = cache_mod.Cache(str(tmp_path), ["TL0"], [], engine="e1")
    assert a.key("m.py", "x") == cache_mod.Cache(str(tmp_path), ["TL0"], [], engine="e1").key("m.py", "x")
    others = [
        cache_mod.Cache(str(tmp_path), ["TL0"], [], engine="e2").key("m.py", "x"),
        cache_mod.Cache(str(tmp_path), ["TL001"], [], engine="e1").key("m.py", "x"),
        cache_mod.Cache(str(tmp_path), ["TL0"], ["TL004"], engine="e1").key("m.py", "x"),
        a.key("n.py", "x"),
        a.key("m.py", "y"),
    ]
    assert a.key("m.py", "x") not in others and len(set(others)) == len(others)


def _edit_rule_module(package: Path) -> None:
    rule = package / "rules" / "tl001_tensor_item.py"
    rule.write_text(rule.read_text() + '\nTensorItem.message = "edited message"\n')


def _edit_rule_page(package: Path) -> None:
    page = next((package / "rule_pages").glob("TL001-*.md"))
    text = page.read_text()
    start = text.index("\nmessage: ") + 1
    page.write_text(text[:start] + "message: edited message" + text[text.index("\n", start) :])


@pytest.mark.parametrize("edit", [_edit_rule_module, _edit_rule_page], ids=["module", "page"])
def test_an_edited_rule_misses_the_cache(tmp_path, edit):
    """The engine hash covers every module of the package and every rule page: edit one rule
    (its code or its page) in a copy of torchlint and the next run recomputes, and finds what
    the edited rule now says."""
    from importlib import resources

    import torchlint

    package = tmp_path / "copy" / "torchlint"
    shutil.copytree(Path(torchlint.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        str(resources.files("torchlint.rule_pages")),
        package / "rule_pages",
        ignore=shutil.ignore_patterns("__pycache__"),
        dirs_exist_ok=True,
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "m.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "copy"))

    def run():
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "torchlint",
                "check",
                ".",
                "--no-dynamic",
                "--format",
                "json",
                "--exit-zero",
                "--cache-dir",
                str(tmp_path / "cache"),
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return [f["message"] for f in json.loads(out)["findings"]], entries(tmp_path / "cache")

    before, stored = run()
    assert run() == (before, stored)  # unchanged: answered from the cache
    edit(package)
    after, now = run()
    assert after == ["edited message"] and before != after
    assert len(now) == 2 * len(stored)  # a new entry beside the old one: a miss


def test_stored_fixes_come_back_with_the_same_edits(tmp_path):
    from torchlint.findings import Edit, Finding, Fix

    source = "import torch\nx = 1\ny = 2\n"
    for edits in ((Edit(3, 5, 3, 6, "3"),), (Edit(1, 1, 2, 1, ""), Edit(4, 1, 4, 1, "z = 3\n")), ()):
        c = cache_mod.Cache(str(tmp_path), ["TL0"], [], engine="e")
        f = Finding(
            "TL001", "tensor-item", "m.py", 2, 1, 2, 6, "msg", "fix", fix=Fix("safe", "d", edits), source_line="x = 1"
        )
        key = c.key("m.py", source)
        c.put(key, [f], None, 3, True)
        (back,), error, lines = c.get(key, "m.py", True)
        assert back == f and back.fix == f.fix and back.source_line == "x = 1"


# -- torchlint clean ---------------------------------------------------------------------
def test_clean_removes_the_cache_and_only_a_cache(corpus):
    check()
    assert (corpus / ".torchlint_cache").is_dir()
    result = run_cli(["clean"])
    assert result.exit_code == 0 and not (corpus / ".torchlint_cache").exists()
    assert run_cli(["clean"]).exit_code == 0  # nothing to remove is fine

    (corpus / "keep").mkdir()
    (corpus / "keep" / "data.txt").write_text("precious")
    result = run_cli(["clean", "--cache-dir", "keep"])
    assert result.exit_code == 2 and "not a torchlint cache" in result.stderr
    assert (corpus / "keep" / "data.txt").exists()


def test_cache_dir_from_the_command_line_and_the_config(corpus):
    check("--cache-dir", "elsewhere")
    assert entries(corpus / "elsewhere") and not (corpus / ".torchlint_cache").exists()
    (corpus / "pyproject.toml").write_text('[tool.torchlint]\ncache-dir = "build/lint-cache"\njobs = 2\n')
    (corpus / "sub").mkdir()
    run_cli(["check", "..", "--no-dynamic"], cwd=corpus / "sub")  # relative to the config's folder
    assert entries(corpus / "build" / "lint-cache")
    assert run_cli(["clean"], cwd=corpus / "sub").exit_code == 0
    assert not (corpus / "build" / "lint-cache").exists()


# -- the pre-filter ----------------------------------------------------------------------
def test_region_packages_cover_every_name_a_region_needs():
    names = regions.MODULE_BASES | regions.COMPILE_CALLS | regions.DISABLE_DECORATORS | regions.IS_COMPILING
    assert {n.split(".")[0] for n in names} | {"torch"} <= set(sources.REGION_PACKAGES)


@pytest.mark.parametrize(
    "source",
    [
        "import torch\n",
        "import os, torch.nn as nn\n",
        "from torch import nn\n",
        "from torch.nn import Module\n",
        "import lightning as L\n",
        "import pytorch_lightning as pl\n",
        "import os, \\\n    torch\n",
        "from \\\n  torch import nn\n",
        "x = 1; import torch\n",
        "if True:\n    from torch import compile\n",
    ],
)
def test_files_importing_torch_are_candidates(source):
    assert sources.is_candidate(source)


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\n",
        "from .torch_utils import x\n",
        "from transformers import is_torch_available\n",
        "# Module, compile and torch.nn, but no import\nclass A:\n    pass\n",
    ],
)
def test_files_without_torch_are_not_parsed(source):
    assert not sources.is_candidate(source)


def test_a_file_that_is_not_a_candidate_is_not_even_parsed(project):
    write(project, "notes.py", "this is not python (\n")
    write(project, "model.py", "import torch\nthis is not python (\n")
    result = run_cli(["check", ".", "--no-dynamic", "--format", "json"])
    assert [e["path"] for e in json.loads(result.stdout)["errors"]] == ["model.py"]


def test_every_fixture_with_findings_passes_the_pre_filter():
    from torchlint.rules import all_rules
    from torchlint.static.lint import lint_file

    for path in sorted(FIXTURES.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if lint_file(path.name, source, all_rules()).findings:
            assert sources.is_candidate(source), path


# -- the fast walk is libcst's walk ------------------------------------------------------
def _fixture_modules():
    sources = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    sources.append((REPO / "torchlint" / "analysis" / "regions.py").read_text(encoding="utf-8"))
    sources.append(
        "x = (  # c\n  a if b else c)\n@d\nclass K(B, metaclass=M):\n\tdef f(self, *a, k=1, **kw) -> 'T':\n"
        "\t\treturn [i async for i in y if i] or {k: v for k, v in z} or f'{a!r:>{w}}'\n"
    )
    for source in sources:
        yield cst.parse_module(source)
        yield cst.parse_module(source.replace("\n", "\r\n"))


def test_children_are_libcsts_children_in_the_same_order():
    for module in _fixture_modules():
        stack = [module]
        while stack:
            node = stack.pop()
            expected = node.children
            got = tree.children(node)
            assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected)), type(node).__name__
            assert tree.code_children(node) == [c for c in expected if type(c) not in tree.TRIVIA_TYPES]
            stack.extend(expected)


def test_positions_are_libcsts_positions():
    for module in _fixture_modules():
        nodes = list(tree.walk(module))
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        got = tree.positions(module, nodes)
        for node in nodes:
            r = expected[node]
            assert got[node] == ((r.start.line, r.start.column), (r.end.line, r.end.column)), type(node).__name__
        some = nodes[len(nodes) // 2 : len(nodes) // 2 + 3]  # a few, as the engine asks: it stops early
        assert tree.positions(module, some) == {n: got[n] for n in some}


def test_whole_text_spans_are_libcsts_whitespace_inclusive_positions():
    from libcst.metadata import WhitespaceInclusivePositionProvider

    for module in _fixture_modules():
        nodes = list(tree.walk(module))
        statements = [n for n in nodes if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(WhitespaceInclusivePositionProvider)
        some = nodes[len(nodes) // 3 : len(nodes) // 3 + 2]
        spans, whole = tree.spans_of(module, some, statements)
        assert spans == tree.positions(module, some)
        for node in statements:
            r = expected[node]
            assert whole[node] == ((r.start.line, r.start.column), (r.end.line, r.end.column)), type(node).__name__


def test_traverse_visits_like_libcsts_visitor():
    events_lib, events_fast = [], []

    class Recorder(cst.CSTVisitor):
        def on_visit(self, node):
            events_lib.append(("visit", node))
            return not isinstance(node, cst.Lambda)  # also test pruning

        def on_leave(self, node):
            events_lib.append(("leave", node))

    def on_visit(node):
        events_fast.append(("visit", node))
        return not isinstance(node, cst.Lambda)

    for module in _fixture_modules():
        events_lib.clear()
        events_fast.clear()
        module.visit(Recorder())
        tree.traverse(module, on_visit, lambda node: events_fast.append(("leave", node)))
        assert len(events_fast) == len(events_lib)
        assert all(a[0] == b[0] and a[1] is b[1] for a, b in zip(events_fast, events_lib))


def test_parsing_unvalidated_gives_the_same_tree_and_switches_back():
    source = (FIXTURES / "transformer_block.py").read_text(encoding="utf-8")
    with tree.unvalidated():
        with tree.unvalidated():  # nests
            fast = cst.parse_module(source)
        assert fast.code == source
    assert fast.deep_equals(cst.parse_module(source))
    with pytest.raises(cst.CSTValidationError):  # validation is back on
        cst.SimpleWhitespace("not whitespace")


def test_a_time_limit_is_not_remembered(project, monkeypatch):
    from torchlint.static import lint

    write(project, "m.py", MODEL)
    monkeypatch.setattr(
        lint,
        "_guarded",
        lambda *a, **k: ([], "analysis stopped after 60 s (the file is too large or too complex); not checked"),
    )
    assert run_cli(["check", ".", "--no-dynamic"]).exit_code == 2
    assert not entries(project / ".torchlint_cache")
    monkeypatch.undo()
    monkeypatch.chdir(project)
    assert run_cli(["check", ".", "--no-dynamic"]).exit_code == 1  # checked this time, and kept
    assert len(entries(project / ".torchlint_cache")) == 1


def test_the_fast_pre_filter_agrees_with_its_regular_expression():
    import random

    rng = random.Random(5)
    parts = [
        "import",
        "from",
        " ",
        "\t",
        "\\\n",
        "\\\r\n",
        "\n",
        "\r\n",
        "torch",
        "lightning",
        "pytorch_lightning",
        "torchvision",
        "x",
        ",",
        ".",
        "#",
        "_torch",
        "as ",
        "nn",
    ]
    for _ in range(20000):
        source = "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))
        assert sources.is_candidate(source) == (sources._CANDIDATE.search(source) is not None), repr(source)


def test_suppression_comments_still_count_on_a_warm_run(project):
    write(
        project,
        "m.py",
        MODEL.replace("s = x.sum().item()", "s = x.sum().item()  # NoQA: TL001").replace(
            'print("step", s)', 'print("step", s)  # TorchLint: ignore'
        ),
    )
    for _ in range(2):  # cold, then warm
        found, _ = report()
        assert {f["rule"] for f in found} == {"TL005"}


def test_the_pool_works_when_it_cannot_fork(corpus, pool_always, monkeypatch):
    """With threads running (a progress bar on a terminal) the pool starts by forkserver."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no forkserver start method on this platform")
    fresh = report("--no-cache", "--jobs", "1")
    monkeypatch.setattr(static_pass, "_pool_context", lambda: multiprocessing.get_context("forkserver"))
    assert report("--no-cache", "--jobs", "2") == fresh
    assert pool_always


def test_the_pool_reads_and_summarises_the_project_and_sends_back_what_is_linted(corpus, pool_always, monkeypatch):
    """A cold run over the project hands the reading (the index's facts) and the summaries
    to the pool's workers, which send back the texts of the given files that may hold a
    region: this process opens no file, and the next run finds every file in the index and
    every summary stored."""
    monkeypatch.setattr(sources, "RACY_NS", 0)  # (the files were just written: trusted all the same)
    opened = []
    real = sources.Sources._read
    monkeypatch.setattr(sources.Sources, "_read", lambda self, path: opened.append(path) or real(self, path))
    cold, _ = report("--jobs", "2")
    opened_cold = list(opened)
    assert cold == report("--no-cache", "--jobs", "1")[0]
    opened[:] = opened_cold
    everything = {str(p.resolve()) for p in corpus.rglob("*.py")}
    assert opened == []
    settings = static_pass._default_settings()
    cache = cache_mod.Cache(
        str(corpus / ".torchlint_cache"),
        settings.selected,
        settings.ignored,
        torch_version=settings.static_torch_version(),
    )
    index = cache.sources()
    for path in sorted(everything):
        known = index.known_unread(path)
        assert known is not None, path
        if not path.endswith("broken.py"):  # (a file that does not parse has no summary)
            assert cache.has_summary(known.digest), path
    opened.clear()
    assert report("--jobs", "2")[0] == cold  # warm: nothing opened, no pool
    assert opened == []


def test_a_file_edited_after_the_pool_read_it_is_not_stored_under_the_old_text(corpus, pool_always, monkeypatch):
    net = corpus / "pkg" / "net.py"
    real = static_pass._summarize_missing

    def then_edit(*args, **kwargs):
        real(*args, **kwargs)
        net.write_text(textwrap.dedent(MODEL).replace("s = x.sum().item()", "s = x.sum()"))

    monkeypatch.setattr(static_pass, "_summarize_missing", then_edit)
    report("--jobs", "2")
    monkeypatch.setattr(static_pass, "_summarize_missing", real)
    net.write_text(textwrap.dedent(MODEL))  # the text the pool read, back: its result is computed again
    os.utime(net, (1, 1))
    assert report("--jobs", "2")[0] == report("--no-cache", "--jobs", "1")[0]
