"""Regenerate the reports shown in README.md and docs/ from real runs, so they cannot drift.

A report is the fenced block after a marker ``<!-- report: NAME -->`` in README.md or a page
under docs/. The block is a shell session: ``$ COMMAND``, what it prints (an abridged report
keeps the findings named in ``REPORTS``, then everything after the last finding, exactly as
printed), then ``$ echo $?`` and the exit code. This script runs each block's own command from
the repository root and either rewrites the output and exit code (``--write``) or says where a
block differs (``--check``, the default; exit 1 on a difference). Seconds in target lines,
measured costs and the ranking they make vary from run to run: they are compared masked.

    python benchmarks/readme_reports.py              # check every report (about 2 minutes on 2 cores)
    python benchmarks/readme_reports.py --static     # only those that need no torch (seconds)
    python benchmarks/readme_reports.py --write      # regenerate them

The CUDA-graph report in docs/cuda-graphs.md needs a CUDA GPU: it carries no marker and says
it was measured on one.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: the torch (major.minor) the reports with the dynamic pass come from: the one CI runs. Other
#: versions count graphs and name some breaks differently (benchmarks/torch_matrix.py measures that).
TORCH = "2.13"
_MARKER = re.compile(r"<!--\s*report:\s*([\w-]+)\s*-->\s*\n```[a-z]*\n(.*?)```", re.S)
#: the seconds a target took, at the end of its line's parentheses: ``(2.1 s)``, ``(eval, ..., 2.1 s)``
_SECONDS = re.compile(r"(?<=[(, ])\d+(?:\.\d+)? s\)")
_EXIT = "$ echo $?"


@dataclass(frozen=True)
class Report:
    """What a report block shows of its command's output."""

    #: keep only the findings whose first line starts with one of these (None: every finding)
    keep: tuple[str, ...] | None = None
    #: whether the command runs the dynamic pass (needs torch, minutes; its counts are torch 2.13's)
    dynamic: bool = False


#: every report the docs show, by marker name
REPORTS: dict[str, Report] = {
    "fixtures": Report(keep=("fixtures/cnn_item_branch.py:41:", "fixtures/transformer_block.py:65:"), dynamic=True),
    "static-fixtures": Report(keep=("fixtures/cnn_item_branch.py:41:",)),
    "static-statistics": Report(),
}


