"""The documentation: the site builds strictly (every internal link and anchor resolves), the
README stays a landing page, and the reference pages name what the code has: every rule, every
command-line option, every config key, every JSON key, every module path, the import rules."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from torchlint.cli import main
from torchlint.config import _KEYS
from torchlint.rules import all_rules

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text("utf-8")


def test_the_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: a broken link, a missing anchor or a page left out of the nav
    fails the build (no plugin fetches anything: it builds offline)."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode == 0, done.stderr
    assert (site / "index.html").is_file() and (site / "rules" / "TL001-tensor-item" / "index.html").is_file()
    assert not list(site.rglob("*.py"))  # the rule pages' __init__.py and the screenshot script stay out


def test_a_broken_anchor_fails_the_build(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[docs]')")
    copy = tmp_path / "repo"
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(REPO / "mkdocs.yml", copy / "mkdocs.yml")
    with (copy / "docs" / "index.md").open("a", encoding="utf-8") as f:
        f.write("\nSee [the exit codes](cli.md#no-such-heading).\n")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode != 0 and "no-such-heading" in done.stderr


def test_the_readme_is_a_landing_page():
    text = (REPO / "README.md").read_text("utf-8")
    assert len(text.splitlines()) < 250
    assert len(re.findall(r"^#+ ", text, re.M)) <= 8
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", text):
        assert (REPO / target).exists(), f"README.md links to {target}, which does not exist"


def test_every_rule_has_a_row_linking_its_page_in_the_rules_overview():
    text = page("rules.md")
    found = re.findall(r"^\| \[(TL\d{3})\]\(rules/([^)]+)\) \| ([\w-]+) \|", text, re.M)
    rows = {code: file for code, file, _ in found}
    names = {code: name for code, _, name in found}
    rules = {r.code: r for r in all_rules()}
    assert set(rows) == set(rules)
    for code, rule in rules.items():
        assert names[code] == rule.name
        assert rows[code] == f"{code}-{rule.name}.md" and (DOCS / "rules" / rows[code]).is_file()


def _sections(text: str):
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_cli_page_names_every_option_of_every_command():
    sections = _sections(page("cli.md"))
    for name, command in main.commands.items():
        (title,) = [t for t in sections if re.search(rf"`torchlint {name}`", t)]
        body = sections[title]
        for param in command.params:
            if isinstance(param, click.Option):
                longest = max(param.opts, key=len)
                assert re.search(rf"[`/]{re.escape(longest)}\b", body), f"cli.md: `torchlint {name}` lacks {longest}"


def test_the_configuration_page_shows_every_key():
    shown = set(re.findall(r"^#? ?([a-z-]+) = ", page("configuration.md"), re.M))
    assert _KEYS - {"targets"} <= shown
    assert "[[tool.torchlint.targets]]" in page("configuration.md")


def _schema_keys(node, out):
    if isinstance(node, dict):
        out.update((node.get("properties") or {}).keys())
        for value in node.values():
            _schema_keys(value, out)
    elif isinstance(node, list):
        for value in node:
            _schema_keys(value, out)
    return out


def test_the_output_page_names_every_key_of_the_json_schema():
    schema = json.loads((REPO / "torchlint" / "data" / "report.schema.json").read_text("utf-8"))
    json_section = _sections(page("output.md"))["JSON"]
    missing = sorted(k for k in _schema_keys(schema, set()) if f"`{k}`" not in json_section)
    assert missing == []


def test_the_architecture_page_names_paths_that_exist_and_every_package():
    text = page("architecture.md")
    paths = set(re.findall(r"(?<![\w/])((?:torchlint|docs|tests|benchmarks|fixtures)/[\w./-]*\w/?)", text))
    assert len(paths) > 20
    for path in paths:
        assert (REPO / path).exists(), f"architecture.md names {path}, which does not exist"
    package = REPO / "torchlint"
    for child in package.iterdir():
        if child.is_dir() and (child / "__init__.py").exists():
            assert f"torchlint/{child.name}/" in text, child.name
        elif child.suffix == ".py" and child.name != "__main__.py":
            assert f"torchlint/{child.name}" in text or f", {child.name}" in text, child.name


def test_the_architecture_pages_import_table_is_the_one_the_tests_hold():
    sys.path.insert(0, str(REPO / "tests"))
    from test_imports import ALLOWED

    rows = re.findall(r"^\| `(\w+)` \| (.+) \|$", page("architecture.md"), re.M)
    table = {name: set(re.findall(r"`(\w+)`", allowed)) for name, allowed in rows}
    assert table == ALLOWED


def test_the_fixtures_break_count_quoted_on_the_torch_versions_page_is_the_measured_one():
    """The page quotes the fixtures' graph breaks and targets; expected_breaks.json holds the
    measurement (tests/static/test_fixture_models.py holds it to dynamo)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib

    fixtures = REPO / "fixtures"
    targets = tomllib.loads((fixtures / "pyproject.toml").read_text("utf-8"))["tool"]["torchlint"]["targets"]
    files = {t["target"].split(":")[0] for t in targets}
    truth = json.loads((fixtures / "expected_breaks.json").read_text("utf-8"))
    breaks = sum(len(entry["breaks"]) for name, entry in truth.items() if name in files)
    quoted = re.search(r"the fixtures' (\d+) graph breaks \((\d+) targets\)", page("torch-versions.md"))
    assert quoted is not None
    assert (int(quoted.group(1)), int(quoted.group(2))) == (breaks, len(targets))
