"""`--help` of every command: options grouped by topic (rich-click panels), exit codes said."""

from __future__ import annotations

import click
import pytest
from support import run_cli

from torchlint.cli import PANELS, main

COMMANDS = sorted(main.commands)


def _flat(text: str) -> str:
    """Panel text without the box and the line wrapping."""
    return " ".join(text.replace("│", " ").split())


def _options(command: click.Command):
    return [p for p in command.params if isinstance(p, click.Option) and p.name not in ("help", "version")]


def test_every_command_is_listed_in_the_main_help():
    out = run_cli(["--help"]).stdout
    assert set(COMMANDS) >= {"check", "run", "merge", "baseline", "rules", "rule", "clean", "server"}
    for name in COMMANDS:
        assert f" {name} " in out, name
    assert "Exit codes:" in out


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_is_in_a_topic_panel_and_exit_codes_are_said(name):
    command = main.commands[name]
    ungrouped = [p.opts[0] for p in _options(command) if getattr(p, "panel", None) not in PANELS]
    assert ungrouped == []
    result = run_cli([name, "--help"])
    assert result.exit_code == 0
    out = result.stdout
    for panel in {p.panel for p in _options(command)}:
        assert f"─ {panel} ─" in out, panel
    for option in _options(command):
        assert max(option.opts, key=len) in out  # each option shown, in its panel
    assert "Exit codes: 0 " in out and " 2 " in out.split("Exit codes:")[1]


def test_check_help_runs_by_topic_and_says_what_a_gate_does_to_findings():
    out = run_cli(["check", "--help"]).stdout
    titles = [line.split("─ ")[1].split(" ─")[0] for line in out.splitlines() if line.startswith("╭─ ")]
    assert titles == ["Output", "Rules", "Project", "Dynamic", "Gates", "Fixes", "Cache", "Help"]
    gates = _flat(out.split("─ Gates ─")[1].split("─ Fixes ─")[0])
    assert 'replaces "no unsuppressed finding" as the criterion' in gates
    assert "--max-graph-breaks counts the static pass's potential graph breaks" in gates
    exit_codes = _flat(out.split("Exit codes:")[1])
    assert "1 it does not" in exit_codes and "a path that does not exist" in exit_codes


@pytest.mark.parametrize("name", COMMANDS)
def test_the_description_is_rewrapped_to_the_terminal(name):
    # a paragraph kept as written (click's `\b`) breaks where the source did, then again at
    # the terminal's width: lines of a word or two between full ones
    out = run_cli([name, "--help"]).stdout
    lines = [line.strip() for line in out.split("╭─")[0].splitlines()[2:]]
    for line, after in zip(lines, lines[1:]):
        examples = line.startswith("torchlint ") or after.startswith("torchlint ")
        if line and after and not examples and not line.endswith("."):  # (a paragraph's end)
            assert len(line) >= 40, f"{name} --help: {line!r} then {after!r}"
