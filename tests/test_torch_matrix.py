"""The measured torch matrix (torchlint/data/torch_matrix.json) and what it drives.

* CI runs on one torch (2.13): the committed matrix must say, for that version, what the
  installed torch says (each rule page through dynamo, the skipped calls);
* every rule page carries its "Breaks on" line, generated from the matrix;
* ``torch-version`` / ``--torch-version`` makes the static pass report what breaks on that
  version, without torch: a rule the matrix has dead there is not reported, and nothing else
  changes;
* the declared floor (``torch>=`` of the ``dynamic`` extra) is the oldest measured version.
"""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest
from support import REPO, run_cli, run_json, write

from torchlint import matrix
from torchlint.config import ConfigError, load_settings
from torchlint.pages import pages
from torchlint.rules import rules_by_code
from torchlint.rules.tl009_skipped_call import skipped_calls

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DATA = matrix.load()
VERSIONS = matrix.versions()
# The matrix measures what torch does: rules about suppression comments (TL9xx) have nothing
# to measure and no "Breaks on" line.
RULES = {code: rule for code, rule in rules_by_code().items() if not code.startswith("TL9")}
PAGES = {code: page for code, page in pages().items() if not code.startswith("TL9")}
HAS_TORCH = importlib.util.find_spec("torch") is not None
REGENERATE = "python benchmarks/torch_matrix.py --pages"


def installed_key():
    version = matrix.installed_torch()
    key = matrix.minor(version) if version else None
    return key if key in DATA["versions"] else None


# --------------------------------------------------------------------------- the data


def test_the_matrix_covers_three_versions_and_every_rule_on_the_ci_version():
    """A new rule must be measured at least on the version CI runs (its page then says "not
    measured" for the others until the whole matrix is run again)."""
    assert len(VERSIONS) >= 3, VERSIONS
    ci = installed_key() or VERSIONS[0]
    measured = set(DATA["versions"][ci]["rules"])
    assert measured >= set(RULES), (
        f"torch {ci}: rules {sorted(set(RULES) - measured)} not measured; run "
        f"`python benchmarks/torch_matrix.py` (`--versions 2.13.0` for the CI version alone)"
    )
    for v in VERSIONS:
        assert set(DATA["versions"][v]["rules"]) <= set(RULES), f"torch {v}: rules that no longer exist"


def test_statuses_are_known_and_warnings_are_not_breaks():
    for v in VERSIONS:
        for code, entry in DATA["versions"][v]["rules"].items():
            assert entry["status"] in ("live", "changed", "dead", "warning", "check-page", "error"), (v, code)
            assert (entry["status"] == "warning") == (RULES[code].severity == "warning"), (v, code)


def test_skipped_call_tables_name_only_known_calls():
    calls = set(skipped_calls()["calls"])
    for v in VERSIONS:
        listed = set(DATA["versions"][v]["skipped_calls"])
        assert listed <= calls, f"torch {v}: {sorted(listed - calls)} are not in skipped_calls.json"
        assert set(DATA["versions"][v]["trace_rules"]) <= calls  # calls added later: not measured there


def test_fixture_breaks_equal_dynamos_on_every_version():
    for v in VERSIONS:
        for name, f in DATA["versions"][v]["fixtures"].items():
            assert f["graph_breaks"] == f["dynamo"], f"torch {v} {name}: {f}"


def test_declared_floor_is_the_oldest_measured_version():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for spec in project["optional-dependencies"]["dynamic"] + project["optional-dependencies"]["test"]:
        m = re.match(r"torch>=([\d.]+)", spec)
        if m:
            assert matrix.minor(m.group(1)) == VERSIONS[0], f"{spec}: the oldest verified torch is {VERSIONS[0]}"


# --------------------------------------------------------------------------- agrees with the installed torch


@pytest.mark.dynamo
@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_committed_matrix_agrees_with_the_installed_torch():
    """What `torchlint rules --verify` sees here is what the matrix says for this version."""
    from torchlint.verify import verify_page

    key = installed_key()
    if key is None:
        pytest.skip(f"torch {matrix.installed_torch()} is not a measured version")
    wrong = []
    for code, rule in sorted(RULES.items()):
        entry = DATA["versions"][key]["rules"][code]
        if rule.severity == "warning":
            continue
        verdict = verify_page(PAGES[code])
        status = "live" if verdict.live else verdict.status
        want = "live" if entry["status"] == "changed" else entry["status"]
        if status != want or sorted(verdict.gb_codes) != sorted(entry["gb_codes"]):
            wrong.append(
                f"{code}: here {status} {sorted(verdict.gb_codes)}, matrix {entry['status']} {entry['gb_codes']}"
            )
    assert not wrong, (
        f"the matrix for torch {key} is out of date ({'; '.join(wrong)}); re-measure with "
        f"`python benchmarks/torch_matrix.py --versions {matrix.installed_torch().split('+')[0]}`"
    )


