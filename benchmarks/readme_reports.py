"""Regenerate the reports pasted in README.md from real runs, so they cannot drift.

Each report in the README follows a marker ``<!-- report: NAME -->`` and is the fenced block
after it. This script runs each report's command (a real ``torchlint check``), keeps the
parts the README shows (an abridged report keeps the findings it names, then every target
line and the summary, exactly as printed) and either rewrites the README (``--write``) or
says where it differs (``--check``, the default; exit 1 on a difference). Seconds in target
lines vary from run to run and machine to machine: ``--check`` compares them masked.

    python benchmarks/readme_reports.py            # check (about 2 minutes on 2 cores)
    python benchmarks/readme_reports.py --write    # regenerate the README's reports

The CUDA-graph report (``--mode reduce-overhead``) needs a CUDA GPU and is not among them:
it is marked in the README as measured on one.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
#: the torch (major.minor) the README's reports come from: the one CI runs. Other versions
#: count graphs and name some breaks differently (benchmarks/torch_matrix.py measures that).
TORCH = "2.13"
_BLOCK = r"(<!--\s*report:\s*{name}\s*-->\s*\n```[a-z]*\n)(.*?)(```)"
_SECONDS = re.compile(r"\(\d+(?:\.\d+)? s\)")


@dataclass
class Report:
    name: str
    #: the command as the README shows it (run from the repository root)
    command: list[str]
    #: keep only the findings whose first line starts with one of these (None: every finding)
    keep: Sequence[str] | None = None


REPORTS = [
    Report(
        "fixtures",
        ["torchlint", "check", "fixtures", "--config", "fixtures/pyproject.toml"],
        keep=("fixtures/cnn_item_branch.py:41:", "fixtures/transformer_block.py:65:"),
    ),
]


def run(report: Report) -> str:
    """The report's text from a real run (stdout; torchlint's exit code 1 is expected)."""
    exe = os.path.join(os.path.dirname(sys.executable), report.command[0])
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    done = subprocess.run([exe, *report.command[1:]], cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(report.command)} exited {done.returncode}:\n{done.stderr}")
    return abridge(done.stdout, report.keep)


def abridge(out: str, keep: Sequence[str] | None) -> str:
    """The findings ``keep`` names (blocks up to a blank line), then everything after the
    last finding (errors, target lines, summary)."""
    lines = out.splitlines()
    blocks: list[list[str]] = []
    rest: list[str] = []
    current: list[str] | None = None
    finding = re.compile(r"^\S+:\d+:\d+: ")
    for line in lines:
        if finding.match(line):
            current = [line]
            blocks.append(current)
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
    shown = [b for b in blocks if keep is None or any(b[0].startswith(k) for k in keep)]
    text = "\n\n".join("\n".join(b) for b in shown)
    return (text + "\n\n" if text else "") + "\n".join(rest).strip("\n") + "\n"


def block(readme: str, name: str) -> re.Match:
    m = re.search(_BLOCK.format(name=re.escape(name)), readme, re.S)
    if m is None:
        raise SystemExit(f"README.md has no `<!-- report: {name} -->` block")
    return m


def masked(text: str) -> str:
    return _SECONDS.sub("(… s)", text)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the README's reports")
    ap.add_argument("names", nargs="*", help="reports to do (default: all)")
    args = ap.parse_args(argv)
    readme = README.read_text("utf-8")
    drift = 0
    for report in REPORTS:
        if args.names and report.name not in args.names:
            continue
        fresh = run(report)
        m = block(readme, report.name)
        if args.write:
            readme = readme[: m.start(2)] + fresh + readme[m.end(2) :]
            print(f"{report.name}: regenerated")
        elif masked(m.group(2)) != masked(fresh):
            drift += 1
            diff = difflib.unified_diff(
                masked(m.group(2)).splitlines(), masked(fresh).splitlines(), "README.md", "a real run", lineterm=""
            )
            print(f"{report.name}: README.md differs from a real run:\n" + "\n".join(diff))
        else:
            print(f"{report.name}: README.md matches a real run")
    if args.write:
        sys.path.insert(0, str(REPO))
        from torchlint.atomic import write_text_atomic

        write_text_atomic(str(README), readme)
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
