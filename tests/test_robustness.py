"""Reliability: bad input, hostile code and fuzzing never crash torchlint or lose work.

Each odd file gets a one-line entry in ``errors`` or is checked normally, the rest of the run
goes on, the exit code follows the contract (2 when anything could not be checked) and no
traceback reaches the user. Hostile dynamic targets are each reported with their reason
while the others still run. Writes are atomic. Generated and mutated programs never make
the static pass raise, hang, or point at lines that do not exist.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from support import REPO, run_cli, run_json, write

from torchlint.config import _KEYS, TARGET_KEYS, ConfigError, load_settings
from torchlint.files import FileProblem, read_source, source_lines
from torchlint.static import limits as guard

HEAD = "import torch\nfrom torch import nn\n"
NET = "class Net(nn.Module):\n    def forward(self, x):\n        return x.item()\n"


def _load_fuzz():
    spec = importlib.util.spec_from_file_location("torchlint_fuzz", REPO / "benchmarks" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz = _load_fuzz()


def _findings_point_at_lines(report, root: Path) -> None:
    for f in report["findings"]:
        lines = source_lines(read_source(str(root / f["path"])))
        assert 1 <= f["line"] <= f["end_line"] <= len(lines), f


# -- static pass: odd files ---------------------------------------------------------------
def _odd_files(root: Path) -> dict:
    """name -> ("finding", line) | ("error", words) | ("clean", None)"""
    files = {
        "empty.py": (b"", ("clean", None)),
        "comments.py": (b"# import torch\n# nothing else\n", ("clean", None)),
        "bom.py": (b"\xef\xbb\xbf" + (HEAD + NET).encode(), ("finding", 5)),
        "crlf.py": ((HEAD + NET).replace("\n", "\r\n").encode(), ("finding", 5)),
        "lone_cr.py": ((HEAD + NET).replace("\n", "\r").encode(), ("finding", 5)),
        "tabs.py": ((HEAD + NET).replace("    ", "\t").encode(), ("finding", 5)),
        "form_feed.py": ((HEAD + "\x0c\n" + NET).encode(), ("finding", 6)),
        "latin1_cookie.py": (
            b"# -*- coding: latin-1 -*-\n" + HEAD.encode() + b"# caf\xe9\n" + NET.encode(),
            ("finding", 7),
        ),
        "latin1.py": (HEAD.encode() + b"# caf\xe9\n" + NET.encode(), ("error", "cannot decode line 3 as utf-8")),
        "nul.py": (HEAD.encode() + b"x = 1\x00\n", ("error", "binary file")),
        "binary.py": (bytes(range(256)) * 8, ("error", "binary file")),
        "big.py": ((HEAD + "".join(f"C{i} = {i}\n" for i in range(49_995)) + NET).encode(), ("finding", 50_000)),
        # 1,000 deep: CPython itself refuses brackets past 200, so that is the report ...
        "parens.py": (
            (HEAD + "@torch.compile\ndef f(x):\n    return " + "(" * 1000 + "x" + ")" * 1000 + "\n").encode(),
            ("error", "too many nested parentheses"),
        ),
        # ... while a 1,000-deep chain is valid Python and is checked like any other file,
        "chain.py": (
            (HEAD + "@torch.compile\ndef f(x):\n    return (" + "x + " * 1000 + "x).item()\n").encode(),
            ("finding", 5),
        ),
        # past what the parser can follow is a one-line error, never a stack overflow,
        "chain_2000.py": (
            (HEAD + "@torch.compile\ndef f(x):\n    return (" + "-" * 2000 + "x).item()\n").encode(),
            ("error", "levels deep"),
        ),
        "elif_3000.py": (
            (HEAD + "def f(x):\n    if x: pass\n" + "    elif x: pass\n" * 3000).encode(),
            ("error", "nested too deeply"),
        ),
        # even behind syntax this Python cannot parse (a newer one might).
        "newer_and_deep.py": (
            (HEAD + "type X = int\n" + "y = " + "(" * 3000 + "1" + ")" * 3000 + "\n").encode(),
            ("error", "nested"),
        ),
        "syntax_error.py": ((HEAD + NET + "def broken(:\n").encode(), ("error", "syntax error at line 6")),
    }
    for name, (data, _) in files.items():
        (root / name).write_bytes(data)
    os.symlink("nowhere.py", root / "broken_link.py")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.mkdir(root / "sub")
    os.symlink("..", root / "sub" / "up")  # a folder loop: walked once
    os.mkfifo(root / "fifo.py")  # reading it would block forever
    expected = {name: want for name, (_, want) in files.items()}
    expected.update(
        {
            "broken_link.py": ("error", "broken symbolic link (to nowhere.py)"),
            "loop_a.py": ("error", "symbolic link loop"),
            "loop_b.py": ("error", "symbolic link loop"),
            "fifo.py": ("error", "not a regular file (a named pipe)"),
        }
    )
    return expected


def test_odd_files_are_checked_or_reported_in_one_line(tmp_path):
    expected = _odd_files(tmp_path)
    proc = subprocess.run(  # a real process: a stack overflow would kill it, not the test run
        [sys.executable, "-m", "torchlint", "check", ".", "--format", "json", "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr  # some files could not be checked
    assert "Traceback" not in proc.stderr + proc.stdout
    report = json.loads(proc.stdout)
    errors = {e["path"]: e["message"] for e in report["errors"]}
    found = {}
    for f in report["findings"]:
        found.setdefault(f["path"], []).append(f["line"])
    for name, (kind, want) in expected.items():
        if kind == "error":
            assert want in errors.get(name, ""), (name, errors.get(name))
            assert "\n" not in errors[name]
        else:
            assert name not in errors, (name, errors[name])
            assert found.get(name, []) == ([want] if kind == "finding" else []), name
    assert set(errors) == {n for n, (k, _) in expected.items() if k == "error"}
    _findings_point_at_lines(report, tmp_path)


def test_a_missing_path_beside_odd_files_is_a_usage_error_before_any_work(tmp_path):
    _odd_files(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", ".", "missing.py", "--format", "json", "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""  # no report: nothing was checked
    assert proc.stderr.strip().splitlines() == ["torchlint: error: missing.py: no such file or directory"]


def test_python_312_syntax_is_checked_or_reported(project):
    write(
        project,
        "pep695.py",
        HEAD
        + """
        type Pair = tuple[int, int]
        class Net[T](nn.Module):
            def forward(self, x: T) -> T:
                return x.item()
        def first[T](items: list[T]) -> T:
            return items[0]
    """.replace("\n        ", "\n"),
    )
    write(
        project,
        "pep701.py",
        HEAD + 'class Net(nn.Module):\n    def forward(self, x):\n        return f"{f"{x.item()}"}"\n',
    )
    code, report = run_json(["check", "pep695.py", "pep701.py", "--no-cache"])
    errors = {e["path"]: e["message"] for e in report["errors"]}
    lines = {f["path"]: f["line"] for f in report["findings"]}
    assert "pep695.py" not in errors and lines["pep695.py"] == 7
    # Either parsed (the finding is on line 5) or one clear line, never a crash.
    assert lines.get("pep701.py") == 5 or "\n" not in errors["pep701.py"]
    assert code in (1, 2) and (code == 2) == bool(errors)


def test_unreadable_file(project):
    write(project, "good.py", HEAD + NET)
    secret = write(project, "secret.py", HEAD + NET)
    secret.chmod(0)
    try:
        if os.access(secret, os.R_OK):  # root reads anything: say so rather than pass quietly
            pytest.skip("running as root: permissions do not stop reads (the mapping is tested below)")
        code, report = run_json(["check", ".", "--no-cache"])
    finally:
        secret.chmod(0o644)
    assert code == 2
    assert report["errors"] == [{"path": "secret.py", "message": "permission denied"}]
    assert [f["path"] for f in report["findings"]] == ["good.py"]


def test_permission_error_becomes_one_line(project, monkeypatch):
    target = write(project, "model.py", HEAD + NET)

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr("torchlint.files.os.open", refuse)
    with pytest.raises(FileProblem, match="^permission denied$"):
        read_source(str(target))


def test_unlistable_folder_is_one_line(project, monkeypatch):
    from torchlint.files import discover

    write(project, "pkg/model.py", HEAD + NET)
    real_walk = os.walk

    def walk(top, **kwargs):  # root lists anything, so refuse the way the kernel would
        kwargs["onerror"](PermissionError(13, "Permission denied", os.path.join(top, "private")))
        yield from real_walk(top, **kwargs)

    monkeypatch.setattr("torchlint.files.os.walk", walk)
    files, problems = discover(["pkg"], [], str(project))
    assert files == [os.path.join("pkg", "model.py")]
    assert problems == [(os.path.join("pkg", "private"), "cannot list folder: permission denied")]


def test_huge_file_is_not_read(project, monkeypatch):
    monkeypatch.setattr("torchlint.files.MAX_FILE_BYTES", 1024)
    write(project, "big.py", HEAD + "# " + "x" * 2000 + "\n" + NET)
    write(project, "small.py", HEAD + NET)
    code, report = run_json(["check", ".", "--no-cache"])
    assert code == 2
    assert report["errors"][0]["path"] == "big.py"
    assert "torchlint checks files up to" in report["errors"][0]["message"]
    assert [f["path"] for f in report["findings"]] == ["small.py"]


def test_the_users_warnings_are_not_printed(recwarn):
    from torchlint.static.lint import lint_file

    warnings.simplefilter("always")
    result = lint_file("w.py", HEAD + 'PATTERN = "\\d+"\nCALL = "abc"(1)\n' + NET, fuzz.rules())
    assert [f.line for f in result.findings] == [7] and result.error is None
    broken = lint_file("w.py", HEAD + 'PATTERN = "\\d+"\ndef broken(:\n', fuzz.rules())
    assert broken.error.startswith("syntax error at line 4")
    assert [str(w.message) for w in recwarn] == []


def test_form_feed_does_not_shift_lines(project):
    """``str.splitlines`` splits at a form feed, Python does not: suppressions and the
    source line shown must still match the finding's line."""
    write(
        project,
        "ff.py",
        HEAD + "\x0c\n" + "class Net(nn.Module):\n    def forward(self, x):\n"
        "        y = x.item()  # torchlint: ignore[TL001]\n        return float(x.sum())\n",
    )
    code, report = run_json(["check", "ff.py", "--no-cache"])
    assert [(f["rule"], f["line"]) for f in report["findings"]] == [("TL002", 7)]
    assert source_lines("a\x0cb\r\nc\rd\u2028e\n") == ["a\x0cb", "c", "d\u2028e"]


