"""Which module modes the static pass checks, and which mode each finding holds in.

A module runs in eval mode (``self.training`` false, no labels given) or in training mode
(``self.training`` true, a loss computed from the labels); dynamo traces what runs in the mode
it is called in, so a break under ``if self.training:`` happens only in training and one
under ``if not self.training:`` only in eval. The static pass checks the modes the settings
ask for (``module-mode = "eval" | "train" | "both"``); by default both when the project
shows a training loop anywhere (a ``.backward()`` call, an optimizer's ``step()``, a
Lightning ``training_step``), else eval alone. With both, the files are checked once per
mode and each finding says where it holds: in both modes (no label), only in training
(``mode = "train"``) or only in eval (``mode = "eval"``).

A file whose text holds no training test and whose project facts are the same in both modes
is checked once: its findings hold in both.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from torchlint.analysis.torchnames import LABEL_PARAMS
from torchlint.findings import FileError, Finding

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.config import Settings

EVAL = "eval"
TRAIN = "train"
BOTH = "both"
#: the values of the ``module-mode`` setting
MODULE_MODES = (EVAL, TRAIN, BOTH)

# `.backward(`, `optimizer.step(` (any name holding "optim" / "opt"), `def training_step(`,
# outside comments: the project trains a model
_TRAINING_LOOP = re.compile(
    r"^[^#\n]*(?:\.backward\(|\b\w*opt\w*\.step\(|\bdef\s+training_step\()",
    re.M | re.I,
)
# what makes a file's code differ between the modes: a `.training` flag read, a label test
_MODE_TEST = re.compile(r"\.training\b|\b(?:" + "|".join(sorted(LABEL_PARAMS)) + r")\s+is\b")
# an autograd Function applied to one name twice (`Fn.apply(m, m, x)`): TL010 breaks with
# gradients on only
_TWICE_APPLIED = re.compile(r"\.apply\((?:[^()]*?,)?\s*([A-Za-z_][\w.]*)\s*,(?:[^()]*?,)?\s*\1\s*[,)]")


def has_training_loop(source: str) -> bool:
    """Whether a file trains a model: it calls ``.backward()`` or an optimizer's ``step()``,
    or defines a Lightning ``training_step`` (outside comments)."""
    if ".backward(" not in source and ".step(" not in source and "training_step" not in source:
        return False
    return _TRAINING_LOOP.search(source) is not None


def reads_mode(source: str) -> bool:
    """Whether a file's code may differ between eval and training: it reads ``.training``,
    tests ``labels is (not) None``, applies an autograd Function to one name twice, or uses a
    tensor attribute or method that breaks only in an autograd graph (``.grad_fn``,
    ``.retain_grad()``, as the knowledge measured them)."""
    if ("training" in source or "label" in source) and _MODE_TEST.search(source) is not None:
        return True
    if ".apply(" in source and _TWICE_APPLIED.search(source) is not None:
        return True
    return any(f".{name}" in source for name in _grad_only_attributes())


@functools.lru_cache(maxsize=1)
def _grad_only_attributes() -> tuple[str, ...]:
    """The tensor attributes and methods the knowledge found breaking only on a tensor that
    requires grad (``.grad_fn``, ``.retain_grad()``)."""
    from torchlint import knowledge

    data = knowledge.current()
    found = {n for n, e in knowledge.breaking_tensor_attributes(data).items() if e.get("requires_grad")}
    found |= {
        n for n, e in data.get("tensor_methods", {}).items() if e.get("verdict") == "breaks" and e.get("requires_grad")
    }
    return tuple(sorted(found))


def modes_to_check(settings: Settings, trains: Iterable[bool]) -> tuple[str, ...]:
    """The modes the static pass checks: the ``module-mode`` setting; else both when
    ``train`` is set or the project trains (``trains``: per file, whether it holds a training
    loop), else eval."""
    chosen = getattr(settings, "module_mode", None)
    if chosen == EVAL or chosen == TRAIN:
        return (chosen,)
    if chosen == BOTH or settings.train or any(trains):
        return (EVAL, TRAIN)
    return (EVAL,)


def settings_for(settings: Settings, mode: str, modes: Sequence[str] = ()) -> Settings:
    """``settings`` as the project analysis reads them in ``mode`` of ``modes`` (those
    checked): calls made only in training reach regions in training mode alone, and when
    training is checked too, so do the forwards of losses (:func:`loss_roots`)."""
    train = mode == TRAIN
    both = BOTH if EVAL in modes and TRAIN in modes else settings.module_mode
    if settings.train == train and settings.module_mode == both:
        return settings
    return dataclasses.replace(settings, train=train, module_mode=both)


def loss_roots(settings: Settings) -> bool:
    """Whether a loss module's ``forward`` is a compiled region of its own in this analysis:
    in training, and when eval alone is checked; not in the eval pass of a project checked in
    both modes, where eval runs the model's forward and the training step computes the loss."""
    return settings.train or settings.module_mode != BOTH


def facts_for(
    facts: Sequence[dict | None], known: Sequence[object], settings: Settings, mode: str
) -> list[dict | None]:
    """Each file's facts as the engine reads them in ``mode`` (part of the cache key too):
    ``{"mode": "train"}`` in training, ``{"half": True}`` with ``half``."""
    extra: dict[str, object] = {}
    if mode == TRAIN:
        extra["mode"] = TRAIN
    if settings.half:
        extra["half"] = True
    if not extra:
        return list(facts)
    return [dict(f or {}, **extra) if k is not None else None for f, k in zip(facts, known)]


def same_facts(a: dict | None, b: dict | None) -> bool:
    """Whether two modes' facts of a file say the same but for the mode."""
    strip = ("mode", "train")
    return {k: v for k, v in (a or {}).items() if k not in strip} == {
        k: v for k, v in (b or {}).items() if k not in strip
    }


def _key(f: Finding) -> tuple:
    return (f.path, f.cell, f.line, f.column, f.rule, f.name)


def label(runs: Sequence[tuple[str, list[Finding]]]) -> list[Finding]:
    """One list from each mode's findings: a finding made in every mode checked has no label;
    one made in one mode alone says which (``mode``). A single mode checked labels nothing
    (whether a finding holds in the other mode too was not asked)."""
    if len(runs) == 1:
        return list(runs[0][1])
    seen: dict[tuple, set[str]] = {}
    for mode, found in runs:
        for f in found:
            seen.setdefault(_key(f), set()).add(mode)
    out: list[Finding] = []
    taken: set[tuple] = set()
    for mode, found in runs:
        for f in found:
            key = _key(f)
            if key in taken:
                continue
            taken.add(key)
            modes = seen[key]
            out.append(f if len(modes) == len(runs) else dataclasses.replace(f, mode=mode))
    return out


def errors_of(runs: Sequence[list[FileError]]) -> list[FileError]:
    """Each mode's errors once (a file that cannot be parsed fails in every mode)."""
    out: list[FileError] = []
    seen: set[tuple[str, str]] = set()
    for errors in runs:
        for e in errors:
            if (e.path, e.message) not in seen:
                seen.add((e.path, e.message))
                out.append(e)
    return out
