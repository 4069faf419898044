"""What a terminal shows and a pipe does not: the progress bar on stderr (text reports of long
runs only) and `torchlint rule CODE` rendered with rich (the raw Markdown page otherwise)."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys

import pytest
from support import run_cli

from torchlint.output.progress import MIN_FILES, ProgressBar, progress_for
from torchlint.pages import page

MODEL = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.sum().item()\n"


def run_on_pty(args, cwd, *, tty_stream):
    """`torchlint ARGS` with stderr (or stdout) on a pseudo-terminal; returns (rc, stdout, stderr)."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("CI", None)
    env.pop("NO_COLOR", None)
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, tty_stream: slave}
    proc = subprocess.Popen([sys.executable, "-m", "torchlint", *args], cwd=cwd, env=env, **pipes)
    os.close(slave)
    pipe = proc.stdout if tty_stream == "stderr" else proc.stderr
    got = {master: b"", pipe.fileno(): b""}
    open_fds = set(got)
    while open_fds:  # drain both while the process runs, or it blocks on a full buffer
        ready, _, _ = select.select(list(open_fds), [], [], 1.0)
        for fd in ready:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # EIO: the process closed its terminal
                chunk = b""
            if chunk:
                got[fd] += chunk
            else:
                open_fds.discard(fd)
        if not ready and proc.poll() is not None:
            break
    os.close(master)
    proc.wait(timeout=60)
    tty = got[master].decode("utf-8", "replace")
    text = got[pipe.fileno()].decode("utf-8", "replace")
    return (proc.returncode, text, tty) if tty_stream == "stderr" else (proc.returncode, tty, text)


@pytest.fixture
def many_files(tmp_path):
    for i in range(MIN_FILES + 5):
        (tmp_path / f"m{i}.py").write_text(MODEL, encoding="utf-8")
    return tmp_path


def test_bar_on_a_terminal_for_text_reports_only(many_files):
    rc, out, err = run_on_pty(["check", ".", "--format", "text"], many_files, tty_stream="stderr")
    assert rc == 1 and f"in {MIN_FILES + 5} files" in out
    assert "checking files" in err and f"/{MIN_FILES + 5}" in err
    assert "\x1b[" not in out  # the report itself stays plain on a pipe
    rc, out, err = run_on_pty(["check", ".", "--format", "json"], many_files, tty_stream="stderr")
    assert rc == 1 and out.startswith("{") and err == ""
    assert run_on_pty(["check", ".", "--format", "github"], many_files, tty_stream="stderr")[2] == ""


def test_no_bar_on_a_pipe(many_files):
    result = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "."], cwd=many_files, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and result.stderr == ""


def test_bar_only_for_long_steps():
    bar = ProgressBar(io.StringIO())
    assert bar.stage("static", MIN_FILES - 1) is None
    assert bar.stage("dynamo", 1) is None
    advance = bar.stage("dynamo", 3)
    assert advance is not None
    bar("dynamo: running model.py:Net")
    advance(1)
    bar.close()
    assert progress_for("json", verbose=False, stream=io.StringIO()) is None
    assert progress_for("text", verbose=False, stream=io.StringIO()) is None  # not a terminal
    lines = io.StringIO()
    progress_for("json", verbose=True, stream=lines)("dynamo: running model.py:Net")
    assert lines.getvalue() == "dynamo: running model.py:Net\n"  # -v: plain lines, any format


def test_rule_page_rendered_on_a_terminal_raw_on_a_pipe(tmp_path):
    raw = page("TL001").text
    assert run_cli(["rule", "TL001"]).stdout == raw.rstrip("\n") + "\n"
    rc, out, _ = run_on_pty(["rule", "TL001"], tmp_path, tty_stream="stdout")
    assert rc == 0
    assert "\x1b[" in out  # styled
    assert "```" not in out and "## What it does" not in out  # Markdown rendered, not echoed
    assert "What it does" in out and ".item()" in out


def test_a_target_line_counts_break_hits_and_sites():
    import io
    from types import SimpleNamespace

    from torchlint.findings import Report, TargetResult
    from torchlint.output.text import render

    def line(**kw):
        report = Report(dynamic_ran=True, targets=[TargetResult("m.py:Net", graphs=5, **kw)])
        out = io.StringIO()
        render(
            report,
            out,
            options=SimpleNamespace(color=False, quiet=False, statistics=False, unsafe_fixable=0, unsafe_fixes=False),
        )
        return out.getvalue().splitlines()[0]

    assert "2 graph-break sites, 4 breaks hit, 5 graphs, 0 recompiles" in line(graph_breaks=2, graph_break_hits=4)
    assert "1 graph-break site, 1 break hit, 5 graphs, 0 recompiles" in line(graph_breaks=1, graph_break_hits=1)


def test_a_recompile_limit_hit_is_labelled_by_the_break_on_its_line_not_as_unpredicted():
    import io
    from types import SimpleNamespace

    from torchlint.findings import Finding, Report
    from torchlint.output.text import render

    def status(*extra):
        limit = Finding(
            rule=None,
            name="recompile-limit",
            path="m.py",
            line=7,
            column=1,
            end_line=7,
            end_column=1,
            message="RECOMPILE LIMIT HIT",
            suggestion="",
            source="dynamic",
        )
        report = Report(dynamic_ran=True, findings=[limit, *extra])
        out = io.StringIO()
        options = SimpleNamespace(color=False, quiet=False, statistics=False, unsafe_fixable=0, unsafe_fixes=False)
        render(report, out, options=options)
        return next(line for line in out.getvalue().splitlines() if line.startswith("m.py:7:1:"))

    item = Finding(
        rule="TL001",
        name="tensor-item",
        path="m.py",
        line=7,
        column=17,
        end_line=7,
        end_column=30,
        message=".item()",
        suggestion="",
        source="both",
    )
    assert status(item).endswith("(found by dynamo, recompile limit, at the graph break TL001 flags)")
    assert status().endswith("(found by dynamo, recompile limit)")
    assert "no rule predicted it" not in status()
