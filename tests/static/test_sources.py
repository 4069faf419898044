"""The index of file stats: a warm run does not read files that have not changed, and never
trusts an entry that could hide an edit."""

from __future__ import annotations

import json
import os
import time

import pytest
from support import write

from torchlint.config import Settings
from torchlint.static import sources, static_pass
from torchlint.static.cache import Cache

MODEL = """
import torch
from torch import nn

from helpers import scale


class Net(nn.Module):
    def forward(self, x):
        return scale(x) + x.sum().item()
"""

HELPER = """
def scale(x):
    print("scaling")
    return x * 2
"""

PLAIN = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def tree(project, monkeypatch):
    """A model, the helper its forward calls, an unrelated file. Entries count as recorded
    long after a change (``RACY_NS`` 0) unless a test says otherwise: a file's change time
    cannot be set back, and a test should not wait two seconds."""
    monkeypatch.setattr(sources, "RACY_NS", 0)
    write(project, "model.py", MODEL)
    write(project, "helpers.py", HELPER)
    write(project, "plain.py", PLAIN)
    return project


@pytest.fixture
def opened(monkeypatch):
    """The files the static pass opens, in order."""
    seen = []
    real = sources.read_source

    def spy(path):
        seen.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(sources, "read_source", spy)
    return seen


def check(folder):
    cache = Cache(str(folder / ".torchlint_cache"), ["TL"], [])
    files = ["helpers.py", "model.py", "plain.py"]
    findings, errors = static_pass.run_static(files, settings=Settings(), cache=cache)
    return sorted((f.path, f.line, f.rule) for f in findings), [(e.path, e.message) for e in errors]


def test_a_warm_run_opens_no_unchanged_file(tree, opened):
    cold = check(tree)
    assert ("helpers.py", 2, "TL004") in cold[0] and ("model.py", 9, "TL001") in cold[0]
    assert sorted(opened) == ["helpers.py", "model.py", "plain.py"]
    opened.clear()
    assert check(tree) == cold
    assert opened == []


def test_an_edited_helper_is_read_and_its_callers_findings_follow(tree, opened):
    check(tree)
    opened.clear()
    (tree / "helpers.py").write_text(HELPER.lstrip().replace('print("scaling")', "n = x.max().item()"))
    findings, _ = check(tree)
    assert opened == ["helpers.py"]  # the one file that changed
    assert ("helpers.py", 2, "TL001") in findings and not any(f[2] == "TL004" for f in findings)


def test_an_edit_keeping_size_and_modification_time_is_seen(tree):
    check(tree)
    path = tree / "helpers.py"
    info = os.stat(path)
    path.write_text(path.read_text().replace("scaling", "halving"))  # same size
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # same modification time
    assert os.stat(path).st_size == info.st_size and os.stat(path).st_mtime_ns == info.st_mtime_ns
    index = sources.Sources(
        str(tree / ".torchlint_cache" / sources.INDEX_NAME),
        namespace=Cache(str(tree / ".torchlint_cache"), ["TL"], []).engine,
    )
    assert index.known(str(path)).digest == sources.text_digest(path.read_text())


def test_an_entry_recorded_right_after_a_change_is_checked_again(tree, opened, monkeypatch):
    monkeypatch.setattr(sources, "RACY_NS", 2_000_000_000)
    now = time.time_ns

    def later():  # the clock two seconds and more after every change so far
        monkeypatch.setattr(sources.time, "time_ns", lambda: now() + 3_000_000_000)

    later()
    check(tree)
    monkeypatch.setattr(sources.time, "time_ns", now)
    (tree / "plain.py").write_text(PLAIN + "# edited\n")  # changed now: within the racy window
    opened.clear()
    check(tree)
    check(tree)
    assert opened == ["plain.py", "plain.py"]  # read again: its entry could hide a second edit
    later()
    opened.clear()
    check(tree)
    assert opened == ["plain.py"]  # the entry recorded last time was still within the window
    opened.clear()
    check(tree)
    assert opened == []


def test_a_file_gone_since_the_last_run_is_an_error(tree):
    check(tree)
    os.remove(tree / "plain.py")
    _, errors = check(tree)
    assert errors == [("plain.py", "no such file or directory")]


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({"format": 1, "namespace": "other", "files": {}}),
        json.dumps({"format": 1, "files": {"/x.py": [[1], 2, "d", True, False, 3]}}),
    ],
)
def test_a_corrupt_or_foreign_index_is_ignored_and_rewritten(tree, opened, content):
    cold = check(tree)
    index = tree / ".torchlint_cache" / sources.INDEX_NAME
    index.write_text(content)
    opened.clear()
    assert check(tree) == cold
    assert sorted(opened) == ["helpers.py", "model.py", "plain.py"]
    doc = json.loads(index.read_text())
    assert set(doc["files"]) == {str(tree / n) for n in ("helpers.py", "model.py", "plain.py")}


def test_texts_given_by_the_caller_win_over_the_disk(tree):
    path = str(tree / "helpers.py")
    given = sources.Sources(given={path: "x = 1\n"})
    assert given.text(path) == "x = 1\n" and given.known(path).lines == 2
    assert not given.known(path).candidate


def test_a_warm_check_reads_only_the_files_that_may_hold_a_suppression_comment(tree, monkeypatch):
    from torchlint import pipeline

    write(tree, "quiet.py", MODEL.replace("x.sum().item()", "x.sum().item()  # noqa: TL001"))
    read = []
    real = pipeline.read_source
    monkeypatch.setattr(pipeline, "read_source", lambda p: read.append(os.path.basename(p)) or real(p))

    def findings():
        out = pipeline.run_check(pipeline.CheckOptions(paths=["."], dynamic=False))
        return sorted((f.path, f.line, f.rule) for f in out.findings)

    cold = findings()
    assert ("model.py", 9, "TL001") in cold and not any(f[0] == "quiet.py" and f[2] == "TL001" for f in cold)
    read.clear()
    assert findings() == cold  # warm: the comment still silences its finding
    assert read == ["quiet.py"]  # the one file whose text may hold a comment
