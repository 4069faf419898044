"""State written in forward (TL007's store form): the forms the local-value fix declines, and the
stores the rule leaves alone (the snapshot ``local_state`` proves the form it takes)."""

from __future__ import annotations

from pathlib import Path

from torchlint.fixes.rounds import FixOptions, fix_source
from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

BEFORE = (Path(__file__).resolve().parent / "local_state.in.py").read_text()
STORE = "        self.pos_encoding = self.pos_encoding.to(device=x.device, dtype=x.dtype)\n"


def _fix(src: str):
    return fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True))


def _declines(src: str) -> None:
    assert "TL007" in [f.rule for f in lint_file("m.py", src, all_rules()).findings]
    assert _fix(src).new == src


def test_the_store_becomes_a_local_and_says_what_it_assumes():
    outcome = _fix(BEFORE)
    assert "        pos_encoding = self.pos_encoding.to(" in outcome.new
    assert "pos = pos_encoding[position_ids, :]" in outcome.new
    assert [a.applicability for a in outcome.applied] == ["unsafe"]
    assert "keeps its old device and dtype" in outcome.applied[0].description


def test_declines_when_another_method_reads_the_state():
    src = BEFORE.replace(
        "\n\ndef build():", "\n    def table(self):\n        return self.pos_encoding\n\n\ndef build():"
    )
    _declines(src)  # `table()` would return the unconverted tensor after a call


def test_declines_a_store_in_a_branch_and_a_second_store():
    branch = BEFORE.replace(STORE, "        if ids.shape[0] > 1:\n    " + STORE)
    _declines(branch)  # the local would be unbound when the branch is not taken
    again = BEFORE.replace(
        "        return x + pos\n", "        self.pos_encoding = self.pos_encoding * 1\n        return x + pos\n"
    )
    _declines(again)


def test_a_module_converted_in_place_is_not_reported():
    src = BEFORE.replace(
        STORE, "        self.embed = self.embed.to(x.dtype)\n" + STORE.replace("self.pos_encoding =", "pe =")
    )
    assert "TL007" not in [f.rule for f in lint_file("m.py", src, all_rules()).findings]  # `Module.to` is in place
