"""Declared targets: ``PATH:OBJ``, ``PATH:build(num_classes=10)``, ``--inputs-from PATH:FUNC``.

Parsing (here, no torch, no import of the user's file) happens in the parent, so a typo is a
usage error before any process starts. Loading happens only in the worker process
(:mod:`torchlint.dynamic.load`), because importing a user's model runs their code.

A factory call's arguments must be Python literals; they are read with ``ast``, never
evaluated.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchlint.config import CUDAGRAPH_MODES, ConfigError, check_mode, target_table_problem
from torchlint.dynamic.specs import Spec, SpecError, check_call, parse_input, parse_input_set


class TargetError(ValueError):
    """A target that cannot be parsed or loaded; ``str()`` is one line naming the target."""

    def __init__(self, target: str, problem: str) -> None:
        self.target = target
        self.problem = problem
        super().__init__(f"target {target!r}: {problem}")


_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


def is_dotted(path: str) -> bool:
    """``pkg.model`` (a module's dotted name) rather than a file path (``pkg/model.py``)."""
    return bool(_DOTTED.match(path)) and not path.endswith(".py")


def search_folders(*roots: str | None) -> list[str]:
    """Where a dotted name is looked for: each root, then its ``src/`` (the src layout)."""
    out: list[str] = []
    for root in roots:
        if not root:
            continue
        for folder in (root, os.path.join(root, "src")):
            folder = os.path.abspath(folder)
            if folder not in out and os.path.isdir(folder):
                out.append(folder)
    return out


def find_module_file(dotted: str, folders: Sequence[str]) -> str | None:
    """The file of module ``pkg.model`` under the first of ``folders`` that holds it
    (``pkg/model.py`` or ``pkg/model/__init__.py``), found on disk: nothing is imported."""
    parts = dotted.split(".")
    for folder in folders:
        stem = os.path.join(folder, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def package_of(path: str) -> tuple[str, list[str]]:
    """Where the file's package starts: ``(folder to import from, dotted parts)``.

    ``src/pkg/layers/attn.py`` with ``__init__.py`` in ``pkg/`` and ``pkg/layers/`` is
    ``("src", ["pkg", "layers", "attn"])``; a file outside any package is ``(its folder,
    [its stem])``. Found by walking up ``__init__.py`` files; nothing is imported.
    """
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    stem = os.path.splitext(name)[0]
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
        if not package:
            break
    return folder, parts


_OBJECT = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?P<call>\(.*\))?$", re.S)


@dataclass(frozen=True)
class ObjectRef:
    """``path:name`` or ``path:name(args)``: an object in a file, maybe called."""

    text: str
    path: str
    name: str
    called: bool = False
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs_dict(self) -> dict[str, Any]:
        return dict(self.kwargs)


def parse_ref(text: str, what: str = "target") -> ObjectRef:
    """Split ``PATH:OBJ[(literal args)]`` (the last ``:`` before a valid name is the split)."""
    text = text.strip()
    for i in range(len(text) - 1, 0, -1):
        if text[i] != ":":
            continue
        path, obj = text[:i].strip(), text[i + 1 :].strip()
        match = _OBJECT.match(obj)
        if not path or not match:
            continue
        args: tuple[Any, ...] = ()
        kwargs: tuple[tuple[str, Any], ...] = ()
        call = match.group("call")
        if call:
            try:
                node = ast.parse(f"f{call}", mode="eval").body
            except SyntaxError:
                raise TargetError(text, f"cannot parse the call {call!r}") from None
            if (
                not isinstance(node, ast.Call)
                or any(isinstance(a, ast.Starred) for a in node.args)
                or any(k.arg is None for k in node.keywords)
            ):
                raise TargetError(text, f"cannot parse the call {call!r}")
            try:
                args = tuple(ast.literal_eval(a) for a in node.args)
                kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg is not None)
            except ValueError:
                raise TargetError(
                    text,
                    "factory arguments must be Python literals "
                    "(numbers, strings, tuples, lists, dicts, True/False/None)",
                ) from None
        return ObjectRef(text, path, match.group("name"), bool(call), args, kwargs)
    raise TargetError(text, f"expected PATH:NAME for the {what} (e.g. model.py:Net or model.py:build(num_classes=10))")


@dataclass(frozen=True)
class TargetSpec:
    """One declared target with its sample inputs and how to run it.

    ``input_sets``: one list of argument specs per call; several calls run in turn without a
    reset (recompilations are counted). ``inputs_from`` names a function returning the args.
    A target's gate limits (``max-graph-breaks``, ``max-recompiles``) are not run options:
    the gate reads them from the declared tables (``Settings.targets``), by target name.
    """

    ref: ObjectRef
    input_sets: tuple[tuple[Spec, ...], ...] = ()
    inputs_from: ObjectRef | None = None
    train: bool = False
    timeout: float | None = None
    input_sets_from: ObjectRef | None = None
    label: str | None = None
    #: ``reduce-overhead`` also measures CUDA graphs (:mod:`torchlint.dynamic.cudagraphs`)
    mode: str | None = None
    #: move the target and its inputs here before running (``cuda`` for reduce-overhead)
    device: str | None = None
    #: warm calls timed to measure what each break costs (None: the run's setting)
    cost_calls: int | None = None

    @property
    def name(self) -> str:
        """How reports name the target: its ``name`` key, else ``PATH:OBJ`` as declared."""
        return self.label or self.ref.text

    @property
    def run_device(self) -> str | None:
        """Where the target runs: its ``device``, else ``cuda`` for reduce-overhead (inductor
        records CUDA graphs only there), else wherever it was built (None)."""
        return self.device or ("cuda" if self.mode in CUDAGRAPH_MODES else None)

    def to_wire(self) -> dict[str, Any]:
        """What the worker needs, as JSON-able data (specs travel as their text)."""
        return {
            "target": self.ref.text,
            "input_sets": [[str(s) for s in call] for call in self.input_sets],
            "inputs_from": self.inputs_from.text if self.inputs_from else None,
            "input_sets_from": self.input_sets_from.text if self.input_sets_from else None,
            "train": self.train,
            "mode": self.mode,
            "device": self.run_device,
            "cost_calls": self.cost_calls,
        }