def doc_files() -> list[Path]:
    """README.md and every page of the docs site (the rule pages included)."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


@dataclass
class Block:
    name: str
    path: Path
    command: str
    shown: str
    exit_code: int
    start: int  # where the block's body starts and ends in its file
    end: int


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def parse(name: str, path: Path, body: str, start: int, end: int) -> Block:
    """A report block: ``$ COMMAND``, the output, ``$ echo $?``, the exit code."""
    lines = body.rstrip("\n").split("\n")
    if len(lines) < 3 or not lines[0].startswith("$ ") or lines[-2] != _EXIT or not lines[-1].isdigit():
        raise SystemExit(f"{_rel(path)}: report {name!r} must be `$ COMMAND`, its output, `{_EXIT}` and the exit code")
    return Block(name, path, lines[0][2:], "\n".join(lines[1:-2]) + "\n", int(lines[-1]), start, end)


def blocks(files: Sequence[Path] | None = None) -> list[Block]:
    out = []
    for path in files or doc_files():
        text = path.read_text("utf-8")
        for m in _MARKER.finditer(text):
            out.append(parse(m.group(1), path, m.group(2), m.start(2), m.end(2)))
    return out


def run(block: Block) -> tuple[str, int]:
    """What the block's command prints (stdout, abridged as registered) and its exit code."""
    argv = shlex.split(block.command)
    if argv[0] != "torchlint":
        raise SystemExit(f"{_rel(block.path)}: report {block.name!r} does not run torchlint")
    exe = os.path.join(os.path.dirname(sys.executable), "torchlint")
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    done = subprocess.run([exe, *argv[1:]], cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
    return abridge(done.stdout, REPORTS[block.name].keep), done.returncode


def abridge(out: str, keep: Sequence[str] | None) -> str:
    """The findings ``keep`` names (blocks up to a blank line), then everything after the
    last finding (errors, target lines, summary)."""
    if keep is None:
        return out.strip("\n") + "\n"
    lines = out.splitlines()
    found: list[list[str]] = []
    rest: list[str] = []
    current: list[str] | None = None
    finding = re.compile(r"^\S+(?::cell \d+)?:\d+:\d+: ")  # a notebook finding names its cell
    for line in lines:
        if finding.match(line):
            current = [line]
            found.append(current)
        elif current is not None and line.strip():
            if line.startswith(" "):
                current.append(line)
            else:  # the first line after the findings
                current = None
                rest.append(line)
        elif current is not None:
            current = None
        elif line.strip() or rest:
            rest.append(line)
    shown = [b for b in found if any(b[0].startswith(k) for k in keep)]
    text = "\n\n".join("\n".join(b) for b in shown)
    return (text + "\n\n" if text else "") + "\n".join(rest).strip("\n") + "\n"


#: measured timings (``cost_ms`` and the frames' figures) and the ranking they make
_TIMINGS = re.compile(r"\d+(?:\.\d+)?(?:e-?\d+)? (?:ms|µs)\b")
_SHARE = re.compile(r"\(\d+% of")
_RANKED = re.compile(r"^(\s*)(fix this first|then): \S+:\d+,", re.M)


def masked(text: str) -> str:
    """``text`` with what varies from run to run masked: seconds, timings, cost shares, and
    which break the timings rank first."""
    text = _SECONDS.sub("… s)", text)
    text = _TIMINGS.sub("… ms", text)  # (a figure may be shown in µs one run, in ms the next)
    text = _SHARE.sub("(…% of", text)
    return _RANKED.sub(r"\1\2: …,", text)


def body(block: Block, shown: str, exit_code: int) -> str:
    return f"$ {block.command}\n{shown}{_EXIT}\n{exit_code}\n"


def check_registry(found: Sequence[Block]) -> list[str]:
    """Problems: a block with no entry in REPORTS, an entry with no block, a name used twice."""
    names = [b.name for b in found]
    problems = [f"{_rel(b.path)}: report {b.name!r} is not in REPORTS" for b in found if b.name not in REPORTS]
    problems += [f"report {n!r} is in REPORTS but in no page" for n in REPORTS if n not in names]
    problems += [f"report {n!r} appears {names.count(n)} times" for n in sorted(set(names)) if names.count(n) > 1]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the reports from real runs")
    ap.add_argument("--static", action="store_true", help="only the reports without the dynamic pass")
    ap.add_argument("--dynamic", action="store_true", help="only the reports with the dynamic pass")
    ap.add_argument("names", nargs="*", help="reports to do (default: all)")
    args = ap.parse_args(argv)
    found = blocks()
    problems = check_registry(found)
    if problems:
        print("\n".join(problems))
        return 1
    drift = 0
    edits: dict[Path, list[tuple[int, int, str]]] = {}
    for block in found:
        spec = REPORTS[block.name]
        if (
            (args.names and block.name not in args.names)
            or (args.static and spec.dynamic)
            or (args.dynamic and not spec.dynamic)
        ):
            continue
        shown, code = run(block)
        where = f"{_rel(block.path)}: {block.name}"
        if args.write:
            edits.setdefault(block.path, []).append((block.start, block.end, body(block, shown, code)))
            print(f"{where}: regenerated")
        elif masked(block.shown) != masked(shown) or block.exit_code != code:
            drift += 1
            diff = difflib.unified_diff(
                masked(body(block, block.shown, block.exit_code)).splitlines(),
                masked(body(block, shown, code)).splitlines(),
                "the page",
                "a real run",
                lineterm="",
            )
            print(f"{where}: differs from a real run:\n" + "\n".join(diff))
        else:
            print(f"{where}: matches a real run")
    if edits:
        sys.path.insert(0, str(REPO))
        from torchlint.atomic import write_text_atomic

        for path, changes in edits.items():
            text = path.read_text("utf-8")
            for start, end, new in sorted(changes, reverse=True):
                text = text[:start] + new + text[end:]
            write_text_atomic(str(path), text)
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