# --------------------------------------------------------------------------- rule pages


@pytest.mark.parametrize("code", sorted(PAGES))
def test_every_page_has_its_breaks_on_line(code):
    want = matrix.breaks_on_line(code)
    lines = [line for line in PAGES[code].text.splitlines() if line.startswith(matrix.BREAKS_ON)]
    assert lines == [want], f"{code}'s page needs the line `{want}` after its summary (`{REGENERATE}` writes it)"


def test_skipped_call_page_carries_the_table_per_version():
    page = PAGES["TL009"].text
    table = matrix.skipped_calls_table()
    assert table in page, f"TL009's page needs the skipped-call table of the matrix (`{REGENERATE}` writes it)"
    assert PAGES["TL009"].sections["What it does"].endswith(matrix.TABLE_END)
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    for v, column in zip(VERSIONS, range(2, 2 + len(VERSIONS))):
        traced = {row.split(" | ")[0][3:-1] for row in rows if row.split(" | ")[column - 1].strip(" |") == "traced"}
        assert traced == matrix.traced_calls(v), v


def test_skipped_call_table_is_added_once_and_replaced_later():
    text = "# TL009: skipped-call\n\nOne line.\n\n## What it does\nFlags.\n\n## Why is this bad?\nx\n"
    data = {
        "versions": {
            "2.13": {"skipped_calls": ["a.b", "c.d"], "trace_rules": {"a.b": "S", "c.d": "S"}},
            "2.14": {
                "skipped_calls": ["c.d"],
                "trace_rules": {"a.b": "traced inline", "c.d": "S"},
                "deepcopy_breaks": False,
            },
        }
    }
    once = matrix.page_with_table(text, matrix.skipped_calls_table(data))
    assert once.startswith("# TL009: skipped-call\n\nOne line.\n\n## What it does\nFlags.\n\n" + matrix.TABLE_START)
    assert "| `a.b` | breaks | traced |" in once and "`c.d`" not in once.split(matrix.TABLE_START)[1]
    assert "| `copy.deepcopy` of a tensor or module | breaks | traced |" in once
    assert "The other 1 calls" in once and once.endswith(matrix.TABLE_END + "\n\n## Why is this bad?\nx\n")
    again = matrix.page_with_table(once, matrix.skipped_calls_table({"versions": {"2.13": data["versions"]["2.13"]}}))
    assert again.count(matrix.TABLE_START) == 1 and "traced" not in again


def test_breaks_on_line_words():
    data = {
        "versions": {
            "2.13": {
                "rules": {
                    "TL001": {"status": "live", "gb_codes": ["GB0124"]},
                    "TL101": {"status": "warning", "gb_codes": []},
                }
            },
            "2.15": {"rules": {"TL001": {"status": "dead", "gb_codes": []}}},
            "2.14": {"rules": {"TL001": {"status": "changed", "gb_codes": ["GB0125"]}}},
        }
    }
    line = matrix.breaks_on_line("TL001", data)
    assert line.startswith("Breaks on: torch 2.13 yes, 2.14 yes (GB0125), 2.15 no. ")
    assert matrix.breaks_on_line("TL101", data).startswith("Breaks on: never")
    assert "2.14 not measured" in matrix.breaks_on_line("TL999", data)


def test_page_line_is_added_after_the_summary_and_replaced_later():
    text = "# TL999: made-up\n\nOne line.\n\n## What it does\nx\n"
    once = matrix.page_with_line(text, "Breaks on: torch 2.13 yes.")
    assert once == "# TL999: made-up\n\nOne line.\n\nBreaks on: torch 2.13 yes.\n\n## What it does\nx\n"
    assert matrix.page_with_line(once, "Breaks on: torch 2.13 no.").count("Breaks on:") == 1