def make_target(
    target: str,
    inputs: Sequence[str] = (),
    input_sets: Sequence[str] = (),
    inputs_from: str | None = None,
    *,
    train: bool = False,
    timeout: float | None = None,
    input_sets_from: str | None = None,
    name: str | None = None,
    mode: str | None = None,
    device: str | None = None,
    cost_calls: int | None = None,
) -> TargetSpec:
    """Validate a declaration (CLI options or one ``[[tool.torchlint.targets]]`` table).

    ``inputs``: one spec per argument (``--input``, repeatable), one call; ``name=spec`` passes
    it by keyword.
    ``input_sets``: ``;``-separated argument lists (``--input-set``, repeatable), one call each.
    ``inputs_from``: ``PATH:FUNC`` returning one call's arguments; ``input_sets_from``:
    ``PATH:FUNC`` returning a list of calls. Calls run in this order: inputs-from, inputs,
    input-sets, input-sets-from. Raises :class:`TargetError` / :class:`SpecError`.
    """
    ref = parse_ref(target)
    calls: list[tuple[Spec, ...]] = []
    if inputs:
        calls.append(tuple(check_call([parse_input(s) for s in inputs], " ".join(inputs))))
    for text in input_sets:
        calls.append(tuple(parse_input_set(text)))
    source = parse_ref(inputs_from, "inputs-from function") if inputs_from else None
    sets_source = parse_ref(input_sets_from, "input-sets-from function") if input_sets_from else None
    if timeout is not None and timeout <= 0:
        raise TargetError(target, f"timeout must be positive, got {timeout}")
    if cost_calls is not None and cost_calls < 0:
        raise TargetError(target, f"cost-calls must be 0 or more, got {cost_calls}")
    try:
        check_mode(mode, device, "run")
    except ConfigError as e:
        raise TargetError(target, str(e).split(": ", 1)[1]) from None
    return TargetSpec(
        ref,
        tuple(calls),
        source,
        train=train,
        timeout=timeout,
        input_sets_from=sets_source,
        label=name,
        mode=mode,
        device=device,
        cost_calls=cost_calls,
    )


def target_from_config(table: Mapping[str, Any], *, base_dir: str = ".", search: Sequence[str] = ()) -> TargetSpec:
    """One ``[[tool.torchlint.targets]]`` table (or a CLI declaration with the same keys):
    ``target`` (required), ``input`` (list of specs, one call), ``input-sets`` (list of
    ``;``-separated calls), ``inputs-from``, ``input-sets-from``, ``train``, ``timeout``,
    ``max-graph-breaks``, ``max-recompiles`` (checked, and read by the gate from the table),
    ``name``, ``mode``, ``device``, ``cost-calls``. Relative paths are taken from ``base_dir`` (the folder
    of pyproject.toml for config targets, the cwd for CLI ones). A dotted name
    (``pkg.model:Net``) is looked up as a file under ``base_dir``, then under ``search`` (each
    with its ``src/``); one found nowhere is left to the worker to import (an installed package)."""
    name = str(table.get("target", "?")) if isinstance(table, dict) else "?"
    problem = target_table_problem(table)
    if problem is not None:
        key, text = problem
        raise TargetError(name, f"{key}: {text}" if key else text)

    def rebase(text: str) -> str:
        text = text.strip()
        ref = parse_ref(text)
        rest = text[len(ref.path) :]
        if is_dotted(ref.path) and not os.path.exists(os.path.join(base_dir, ref.path)):
            found = find_module_file(ref.path, search_folders(base_dir, *search))
            return found + rest if found else text
        if os.path.isabs(ref.path) or base_dir in ("", "."):
            return text
        return os.path.join(base_dir, ref.path) + rest

    inputs_from, input_sets_from = table.get("inputs-from"), table.get("input-sets-from")
    return make_target(
        rebase(name),
        table.get("input", []),
        table.get("input-sets", []),
        rebase(inputs_from) if inputs_from is not None else None,
        train=bool(table.get("train", False)),
        timeout=table.get("timeout"),
        input_sets_from=rebase(input_sets_from) if input_sets_from is not None else None,
        name=table.get("name") or name,
        mode=table.get("mode"),
        device=table.get("device"),
        cost_calls=table.get("cost-calls"),
    )


__all__ = [
    "TargetError",
    "SpecError",
    "ObjectRef",
    "TargetSpec",
    "parse_ref",
    "make_target",
    "target_from_config",
    "is_dotted",
    "package_of",
    "search_folders",
    "find_module_file",
]
