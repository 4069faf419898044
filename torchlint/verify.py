"""Are the rules live on the installed torch? Run each rule page's examples through dynamo.

A graph-break rule is *live* when dynamo breaks its page's bad example on marked lines and
compiles the good example whole. ``torchlint rules --verify`` prints one verdict per rule;
the test suite asserts the same for every page. Importing this module does not import torch;
:func:`verify_page` does.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from torchlint.pages import Example, Page


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Mute what examples print and warn on purpose, and dynamo's own break logs (fd level)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(os.devnull, "w") as null, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


@dataclass
class Verdict:
    code: str
    bad_lines: set[int] = field(default_factory=set)
    good_lines: set[int] = field(default_factory=set)
    gb_codes: set[str] = field(default_factory=set)
    marked: set[int] = field(default_factory=set)
    error: str | None = None

    @property
    def live(self) -> bool:
        return self.error is None and bool(self.bad_lines) and self.bad_lines <= self.marked and not self.good_lines

    @property
    def status(self) -> str:
        """One word: ``live``, ``dead`` (the bad example compiles whole), ``error`` (it no
        longer runs), or ``check-page`` (dynamo breaks off the marked lines, or the fix breaks)."""
        if self.error is not None:
            return "error"
        if not self.bad_lines:
            return "dead"
        return "live" if self.live else "check-page"

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "bad_lines": sorted(self.bad_lines),
            "good_lines": sorted(self.good_lines),
            "marked": sorted(self.marked),
            "gb_codes": sorted(self.gb_codes),
            "error": self.error,
        }

    def describe(self) -> str:
        if self.error is not None:
            return f"error: {self.error}"
        if not self.bad_lines:
            return "not live: the bad example compiles without a break"
        lines = ", ".join(map(str, sorted(self.bad_lines)))
        codes = ", ".join(sorted(self.gb_codes))
        if not self.bad_lines <= self.marked:
            return f"check the page: dynamo breaks on unmarked lines ({lines})"
        if self.good_lines:
            return f"check the page: the fix breaks too (lines {', '.join(map(str, sorted(self.good_lines)))})"
        return f"live: example breaks at line {lines} ({codes}); fix compiles whole"


def _observe(example: Example) -> tuple[set[int], set[str]]:
    from torchlint.dynamic.observe import observe_source

    with silenced():
        obs, path = observe_source(example.code, example.target, example.inputs)
    return obs.break_lines(path), {b.gb_code or b.reason for b in obs.breaks}


def verify_page(page: Page) -> Verdict:
    """Run one page's bad and good examples through dynamo on the installed torch."""
    verdict = Verdict(page.code, marked=set(page.bad.marked))
    try:
        verdict.bad_lines, verdict.gb_codes = _observe(page.bad)
        verdict.good_lines, _ = _observe(page.good)
    except Exception as exc:  # noqa: BLE001 (an example that no longer runs on this torch)
        first = (str(exc).strip().splitlines() or [""])[0]
        verdict.error = f"{type(exc).__name__}: {first}"[:160]
    return verdict


def torch_version() -> str:
    import torch

    return str(torch.__version__)


def verdicts(rules: Iterable[Any], show_all: bool = False) -> Iterator[tuple[dict[str, Any], bool]]:
    """``torchlint rules --verify``: for each rule (the enabled ones unless ``show_all``), its
    entry (``rule``, ``name``, ``status``, ``verdict`` and the page's result) and whether it
    is live; a warning rule is not a graph break and is not checked (it counts as live)."""
    from torchlint.config import Settings
    from torchlint.pages import page

    settings = Settings()
    for rule in rules:
        if not show_all and rule.code not in settings.enabled_rules([rule.code]):
            continue
        entry: dict[str, Any] = {"rule": rule.code, "name": rule.name}
        live = True
        text = page(rule.code)
        if rule.severity == "warning":
            performance = rule.code.startswith("TL1")
            verdict = (
                "performance warning: not a graph break, not checked"
                if performance
                else "not a graph break (about suppression comments), not checked"
            )
            entry["status"] = "warning" if performance else "not-a-break"
        elif text is None:
            verdict, live = "no page to verify", False
            entry["status"] = "no-page"
        else:
            result = verify_page(text)
            verdict, live = result.describe(), result.live
            entry.update(result.to_dict())
        entry["verdict"] = verdict
        yield entry, live