def test_page_line_goes_after_the_summary_below_the_facts_block():
    text = "<!-- rule\nsummary: s\nfix: none\n-->\n# TL999: made-up\n\nOne line.\n\n## What it does\nx\n"
    assert matrix.page_with_line(text, "Breaks on: torch 2.13 yes.") == (
        "<!-- rule\nsummary: s\nfix: none\n-->\n# TL999: made-up\n\nOne line.\n\n"
        "Breaks on: torch 2.13 yes.\n\n## What it does\nx\n"
    )


# --------------------------------------------------------------------------- torch-version


def _fake(monkeypatch, data):
    monkeypatch.setattr(matrix, "load", lambda: data)


def _copy_of(v, **rules):
    entry = {
        k: (dict(x) if isinstance(x, dict) else list(x) if isinstance(x, list) else x)
        for k, x in DATA["versions"][v].items()
    }
    entry["rules"] = {c: dict(e) for c, e in entry["rules"].items()}
    for code, status in rules.items():
        entry["rules"][code]["status"] = status
    return entry


@pytest.fixture
def page_project(tmp_path):
    """Every graph-break rule page's bad example as a file of its own."""
    for code, page in PAGES.items():
        if RULES[code].severity != "warning":
            write(tmp_path, f"{code.lower()}_bad.py", page.bad.code)
    write(tmp_path, "pyproject.toml", "[tool.torchlint]\n")
    return tmp_path


def _rules_found(tmp_path, *extra):
    code, data = run_json(["check", ".", "--no-cache", *extra], cwd=tmp_path)
    assert code in (0, 1) and not data["errors"], data["errors"]
    return {f["rule"] for f in data["findings"]}, data["findings"]


@pytest.mark.parametrize("version", VERSIONS)
def test_torch_version_reports_exactly_the_rules_live_there(page_project, version):
    found, _ = _rules_found(page_project, "--torch-version", version)
    rules = DATA["versions"][version]["rules"]
    live = {c for c, e in rules.items() if e["status"] in ("live", "changed")}
    unmeasured = {c for c in RULES if c not in rules and RULES[c].severity != "warning"}  # kept, not dropped
    assert found == live | unmeasured


def _forward_calling(names, *extra):
    """A module whose compiled forward makes each call (its example statement), one a line;
    returns (source, {line: call})."""
    calls = skipped_calls()["calls"]
    imports = sorted(
        {calls[n]["imports"] for n in names if calls[n]["imports"]}
        | {"import copy", "import logging", "import torch", "from torch import nn"}
    )
    head = imports + [
        "",
        "log = logging.getLogger(__name__)",
        "",
        "",
        "class Net(nn.Module):",
        "    def forward(self, x):",
        "        x = x + 1",
    ]
    body = [calls[n]["example"] for n in names] + list(extra)
    lines = {len(head) + 1 + i: what for i, what in enumerate([*names, *extra])}
    return "\n".join(head + [f"        {b}" for b in body] + ["        return x * 2", ""]), lines


@pytest.mark.parametrize("version", VERSIONS)
def test_torch_version_flags_exactly_the_skipped_calls_that_break_there(tmp_path, version):
    """The committed matrix, nothing made up: every call of skipped_calls.json in a compiled
    forward is reported with --torch-version V exactly when the matrix has it breaking on V
    (or did not measure it there), and the logger and deepcopy calls as the matrix says."""
    calls = skipped_calls()["calls"]
    names = sorted(n for n in calls if calls[n]["example"])
    source, lines = _forward_calling(names, "log.info('x')", "y = copy.deepcopy(x)")
    write(tmp_path, "m.py", source)
    write(tmp_path, "pyproject.toml", "[tool.torchlint]\n")
    _, findings = _rules_found(tmp_path, "--torch-version", version)
    flagged = {lines[f["line"]] for f in findings if f["rule"] == "TL009" and f["line"] in lines}
    entry = DATA["versions"][version]
    want = {n for n in names if n in entry["skipped_calls"] or n not in entry["trace_rules"]}
    if entry.get("logger_methods_break", True):
        want.add("log.info('x')")
    if entry.get("deepcopy_breaks", True):
        want.add("y = copy.deepcopy(x)")
    assert flagged == want, (
        f"torch {version}: reported but traced there {sorted(flagged - want)}; "
        f"breaks there but not reported {sorted(want - flagged)}"
    )


