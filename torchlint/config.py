"""``[tool.torchlint]`` in pyproject.toml, validated, plus command-line overrides.

Every key is checked for type and allowed values; an unknown key or a bad value raises
:class:`ConfigError` with a message naming the file, the key and the expected form.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_SELECT = ("TL0",)  # graph breaks; TL1xx performance warnings are opt-in
TARGET_KEYS: dict[str, type | tuple[type, ...]] = {
    "target": str,
    "input": list,
    "inputs-from": str,
    "input-sets": list,
    "input-sets-from": str,
    "timeout": (int, float),
    "train": bool,
    "max-graph-breaks": int,
    "max-recompiles": int,
    "name": str,
    "mode": str,
    "device": str,
    "cost-calls": int,
}


class ConfigError(Exception):
    """A configuration problem, with a one-line message naming the key and the file.

    A config with several problems raises one error listing all of them: ``problems`` holds
    one line each and ``str()`` joins them with newlines.
    """

    def __init__(self, message: str, problems: Sequence[str] | None = None) -> None:
        self.problems: list[str] = list(problems) if problems else [message]
        super().__init__("\n".join(self.problems))

    @classmethod
    def of(cls, problems: Sequence[str]) -> ConfigError:
        return cls(problems[0], problems)


@dataclass
class Settings:
    select: list[str] = field(default_factory=lambda: list(DEFAULT_SELECT))
    ignore: list[str] = field(default_factory=list)
    #: added to ``select`` / ``ignore`` (as ruff's ``extend-select`` / ``extend-ignore``)
    extend_select: list[str] = field(default_factory=list)
    extend_ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    #: ``reduce-overhead`` adds the CUDA-graph check; ``device`` moves targets and inputs
    mode: str | None = None
    device: str | None = None
    max_cudagraph_skips: int | None = None
    baseline: str | None = None
    targets: list[dict[str, Any]] = field(default_factory=list)
    timeout: float = 120.0
    cache_dir: str | None = None
    jobs: int | None = None
    #: bytes a dynamic target may allocate (None: half the machine's memory; 0: no limit)
    max_memory: int | None = None
    #: warm calls of each target timed to measure what its breaks cost (None: the default,
    #: ``torchlint.dynamic.costs.DEFAULT_COST_CALLS``; 0: none)
    cost_calls: int | None = None
    #: the torch version the static pass reports for (``torch-version``); None: the installed
    #: torch's, else the newest measured (see :mod:`torchlint.matrix`)
    torch_version: str | None = None
    #: the static pass also checks training-only code (``if self.training:``, the loss under
    #: ``if labels is not None:``) and targets run a backward; off, the static pass checks what
    #: dynamo traces in eval mode, as the dynamic pass runs targets by default
    train: bool = False
    #: the module modes the static pass checks: "eval", "train" or "both" (each finding then
    #: says the mode it holds in); None: both when the project holds a training loop (or
    #: ``train``), else eval
    module_mode: str | None = None
    #: the static pass also checks half-precision-only code (``if x.dtype == torch.float16:``);
    #: off, tensors are taken to be float32, as modules are built
    half: bool = False
    #: decide compiled regions over the whole project (bases, calls, loggers across files)
    project: bool = True
    #: also read installed third-party packages the checked files import
    follow_imports: bool = False
    #: source roots for module names (relative to ``root``; default the root and ``src``)
    src: list[str] = field(default_factory=list)
    #: the folder relative paths in the config are resolved against
    root: str = "."
    #: the config file this came from, if any
    source: str | None = None

    # -- rule selection ---------------------------------------------------------------
    @property
    def selected(self) -> list[str]:
        """``select`` plus ``extend-select``."""
        return [*self.select, *self.extend_select]

    @property
    def ignored(self) -> list[str]:
        """``ignore`` plus ``extend-ignore``."""
        return [*self.ignore, *self.extend_ignore]

    def enabled_rules(self, codes: Sequence[str]) -> list[str]:
        select, ignore = self.selected, self.ignored
        return [c for c in codes if _selected(c, select) and not _selected(c, ignore)]

    def ignored_for(self, path: str) -> list[str]:
        out: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if match_path(path, pattern):
                out.extend(codes)
        return out

    def static_torch_version(self) -> str | None:
        """The measured torch version (``"2.15"``) whose breaks the static pass reports."""
        from torchlint.matrix import resolve

        try:
            return resolve(self.torch_version)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


def _selected(code: str, prefixes: Sequence[str]) -> bool:
    for p in prefixes:
        if p == "ALL" or code.startswith(p):
            return True
    return False


def match_path(path: str, pattern: str) -> bool:
    """Glob match against the path, or any trailing part of it (``tests/*`` or ``*.py``)."""
    path = path.replace(os.sep, "/")
    if fnmatch.fnmatch(path, pattern):
        return True
    parts = path.split("/")
    return any(fnmatch.fnmatch("/".join(parts[i:]), pattern) for i in range(1, len(parts))) or any(
        fnmatch.fnmatch(part, pattern) for part in parts
    )


def find_config(start: str | None = None) -> Path | None:
    """The nearest pyproject.toml with a ``[tool.torchlint]`` table, from ``start`` upward."""
    cur = Path(start or os.getcwd()).resolve()
    for folder in [cur, *cur.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text("utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"{candidate}: cannot read TOML: {exc}") from None
            if "torchlint" in data.get("tool", {}):
                return candidate
    return None


def config_start(paths: Sequence[str], cwd: str | None = None) -> str:
    """Where config discovery starts for a run over ``paths``: their common folder (a file's
    own folder), so ``torchlint check proj/src`` from outside ``proj`` uses ``proj``'s config."""
    cwd = os.path.abspath(cwd or os.getcwd())
    folders = []
    for p in paths or (".",):
        full = os.path.abspath(os.path.join(cwd, p))
        folders.append(full if os.path.isdir(full) else os.path.dirname(full))
    try:
        return os.path.commonpath(folders)
    except ValueError:  # different drives
        return cwd


def load_settings(path: str | None = None, start: str | None = None) -> Settings:
    """Settings from ``path`` (or the nearest pyproject.toml with a ``[tool.torchlint]`` table
    from ``start`` upward, else from the working directory upward), defaults when there is none."""
    if not path and start is not None:
        found = find_config(start)
        if found is None and os.path.abspath(start) != os.getcwd():
            found = find_config(None)
        path = str(found) if found else None
    file = Path(path) if path else (None if start is not None else find_config(None))
    if file is None:
        return Settings()
    if not file.is_file():
        raise ConfigError(f"{file}: config file not found")
    try:
        data = tomllib.loads(file.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("torchlint")
    if table is None:
        # A dedicated torchlint.toml may hold the keys at the top level.
        table = data if file.name != "pyproject.toml" else {}
    return parse_table(table, str(file))


_KEYS = {
    "select",
    "ignore",
    "extend-select",
    "extend-ignore",
    "per-file-ignores",
    "exclude",
    "max-graph-breaks",
    "max-recompiles",
    "baseline",
    "targets",
    "timeout",
    "cache-dir",
    "jobs",
    "max-memory",
    "cost-calls",
    "mode",
    "device",
    "max-cudagraph-skips",
    "torch-version",
    "project",
    "follow-imports",
    "src",
    "train",
    "module-mode",
    "half",
}


def parse_table(table: dict[str, Any], source: str) -> Settings:
    """Settings from a ``[tool.torchlint]`` table; every bad key and value is collected and
    raised as one :class:`ConfigError` (one line each), not only the first."""
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.torchlint] must be a table")
    s = Settings(root=str(Path(source).resolve().parent), source=source)
    problems: list[str] = []
    for key, value in table.items():
        try:
            _parse_key(s, key, value, source)
        except ConfigError as exc:
            problems.extend(exc.problems)
    if not problems:
        try:
            check_run_options(s, f"{source}: [tool.torchlint]")
        except ConfigError as exc:
            problems.extend(exc.problems)
    for i, t in enumerate(s.targets):
        try:
            check_run_options(t, f"{source}: [tool.torchlint] targets[{i}]", s)
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError.of(problems)
    return s


def _parse_key(s: Settings, key: str, value: Any, source: str) -> None:
    where = f"{source}: [tool.torchlint] {key}"
    if key not in _KEYS:
        raise ConfigError(f"{source}: unknown key `{key}` in [tool.torchlint] (known: {', '.join(sorted(_KEYS))})")
    if key in ("select", "ignore", "extend-select", "extend-ignore"):
        setattr(s, key.replace("-", "_"), parse_codes(value, where))
    elif key == "exclude":
        s.exclude = _strings(value, where)
    elif key == "per-file-ignores":
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a table of glob = [codes], got {type(value).__name__}")
        problems: list[str] = []
        for k, v in value.items():
            try:
                s.per_file_ignores[k] = parse_codes(v, f"{where}.{k}")
            except ConfigError as exc:
                problems.extend(exc.problems)
        if problems:
            raise ConfigError.of(problems)
    elif key in ("max-graph-breaks", "max-recompiles", "max-cudagraph-skips", "jobs", "cost-calls"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"{where}: expected a non-negative integer, got {value!r}")
        setattr(s, key.replace("-", "_"), value)
    elif key == "timeout":
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"{where}: expected a positive number of seconds, got {value!r}")
        s.timeout = float(value)
    elif key in ("baseline", "cache-dir"):
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: expected a path string, got {value!r}")
        if key == "baseline":  # relative to the config's folder, as the targets are
            value = os.path.join(s.root, os.path.expanduser(value))
        setattr(s, key.replace("-", "_"), value)
    elif key == "max-memory":
        s.max_memory = parse_size(value, where)
    elif key == "targets":
        s.targets = _targets(value, where)
    elif key == "torch-version":
        s.torch_version = check_torch_version(value, where)
    elif key in ("project", "follow-imports", "train", "half"):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        setattr(s, key.replace("-", "_"), value)
    elif key == "module-mode":
        if value not in ("eval", "train", "both"):
            raise ConfigError(f'{where}: expected "eval", "train" or "both", got {value!r}')
        s.module_mode = value
    elif key == "src":
        s.src = _strings(value, where)
    elif key in ("mode", "device"):
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        setattr(s, key, value)


MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
#: the modes whose compiled graphs inductor replays as CUDA graphs (their skips are measured)
CUDAGRAPH_MODES = ("reduce-overhead", "max-autotune")
DEVICES = ("cpu", "cuda")


def check_mode(mode: str | None, device: str | None, where: str) -> None:
    """Raise :class:`ConfigError` for an unknown mode/device or reduce-overhead on the CPU."""
    if mode is not None and mode not in MODES:
        raise ConfigError(f"{where}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    if device is not None and device not in DEVICES:
        raise ConfigError(f"{where}: device must be one of {', '.join(DEVICES)}, got {device!r}")
    if mode in CUDAGRAPH_MODES and device == "cpu":
        raise ConfigError(
            f"{where}: mode {mode} captures CUDA graphs, which inductor uses "
            "only on CUDA devices; use device cuda (or mode default on the CPU)"
        )


def check_run_options(values: Any, where: str, defaults: Settings | None = None) -> None:
    """``mode``/``device`` of settings (or of a target table, falling back to ``defaults``)
    are known values and not reduce-overhead on the CPU; raises :class:`ConfigError`."""

    def get(key: str) -> Any:
        return values.get(key) if isinstance(values, dict) else getattr(values, key, None)

    mode = get("mode") or (defaults.mode if defaults is not None else None)
    device = get("device") or (defaults.device if defaults is not None else None)
    check_mode(mode, device, where)


def check_torch_version(value: Any, where: str) -> str:
    """A ``torch-version`` value: a string naming a version of the measured matrix."""
    from torchlint.matrix import resolve

    if not isinstance(value, str):
        raise ConfigError(f'{where}: expected a version string such as "2.15" (quoted), got {value!r}')
    try:
        resolve(value, where)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return value


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$", re.I)


def parse_size(value: Any, where: str) -> int:
    """``"8G"``, ``"512MiB"``, ``"1.5GB"`` (powers of 1024) -> bytes; ``"none"`` or 0 -> 0 (no limit)."""
    if isinstance(value, str) and value.strip().lower() in ("none", "unlimited", "0"):
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return 0
    match = _SIZE.match(value) if isinstance(value, str) else None
    if not match:
        raise ConfigError(f'{where}: expected a size such as "8G" or "512M" (or "none"), got {value!r}')
    size = int(float(match.group(1)) * 1024 ** " KMGT".index(match.group(2).upper() or " "))
    if size < 1 << 20:
        raise ConfigError(f'{where}: {value!r} is too small for a model (a size such as "8G" or "512M")')
    return size


def format_size(size: int) -> str:
    """Bytes for people: ``1.5 GiB``, ``512 MiB`` (the inverse of :func:`parse_size`)."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.3g} {unit}"
    return f"{size} B"


def _strings(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return list(value)


def codes_option(value: Any, where: str) -> list[str] | None:
    """Rule codes given as an option (``--select``, ``select=``): ``None``, a comma-separated
    string or a list of strings, checked as :func:`parse_codes` checks the config's."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.split(",")
    if isinstance(value, (list, tuple, set, frozenset)):
        value = [c.strip() if isinstance(c, str) else c for c in value]
        value = [c for c in value if c != ""]
    return parse_codes(value, where)


def parse_codes(value: Any, where: str) -> list[str]:
    """Rule codes or prefixes (``TL001``, ``TL0``, ``ALL``), upper-cased; one that is not a
    code, or that matches no rule (``TL5``, ``TL04``), is an error naming ``where``."""
    codes = _strings(value, where)
    problems = []
    known = rule_codes()
    for c in codes:
        if c.upper() != "ALL" and not (c.upper().startswith("TL") and c[2:].isdigit() or c.upper() == "TL"):
            problems.append(f"{where}: `{c}` is not a rule code or prefix (expected e.g. TL001, TL0, ALL)")
        elif c.upper() != "ALL" and not any(k.startswith(c.upper()) for k in known):
            problems.append(f"{where}: `{c}` matches no rule (see `torchlint rules --all`)")
    if problems:
        raise ConfigError.of(problems)
    return [c.upper() for c in codes]


def rule_codes() -> list[str]:
    """Every rule's code, read from the rule modules' file names (``tl001_tensor_item.py``)
    without importing them: a run answered by the cache never loads libcst."""
    global _RULE_CODES
    if _RULE_CODES is None:
        folder = Path(__file__).resolve().parent / "rules"
        _RULE_CODES = sorted(
            f"TL{m.group(1)}" for m in (re.match(r"tl(\d{3})_\w+\.py$", p.name) for p in folder.iterdir()) if m
        )
    return _RULE_CODES


_RULE_CODES: list[str] | None = None


def _targets(value: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected an array of tables ([[tool.torchlint.targets]])")
    out = []
    problems: list[str] = []
    for i, t in enumerate(value):
        for key, text in target_table_problems(t):
            problems.append(f"{where}[{i}]{'.' + key if key else ''}: {text}")
        if isinstance(t, dict):
            out.append(dict(t))
    if problems:
        raise ConfigError.of(problems)
    return out


def target_table_problems(table: Any) -> list[tuple[str | None, str]]:
    """Everything wrong with one target table (``[[tool.torchlint.targets]]``, or a target
    given to the CLI or the API with the same keys): ``(key or None, problem)`` pairs, empty
    when nothing. The one check of target keys and their types; values are parsed by the
    dynamic pass."""
    if not isinstance(table, dict):
        return [(None, "expected a table")]
    out: list[tuple[str | None, str]] = []
    for k, v in table.items():
        if k not in TARGET_KEYS:
            out.append((None, f"unknown key `{k}` (known: {', '.join(sorted(TARGET_KEYS))})"))
            continue
        expected = TARGET_KEYS[k]
        if not isinstance(v, expected) or (isinstance(v, bool) and expected is not bool):
            out.append((k, f"expected {_type_name(expected)}, got {v!r}"))
        elif isinstance(v, list) and not all(isinstance(x, str) for x in v):  # a list key's value
            out.append((k, f"expected a list of input-spec strings, got {v!r}"))
    if "target" not in table:
        out.append((None, 'missing required key `target` (e.g. target = "model.py:Net")'))
    return out


def target_table_problem(table: Any) -> tuple[str | None, str] | None:
    """The first of :func:`target_table_problems`, or None."""
    problems = target_table_problems(table)
    return problems[0] if problems else None


def _type_name(t: type | tuple[type, ...]) -> str:
    names: dict[type, str] = {str: "a string", list: "a list of strings", bool: "true or false", int: "an integer"}
    if isinstance(t, tuple):
        return "a number"
    return names.get(t, t.__name__)


def select_override(
    settings: Settings,
    *,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    extend_select: list[str] | None = None,
    extend_ignore: list[str] | None = None,
) -> Settings:
    """Command-line rule selection over the config's, as ruff does it: ``select`` replaces the
    config's ``select`` and ``extend-select``, ``ignore`` its ``ignore``; the ``extend_``
    lists add to what is there."""
    values: dict[str, Any] = {}
    if select is not None:
        values.update(select=select, extend_select=[])
    if ignore is not None:
        values["ignore"] = ignore
    if extend_select:
        values["extend_select"] = [*values.get("extend_select", settings.extend_select), *extend_select]
    if extend_ignore:
        values["extend_ignore"] = [*settings.extend_ignore, *extend_ignore]
    return dataclasses.replace(settings, **values)


def override(settings: Settings, **cli: Any) -> Settings:
    """Command-line values win over the config file; ``None`` means not given."""
    values = {k: v for k, v in cli.items() if v is not None}
    return dataclasses.replace(settings, **values)