def test_a_bug_in_a_rule_is_one_line_and_the_rest_is_checked(project, monkeypatch):
    import torchlint.static.engine as engine

    real = engine.lint_module

    def buggy(module, path, *args, **kwargs):
        if path.endswith("bad.py"):
            raise KeyError("rule state")
        return real(module, path, *args, **kwargs)

    monkeypatch.setattr(engine, "lint_module", buggy)
    write(project, "bad.py", HEAD + NET)
    write(project, "good.py", HEAD + NET)
    result = run_cli(["check", ".", "--no-cache", "--format", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 2
    assert report["errors"][0]["path"] == "bad.py"
    assert report["errors"][0]["message"].startswith(
        "internal error in torchlint while checking this file (KeyError: 'rule state'); run with -v"
    )
    assert [f["path"] for f in report["findings"]] == ["good.py"]
    assert "Traceback" not in result.stderr
    debug = run_cli(["check", ".", "--no-cache", "--debug"])
    assert "Traceback" in debug.stderr and "KeyError: 'rule state'" in debug.stderr


def test_a_bug_in_a_rule_leaves_that_file_unfixed_and_fixes_the_rest(project, monkeypatch):
    # the fixes lint through the same guarded entry as the check: one line, not a crash
    import torchlint.static.engine as engine

    real = engine.lint_module

    def buggy(module, path, *args, **kwargs):
        if path.endswith("bad.py"):
            raise KeyError("rule state")
        return real(module, path, *args, **kwargs)

    monkeypatch.setattr(engine, "lint_module", buggy)
    printing = HEAD + "class Net(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x * 2\n"
    write(project, "bad.py", printing)
    write(project, "good.py", printing)
    result = run_cli(["check", ".", "--no-cache", "--fix", "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2
    assert json.loads(result.stdout)["errors"][0]["path"] == "bad.py"
    assert (project / "bad.py").read_text() == printing
    assert "if not torch.compiler.is_compiling():" in (project / "good.py").read_text()


def test_time_limit_stops_a_file_that_never_ends(project, monkeypatch):
    import torchlint.static.engine as engine

    real = engine.lint_module

    def endless(module, path, *args, **kwargs):
        if path.endswith("slow.py"):
            while True:
                pass
        return real(module, path, *args, **kwargs)

    monkeypatch.setattr(engine, "lint_module", endless)
    monkeypatch.setattr(guard, "FILE_TIME_LIMIT", 0.5)
    write(project, "slow.py", HEAD + NET)
    write(project, "fine.py", HEAD + NET)
    started = time.monotonic()
    code, report = run_json(["check", ".", "--no-cache"])
    assert time.monotonic() - started < 10
    assert code == 2
    assert report["errors"] == [
        {
            "path": "slow.py",
            "message": "analysis stopped after 0.5 s (the file is too large or too complex); not checked",
        }
    ]
    assert [f["path"] for f in report["findings"]] == ["fine.py"]


def test_without_a_big_stack_deep_code_is_one_line(monkeypatch):
    """Where no big-stack thread can start (a tight ``ulimit -v``), files are linted in the
    caller's thread at the usual recursion limit: deep ones become one line, not a crash."""
    from torchlint.static.lint import lint_file

    monkeypatch.setattr(guard, "STACK_SIZE", 1)  # threading refuses it
    assert lint_file("ok.py", HEAD + NET, fuzz.rules()).findings[0].line == 5
    deep = lint_file(
        "deep.py", HEAD + "@torch.compile\ndef f(x):\n    return (" + "x + " * 1000 + "x).item()\n", fuzz.rules()
    )
    assert deep.findings == [] and deep.error == "code nested too deeply to analyse"
    assert sys.getrecursionlimit() < guard.RECURSION_LIMIT


def test_static_mode_executes_nothing(project):
    victim = project / "victim.txt"
    victim.write_text("still here")
    write(
        project,
        "evil.py",
        f"""
        import ctypes, os, sys, torch
        os.remove({str(victim)!r})
        ctypes.string_at(0)
        os._exit(3)
        class Net(torch.nn.Module):
            os.remove({str(victim)!r})
            def forward(self, x):
                return x.item()
    """,
    )
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "evil.py", "--format", "json", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert victim.read_text() == "still here"
    assert [f["rule"] for f in json.loads(proc.stdout)["findings"]] == ["TL001"]


# -- config: every key validated ------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(_KEYS))
def test_every_config_key_is_validated(tmp_path, key):
    value = '{"*.py" = 3}' if key == "per-file-ignores" else "{ wrong = 1 }"
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.torchlint]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    message = str(info.value)
    assert str(path) in message and key in message and "expected" in message and "\n" not in message


@pytest.mark.parametrize("key", sorted(set(TARGET_KEYS) - {"target"}))
def test_every_target_key_is_validated(tmp_path, key):
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[[tool.torchlint.targets]]\ntarget = 'm.py:Net'\n{key} = {{ wrong = 1 }}\n")
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    message = str(info.value)
    assert str(path) in message and key in message and "expected" in message


@pytest.mark.parametrize(
    "value, words",
    [
        ('"lots"', 'expected a size such as "8G"'),
        ("4096", 'expected a size such as "8G"'),
        ('"1K"', "too small"),
    ],
)
def test_max_memory_values(project, value, words):
    write(project, "pyproject.toml", f"[tool.torchlint]\nmax-memory = {value}\n")
    write(project, "model.py", HEAD + NET)
    result = run_cli(["check"])
    assert result.exit_code == 2 and words in result.stderr and "max-memory" in result.stderr
    _write_toml(project, 'select = ["TL0"]')
    flag = run_cli(["check", "--max-memory", "12 parsecs"])
    assert flag.exit_code == 2 and "--max-memory: expected a size" in flag.stderr
    assert load_settings(str(_write_toml(project, 'max-memory = "1.5G"'))).max_memory == 3 << 29
    assert load_settings(str(_write_toml(project, 'max-memory = "none"'))).max_memory == 0


def _write_toml(root: Path, body: str) -> Path:
    path = root / "pyproject.toml"
    path.write_text(f"[tool.torchlint]\n{body}\n")
    return path


# -- writes are atomic ----------------------------------------------------------------------
def _fail_mid_write(monkeypatch, exc: OSError | None = None):
    """The temporary file is written, then the disk 'fills' before it replaces the target."""
    exc = exc or OSError(28, "No space left on device")

    def fsync(fd):
        raise exc

    monkeypatch.setattr("torchlint.atomic.os.fsync", fsync)


def _leftovers(root: Path):
    return [p.name for p in root.rglob(".torchlint-*")]


def test_interrupted_report_keeps_the_old_one(project, monkeypatch):
    write(project, "model.py", HEAD + NET)
    old = project / "report.json"
    old.write_text("previous report")
    _fail_mid_write(monkeypatch)
    result = run_cli(["check", "model.py", "-o", "report.json", "--format", "json", "--no-cache"])
    assert result.exit_code == 2
    assert "report.json: cannot write report: No space left on device" in result.stderr
    assert old.read_text() == "previous report" and _leftovers(project) == []


def test_interrupted_baseline_keeps_the_old_one(project, monkeypatch):
    write(project, "model.py", HEAD + NET)
    old = project / "torchlint-baseline.json"
    old.write_text('{"previous": true}')
    _fail_mid_write(monkeypatch)
    result = run_cli(["baseline", "model.py", "--max-memory", "1G"])
    assert result.exit_code == 2 and "cannot write baseline" in result.stderr
    assert old.read_text() == '{"previous": true}' and _leftovers(project) == []


def test_interrupted_fix_keeps_the_source(project, monkeypatch):
    source = HEAD + "class Net(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
    model = write(project, "model.py", source)
    with monkeypatch.context() as patch:
        _fail_mid_write(patch)
        result = run_cli(["check", "model.py", "--fix", "--no-cache"])
    assert result.exit_code == 2 and "Fixed" not in result.stderr
    assert "model.py: error: cannot write the fixed file: No space left on device" in result.stdout
    assert model.read_text() == source and _leftovers(project) == []
    # the same run with a working disk does rewrite the file
    assert run_cli(["check", "model.py", "--fix", "--no-cache"]).exit_code == 0
    assert "is_compiling()" in model.read_text()


def test_ctrl_c_mid_write_and_symlinks(tmp_path, monkeypatch):
    from torchlint.atomic import write_text_atomic

    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    write_text_atomic(str(link), "new")
    assert link.is_symlink() and real.read_text() == "new"  # the link is kept, its file updated
    _fail_mid_write(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(str(real), "newer")
    assert real.read_text() == "new" and _leftovers(tmp_path) == []


def test_every_write_goes_through_the_atomic_writer():
    """No module opens a user's file for writing by itself (the cache writes its own
    temporary files and renames them; the snippet runner writes into a fresh temp dir)."""
    allowed = {
        "atomic.py",
        "static/cache.py",
        "dynamic/observe.py",
        "dynamic/worker.py",
        "verify.py",
    }  # reopens stdout; writes to os.devnull
    pattern = re.compile(r"(?<![\w.])open\([^)]*['\"][wax]b?\+?['\"]|\.write_text\(|\.write_bytes\(")
    offenders = []
    for path in (REPO / "torchlint").rglob("*.py"):
        rel = path.relative_to(REPO / "torchlint").as_posix()
        if rel not in allowed and pattern.search(path.read_text("utf-8")):
            offenders.append(rel)
    assert offenders == []


# -- dynamic pass: hostile targets ----------------------------------------------------------
HOSTILE = """
import ctypes, os, sys
import torch
from torch import nn


class InitRaises(nn.Module):
    def __init__(self):
        super().__init__()
        raise RuntimeError("bad weights")


class ForwardRaises(nn.Module):
    def forward(self, x):
        raise KeyError("missing")


def exits(x):
    sys.exit(4)


def hard_exit(x):
    os._exit(9)


def segfault(x):
    ctypes.string_at(0)


def spins(x):
    while True:
        pass


def hog(x):
    blocks = []
    while True:
        blocks.append(bytearray(64 << 20))


def floods(x):
    line = "x" * 1023 + "\\n"
    for _ in range(2048):
        sys.stdout.write(line)
        sys.stderr.write(line)
    os.write(1, b"y" * (2 << 20))
    return x + 1


def wanders(x):
    os.chdir("/")
    sys.path.insert(0, "/nowhere")
    return x + 1


def closes_stdout(x):
    sys.stdout.close()
    return x + 1


def uses_layers(x):
    import layers  # this folder's layers.py; other/net.py must get its own
    return x + layers.VALUE


def fine(x):
    return torch.relu(x) * 2
"""


@pytest.mark.parametrize(
    "raised, said",
    [
        ("raised MemoryError (at m.py:3)", "ran out of memory (over --max-memory 1 GiB): MemoryError (at m.py:3)"),
        (
            "raised RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate "
            "1099511627776 bytes. Error code 12 (at m.py:4)",
            "ran out of memory (over --max-memory 1 GiB): tried to allocate 1 TiB (at m.py:4)",
        ),
        (
            "raised OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (at m.py:5)",
            "ran out of GPU memory (over --max-memory 1 GiB): tried to allocate 2.00 GiB (at m.py:5)",
        ),
        (
            "target 'm.py:Net': building it raised MemoryError: ",
            "target 'm.py:Net': ran out of memory (over --max-memory 1 GiB): MemoryError",
        ),
    ],
)
def test_out_of_memory_is_said_plainly_and_recycles_the_worker(raised, said):
    from torchlint.dynamic.answer import Answer
    from torchlint.dynamic.worker import _out_of_memory

    answer = Answer(error=raised)
    _out_of_memory(answer, 1 << 30)
    assert answer == Answer(error=said, recycle=True)
    other = Answer(error="raised ValueError: bad shape")
    _out_of_memory(other, 1 << 30)
    assert other == Answer(error="raised ValueError: bad shape")


@pytest.mark.dynamo
def test_hostile_targets_are_each_reported_and_the_rest_still_run(tmp_path):
    pytest.importorskip("torch")
    write(tmp_path, "hostile.py", HOSTILE)
    write(tmp_path, "import_raises.py", "raise ImportError('no such backend')\n")
    write(tmp_path, "reads_relative.py", "open('data.txt').read()\ndef f(x):\n    return x + 1\n")
    write(tmp_path, "data.txt", "data\n")
    write(tmp_path, "layers.py", "VALUE = 1\n")
    write(tmp_path, "other/layers.py", "VALUE = 100\n")
    write(
        tmp_path,
        "other/net.py",
        "def f(x):\n    import layers\n    assert layers.VALUE == 100, layers.__file__\n    return x + layers.VALUE\n",
    )
    names = [
        "InitRaises",
        "ForwardRaises",
        "exits",
        "hard_exit",
        "floods",
        "segfault",
        "wanders",
        "spins",
        "hog",
        "closes_stdout",
        "uses_layers",
        "fine",
    ]
    args = [
        "check",
        "--no-static",
        "--format",
        "json",
        "--timeout",
        "5",
        "--max-memory",
        "512M",
        "--input",
        "f32[2]",
        "--target",
        "import_raises.py:f",
        "--target",
        "reads_relative.py:f",
    ]
    for name in names:
        args += ["--target", f"hostile.py:{name}"]
    args += ["--target", "other/net.py:f"]
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", *args], cwd=tmp_path, capture_output=True, text=True, timeout=400
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "xxxx" not in proc.stderr and "yyyy" not in proc.stderr
    report = json.loads(proc.stdout)  # the floods never reach (or garble) the report
    got = {t["target"].split(":")[1]: t["error"] for t in report["targets"] if t["target"].startswith("hostile")}
    forward_line = HOSTILE.lstrip("\n").splitlines().index('        raise KeyError("missing")') + 1
    expected = {
        "InitRaises": "building it raised RuntimeError: bad weights",
        "ForwardRaises": f"raised KeyError: 'missing' (at hostile.py:{forward_line})",
        "exits": "the target called sys.exit(4)",
        "hard_exit": "exited with status 9",
        "segfault": "SIGSEGV",
        "spins": "timed out after 5 s",
        "hog": "ran out of memory (over --max-memory 512 MiB): MemoryError (at hostile.py:",
    }
    for name, words in expected.items():
        assert words in (got[name] or ""), (name, got[name])
    for name in ("floods", "wanders", "uses_layers", "fine"):  # floods, a chdir: no harm
        assert got[name] is None, (name, got[name])
    other = next(t for t in report["targets"] if t["target"] == "other/net.py:f")
    assert other["error"] is None  # its own layers.py, not the one imported before
    import_error = next(t["error"] for t in report["targets"] if t["target"] == "import_raises.py:f")
    assert "cannot import" in import_error and "ImportError: no such backend" in import_error
    relative = next(t for t in report["targets"] if t["target"] == "reads_relative.py:f")
    assert relative["error"] is None  # run from the project folder although `wanders` left it
    assert all("\n" not in e["message"] for e in report["errors"])
    assert len(report["errors"]) == 8 + (got["closes_stdout"] is not None)
    fine = next(t for t in report["targets"] if t["target"] == "hostile.py:fine")
    assert fine["graphs"] == 1 and fine["graph_breaks"] == 0
    assert time.monotonic() - started < 300


@pytest.mark.dynamo
def test_an_error_dynamo_raises_while_tracing_names_the_line_it_was_tracing(tmp_path, monkeypatch):
    """Out of memory inside dynamo (torch 2.15 folds ``bytearray(n)`` at trace time) can come
    out without dynamo's user stack when its own error handling runs out too: the user's line
    is then the one dynamo's instruction translator stood on."""
    torch = pytest.importorskip("torch")
    import importlib

    from torchlint.dynamic.worker import _user_line

    write(tmp_path, "deep.py", "def f(x):\n    y = x + 1\n    z = y * 2  # here\n    return z - 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    deep = importlib.import_module("deep")
    path = os.path.realpath(str(tmp_path / "deep.py"))
    translator = torch._dynamo.symbolic_convert.InstructionTranslatorBase
    step = translator.step

    def step_until_the_marked_line(self):
        if os.path.realpath(self.f_code.co_filename) == path and self.lineno == 3:
            raise MemoryError
        return step(self)

    monkeypatch.setattr(translator, "step", step_until_the_marked_line)
    torch._dynamo.reset()
    with pytest.raises(Exception) as info:
        torch.compile(deep.f, backend="eager")(torch.ones(2))
    torch._dynamo.reset()
    error = info.value
    assert _user_line(error, {path}) == " (at deep.py:3)"
    chain, e = [], error
    while e is not None and e not in chain:
        chain.append(e)
        e = e.__cause__ or e.__context__
    assert any(isinstance(c, MemoryError) for c in chain)
    for c in chain:  # as when dynamo's handler ran out before it could attach the user stack
        if hasattr(c, "real_stack"):
            c.real_stack = None
    assert _user_line(error, {path}) == " (at deep.py:3)"
    assert _user_line(error, {os.path.realpath(str(tmp_path / "other.py"))}) == ""


# -- fuzzing --------------------------------------------------------------------------------
def _fuzz_settings(n):
    from hypothesis import HealthCheck, Phase, settings

    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind, n, seed", [("grammar", 1000, 1), ("grammar", 1000, 2), ("node", 100, 3)])
def test_generated_programs_never_break_the_static_pass(kind, n, seed):
    """2,100 generated valid programs, as the body of a forward and of a compiled function
    (two halves, so that parallel test runs share them; libcst-node programs are four times
    slower to generate, so fewer)."""
    hypothesmith = pytest.importorskip("hypothesmith", reason="pip install hypothesmith (the test extra)")
    import hypothesis
    from hypothesis import given

    strategy = hypothesmith.from_grammar() if kind == "grammar" else hypothesmith.from_node()
    seen = []

    @hypothesis.seed(seed)
    @_fuzz_settings(n)
    @given(strategy)
    def check(program):
        seen.append(1)
        problem = fuzz.violation(fuzz.wrap(program).encode("utf-8", "surrogatepass"))
        assert problem is None, f"{problem}\n--- program ---\n{program}"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # hypothesmith's compile() checks
        check()
    assert len(seen) >= n


def test_mutated_real_files_never_break_the_static_pass():
    """Fixture models truncated, spliced, overwritten with random bytes, cut, shuffled."""
    pytest.importorskip("hypothesis")
    import random

    from hypothesis import given
    from hypothesis import strategies as st

    pool = fuzz.corpus()
    assert len(pool) >= 5

    @_fuzz_settings(600)
    @given(st.integers(0, 2**32 - 1))
    def check(seed):
        rng = random.Random(seed)
        data = fuzz.mutate(rng.choice(pool), rng, pool)
        problem = fuzz.violation(data)
        assert problem is None, f"{problem}\n--- input ---\n{data!r}"

    check()
    # and the invariants are not vacuous: real files do produce findings that get checked
    report = [fuzz.violation(data) for data in pool]
    assert report == [None] * len(pool)