def test_random_random_in_a_forward_is_reported_only_where_it_breaks(tmp_path):
    """The committed matrix measured ``random.random()`` breaking on torch 2.13 and traced from
    2.14 on; the static pass says so for each version, without torch."""
    source, lines = _forward_calling(["random.random"])
    write(tmp_path, "m.py", source)
    write(tmp_path, "pyproject.toml", "[tool.torchlint]\n")
    line = next(iter(lines))
    measured = {v: "random.random" in DATA["versions"][v]["skipped_calls"] for v in VERSIONS}
    assert measured == {v: v == "2.13" for v in VERSIONS}, f"the matrix now says {measured}: update this test"
    for version in VERSIONS:
        _, findings = _rules_found(tmp_path, "--torch-version", version)
        reported = [f for f in findings if f["line"] == line]
        assert [f["rule"] for f in reported] == (["TL009"] if measured[version] else []), (version, reported)


def test_a_branch_on_a_traced_draw_is_data_dependent_where_the_draw_is_traced(tmp_path):
    """Where torch traces ``random.random()`` (from 2.14) it holds the draw symbolically, so
    ``if random.random() < p:`` breaks as a data-dependent branch (seen on the
    seq_model_misc fixture on 2.14); where it does not (2.13), the call itself breaks."""
    write(
        tmp_path,
        "m.py",
        "import random\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        "    def forward(self, x):\n        if random.random() < 0.5:\n"
        "            x = x + 1\n        return x\n",
    )
    write(tmp_path, "pyproject.toml", "[tool.torchlint]\n")
    for version in VERSIONS:
        breaks = "random.random" in DATA["versions"][version]["skipped_calls"]
        _, findings = _rules_found(tmp_path, "--torch-version", version)
        assert [f["rule"] for f in findings if f["line"] == 7] == (["TL009"] if breaks else ["TL005"]), version


def test_families_the_matrix_has_traced_are_not_reported(tmp_path, monkeypatch):
    oldest = VERSIONS[0]
    newer = _copy_of(oldest)
    newer["logger_methods_break"] = newer["deepcopy_breaks"] = False
    _fake(monkeypatch, {"versions": {oldest: DATA["versions"][oldest], "9.1": newer}})
    source, lines = _forward_calling([], "log.info('x')", "y = copy.deepcopy(x)")
    write(tmp_path, "m.py", source)

    def flagged(v):
        return sorted(f["line"] for f in _rules_found(tmp_path, "--torch-version", v)[1] if f["rule"] == "TL009")

    assert flagged(oldest) == sorted(lines)
    assert flagged("9.1") == []


def test_a_rule_dead_on_a_version_is_not_reported_there_and_nothing_else_changes(page_project, monkeypatch):
    oldest = VERSIONS[0]
    data = {"versions": {oldest: DATA["versions"][oldest], "9.1": _copy_of(oldest, TL001="dead", TL005="dead")}}
    _fake(monkeypatch, data)
    on_old, old_findings = _rules_found(page_project, "--torch-version", oldest)
    on_new, new_findings = _rules_found(page_project, "--torch-version", "9.1")
    # TL021's example spreads a TL005 break: with that break gone, there is nothing to spread
    assert on_old - on_new == {"TL001", "TL005", "TL021"} and on_new <= on_old

    def keep(fs):
        return sorted((f["path"], f["line"], f["rule"]) for f in fs if f["rule"] not in ("TL001", "TL005", "TL021"))

    assert keep(old_findings) == keep(new_findings)


def test_skipped_calls_follow_the_version(tmp_path, monkeypatch):
    oldest = VERSIONS[0]
    newer = _copy_of(oldest)
    newer["skipped_calls"] = [c for c in newer["skipped_calls"] if c != "time.perf_counter"]
    _fake(monkeypatch, {"versions": {oldest: DATA["versions"][oldest], "9.1": newer}})
    write(
        tmp_path,
        "m.py",
        """
        import time
        import torch


        @torch.compile
        def f(x):
            a = time.perf_counter()
            b = time.time()
            return x + a + b
    """,
    )

    def lines(v):
        return sorted(f["line"] for f in _rules_found(tmp_path, "--torch-version", v)[1])

    assert lines(oldest) == [7, 8]
    assert lines("9.1") == [8]


