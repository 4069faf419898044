"""`torchlint rules --verify`: per-rule verdicts from the pages' examples on the installed torch."""

import importlib.util

import pytest
from click.testing import CliRunner

from torchlint import verify
from torchlint.cli import main
from torchlint.pages import Example, Page, pages


def _page(bad: str, good: str) -> Page:
    text = f"## Example\n```python\n{bad}```\n\n## Use instead\n```python\n{good}```\n"
    return Page("TL999", "made-up", text, {"Example": f"```python\n{bad}```", "Use instead": f"```python\n{good}```"})


def test_verdict_wording():
    live = verify.Verdict("TL001", bad_lines={3}, gb_codes={"GB0124"}, marked={3})
    assert live.live and live.describe().startswith("live: example breaks at line 3 (GB0124)")
    dead = verify.Verdict("TL001", marked={3})
    assert not dead.live and dead.describe().startswith("not live")
    stray = verify.Verdict("TL001", bad_lines={3, 5}, marked={3})
    assert not stray.live and "unmarked" in stray.describe()
    leaky = verify.Verdict("TL001", bad_lines={3}, good_lines={4}, marked={3})
    assert not leaky.live and "fix breaks" in leaky.describe()


def test_cli_without_torch_is_a_usage_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    result = CliRunner().invoke(main, ["rules", "--verify"])
    assert result.exit_code == 2
    assert "torch" in result.stderr and "not installed" in result.stderr
    assert "Traceback" not in result.output


def test_cli_prints_a_verdict_per_rule_and_fails_on_a_dead_one(monkeypatch):
    real = importlib.util.find_spec
    present = real("json")  # any spec: the command only asks whether torch is there
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: present if name == "torch" else real(name, *a))
    monkeypatch.setattr(verify, "torch_version", lambda: "9.9")
    seen = []

    def fake(page):
        seen.append(page.code)
        return verify.Verdict(page.code, bad_lines=set() if page.code == "TL003" else {1}, marked={1})

    monkeypatch.setattr(verify, "verify_page", fake)
    result = CliRunner().invoke(main, ["rules", "--verify"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("TL001  tensor-item") and "live:" in line for line in lines)
    assert any(line.startswith("TL003") and "not live" in line for line in lines)
    assert seen and all(code in pages() for code in seen)


@pytest.mark.dynamo
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_a_made_up_page_that_does_not_break_is_not_live():
    code = "import torch\n\n\ndef f(x):\n    return x.item() * 0 + x  # error: TL001\n"
    ok = "import torch\n\n\ndef f(x):\n    return x * 2\n"
    page = _page(code.replace("x.item() * 0 + x", "x + 1"), ok)
    verdict = verify.verify_page(page)
    assert verdict.error is None and not verdict.live
    assert isinstance(page.bad, Example) and page.bad.marked == {5: {"TL001"}}


@pytest.mark.parametrize("code", sorted(pages()))
def test_fix_safety_section_matches_the_rules_fix(code):
    from torchlint.rules import rules_by_code

    rule = rules_by_code().get(code)
    if rule is None:
        pytest.skip(f"{code} has a page but no rule (test_rule_pages reports it)")
    text = pages()[code].sections["Fix safety"]
    if rule.fix_applicability is None:
        assert "No automatic fix" in text
    else:
        flag = "--fix" if rule.fix_applicability == "safe" else "--unsafe-fixes"
        assert flag in text and "No automatic fix" not in text


def test_cli_json_has_a_status_per_rule(monkeypatch):
    import json

    real = importlib.util.find_spec
    present = real("json")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: present if name == "torch" else real(name, *a))
    monkeypatch.setattr(verify, "torch_version", lambda: "9.9")
    monkeypatch.setattr(
        verify,
        "verify_page",
        lambda page: verify.Verdict(
            page.code, bad_lines=set() if page.code == "TL003" else {1}, marked={1}, gb_codes={"GB0001"}
        ),
    )
    result = CliRunner().invoke(main, ["rules", "--verify", "--all", "--format", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["torch_version"] == "9.9"
    by_code = {e["rule"]: e for e in data["rules"]}
    assert by_code["TL001"]["status"] == "live" and by_code["TL001"]["gb_codes"] == ["GB0001"]
    assert by_code["TL003"]["status"] == "dead" and by_code["TL003"]["verdict"].startswith("not live")
    assert by_code["TL101"]["status"] == "warning"