def test_the_version_is_part_of_the_cache_key(page_project, monkeypatch):
    oldest = VERSIONS[0]
    _fake(monkeypatch, {"versions": {oldest: DATA["versions"][oldest], "9.1": _copy_of(oldest, TL001="dead")}})

    def run(v):
        return {f["rule"] for f in run_json(["check", ".", "--torch-version", v], cwd=page_project)[1]["findings"]}

    assert "TL001" in run(oldest)
    assert "TL001" not in run("9.1")  # not served from the first run's cache
    assert "TL001" in run(oldest)  # and the first entries are still good


def test_config_key_and_cli_override(page_project, monkeypatch):
    oldest = VERSIONS[0]
    _fake(monkeypatch, {"versions": {oldest: DATA["versions"][oldest], "9.1": _copy_of(oldest, TL001="dead")}})
    (page_project / "pyproject.toml").write_text('[tool.torchlint]\ntorch-version = "9.1"\n')
    assert load_settings(str(page_project / "pyproject.toml")).torch_version == "9.1"
    assert "TL001" not in _rules_found(page_project)[0]
    assert "TL001" in _rules_found(page_project, "--torch-version", f"{oldest}.0")[0]


@pytest.mark.parametrize(
    "value, words",
    [
        ('"9.9"', "not in torchlint's measured matrix"),
        ('"latest"', "expected a torch version"),
        ("2.15", "quoted"),
    ],
)
def test_bad_torch_version_in_config_names_the_key(tmp_path, value, words):
    write(tmp_path, "pyproject.toml", f"[tool.torchlint]\ntorch-version = {value}\n")
    with pytest.raises(ConfigError, match="torch-version") as err:
        load_settings(str(tmp_path / "pyproject.toml"))
    assert words in str(err.value)


def test_bad_torch_version_on_the_command_line(tmp_path):
    write(tmp_path, "m.py", "x = 1\n")
    result = run_cli(["check", ".", "--torch-version", "1.0"], cwd=tmp_path)
    assert result.exit_code == 2
    assert "--torch-version" in result.stderr and "measured" in result.stderr


@pytest.mark.parametrize(
    "installed, expected",
    [
        (None, -1),  # no torch: the newest measured
        ("{oldest}.0+cpu", 0),  # the installed one
        ("{newest}.7", -1),
        ("99.0.0", -1),  # newer than any measured: the newest
        ("1.0.0", 0),  # older than any measured: the oldest
    ],
)
def test_default_version_is_the_installed_torchs_without_importing_it(monkeypatch, installed, expected):
    if installed is not None:
        installed = installed.format(oldest=VERSIONS[0], newest=VERSIONS[-1])
    monkeypatch.setattr(matrix, "installed_torch", lambda: installed)
    assert matrix.resolve(None) == VERSIONS[expected]


@pytest.mark.dynamo
def test_installed_torch_is_read_from_metadata():
    import importlib.metadata

    if not HAS_TORCH:
        assert matrix.installed_torch() is None
    else:
        assert matrix.installed_torch() == importlib.metadata.version("torch")
    import subprocess

    code = (
        "import sys; from torchlint.matrix import resolve; from torchlint.config import Settings; "
        "resolve(None); Settings().static_torch_version(); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip() == "False", out.stderr


# --------------------------------------------------------------------------- dynamic-pass parsers


def test_every_measured_version_has_a_verdict_per_parser():
    for v in VERSIONS:
        parsers = DATA["versions"][v]["parsers"]
        assert set(parsers) == set(matrix.PARSERS), v


def test_an_unverified_torch_or_parser_is_named_in_one_line(monkeypatch):
    oldest = VERSIONS[0]
    assert matrix.support_notes(f"{oldest}.0+cpu") == [
        f"torch {oldest}.0+cpu: the {matrix.PARSERS[p]} parser does not support this version "
        f"({s.split(':', 1)[-1].strip()})"
        for p, s in DATA["versions"][oldest]["parsers"].items()
        if s.startswith("not supported")
    ]
    notes = matrix.support_notes("99.1.0")
    assert len(notes) == 1 and "not a verified version" in notes[0] and "\n" not in notes[0]
    broken = _copy_of(oldest)
    broken["parsers"] = dict(broken["parsers"], recompile_reasons="not supported: no reason parsed")
    _fake(monkeypatch, {"versions": {oldest: broken}})
    assert matrix.support_notes(f"{oldest}.1") == [
        f"torch {oldest}.1: the recompile reasons parser does not support this version (no reason parsed)"
    ]
    assert matrix.support_notes(None) == []
