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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_SELECT = ("TL0",)  # graph breaks; TL1xx performance warnings are opt-in
TARGET_KEYS = {
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
}


class ConfigError(Exception):
    """A configuration problem, with a one-line message naming the key and the file."""


@dataclass
class Settings:
    select: List[str] = field(default_factory=lambda: list(DEFAULT_SELECT))
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    exclude: List[str] = field(default_factory=list)
    max_graph_breaks: Optional[int] = None
    max_recompiles: Optional[int] = None
    #: ``reduce-overhead`` adds the CUDA-graph check; ``device`` moves targets and inputs
    mode: Optional[str] = None
    device: Optional[str] = None
    max_cudagraph_skips: Optional[int] = None
    baseline: Optional[str] = None
    targets: List[Dict[str, Any]] = field(default_factory=list)
    timeout: float = 120.0
    cache_dir: Optional[str] = None
    jobs: Optional[int] = None
    #: bytes a dynamic target may allocate (None: half the machine's memory; 0: no limit)
    max_memory: Optional[int] = None
    #: the folder relative paths in the config are resolved against
    root: str = "."
    #: the config file this came from, if any
    source: Optional[str] = None

    # -- rule selection ---------------------------------------------------------------
    def enabled_rules(self, codes: Sequence[str]) -> List[str]:
        return [c for c in codes if _selected(c, self.select) and not _selected(c, self.ignore)]

    def ignored_for(self, path: str) -> List[str]:
        out: List[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if match_path(path, pattern):
                out.extend(codes)
        return out


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


def find_config(start: Optional[str] = None) -> Optional[Path]:
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


def load_settings(path: Optional[str] = None, start: Optional[str] = None) -> Settings:
    """Settings from ``path`` (or the nearest pyproject.toml), defaults when there is none."""
    file = Path(path) if path else find_config(start)
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
    "select", "ignore", "per-file-ignores", "exclude", "max-graph-breaks", "max-recompiles",
    "baseline", "targets", "timeout", "cache-dir", "jobs", "max-memory", "mode", "device", "max-cudagraph-skips",
}


def parse_table(table: Dict[str, Any], source: str) -> Settings:
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.torchlint] must be a table")
    s = Settings(root=str(Path(source).resolve().parent), source=source)
    for key, value in table.items():
        where = f"{source}: [tool.torchlint] {key}"
        if key not in _KEYS:
            raise ConfigError(f"{source}: unknown key `{key}` in [tool.torchlint] (known: {', '.join(sorted(_KEYS))})")
        if key in ("select", "ignore", "exclude"):
            setattr(s, key, parse_codes(value, where) if key != "exclude" else _strings(value, where))
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a table of glob = [codes], got {type(value).__name__}")
            s.per_file_ignores = {k: parse_codes(v, f"{where}.{k}") for k, v in value.items()}
        elif key in ("max-graph-breaks", "max-recompiles", "max-cudagraph-skips", "jobs"):
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
            setattr(s, key.replace("-", "_"), value)
        elif key == "max-memory":
            s.max_memory = parse_size(value, where)
        elif key == "targets":
            s.targets = _targets(value, where)
        elif key in ("mode", "device"):
            if not isinstance(value, str):
                raise ConfigError(f"{where}: expected a string, got {value!r}")
            setattr(s, key, value)
    check_run_options(s, f"{source}: [tool.torchlint]")
    for i, t in enumerate(s.targets):
        check_run_options(t, f"{source}: [tool.torchlint] targets[{i}]", s)
    return s


MODES = ("default", "reduce-overhead")
DEVICES = ("cpu", "cuda")


def check_mode(mode: Optional[str], device: Optional[str], where: str) -> None:
    """Raise :class:`ConfigError` for an unknown mode/device or reduce-overhead on the CPU."""
    if mode is not None and mode not in MODES:
        raise ConfigError(f"{where}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    if device is not None and device not in DEVICES:
        raise ConfigError(f"{where}: device must be one of {', '.join(DEVICES)}, got {device!r}")
    if mode == "reduce-overhead" and device == "cpu":
        raise ConfigError(f"{where}: mode reduce-overhead captures CUDA graphs, which inductor uses "
                          "only on CUDA devices; use device cuda (or mode default on the CPU)")


def check_run_options(values: Any, where: str, defaults: Optional[Settings] = None) -> None:
    """``mode``/``device`` of settings (or of a target table, falling back to ``defaults``)
    are known values and not reduce-overhead on the CPU; raises :class:`ConfigError`."""
    get = values.get if isinstance(values, dict) else lambda k: getattr(values, k, None)
    mode = get("mode") or (defaults.mode if defaults is not None else None)
    device = get("device") or (defaults.device if defaults is not None else None)
    check_mode(mode, device, where)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$", re.I)


def parse_size(value: Any, where: str) -> int:
    """``"8G"``, ``"512MiB"``, ``"1.5GB"`` (powers of 1024) -> bytes; ``"none"`` or 0 -> 0 (no limit)."""
    if isinstance(value, str) and value.strip().lower() in ("none", "unlimited", "0"):
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return 0
    match = _SIZE.match(value) if isinstance(value, str) else None
    if not match:
        raise ConfigError(f"{where}: expected a size such as \"8G\" or \"512M\" (or \"none\"), got {value!r}")
    size = int(float(match.group(1)) * 1024 ** " KMGT".index(match.group(2).upper() or " "))
    if size < 1 << 20:
        raise ConfigError(f"{where}: {value!r} is too small for a model (a size such as \"8G\" or \"512M\")")
    return size


def format_size(size: int) -> str:
    """Bytes for people: ``1.5 GiB``, ``512 MiB`` (the inverse of :func:`parse_size`)."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.3g} {unit}"
    return f"{size} B"


def _strings(value: Any, where: str) -> List[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return list(value)


def codes_option(value: Any, where: str) -> Optional[List[str]]:
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


def parse_codes(value: Any, where: str) -> List[str]:
    """Rule codes or prefixes (``TL001``, ``TL0``, ``ALL``; any case), upper-cased; anything
    else raises :class:`ConfigError` naming ``where``."""
    codes = _strings(value, where)
    for c in codes:
        if c.upper() != "ALL" and not (c.upper().startswith("TL") and c[2:].isdigit() or c.upper() == "TL"):
            raise ConfigError(f"{where}: `{c}` is not a rule code or prefix (expected e.g. TL001, TL0, ALL)")
    return [c.upper() for c in codes]


def _targets(value: Any, where: str) -> List[Dict[str, Any]]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected an array of tables ([[tool.torchlint.targets]])")
    out = []
    for i, t in enumerate(value):
        problem = target_table_problem(t)
        if problem is not None:
            key, text = problem
            raise ConfigError(f"{where}[{i}]{'.' + key if key else ''}: {text}")
        out.append(dict(t))
    return out


def target_table_problem(table: Any) -> Optional[Tuple[Optional[str], str]]:
    """What is wrong with one target table (``[[tool.torchlint.targets]]``, or a target given
    to the CLI or the API with the same keys): ``(key or None, problem)``, None when nothing.
    The one check of target keys and their types; values are parsed by the dynamic pass."""
    if not isinstance(table, dict):
        return None, "expected a table"
    for k, v in table.items():
        if k not in TARGET_KEYS:
            return None, f"unknown key `{k}` (known: {', '.join(sorted(TARGET_KEYS))})"
        expected = TARGET_KEYS[k]
        if not isinstance(v, expected) or (isinstance(v, bool) and expected is not bool):
            return k, f"expected {_type_name(expected)}, got {v!r}"
        if expected is list and not all(isinstance(x, str) for x in v):
            return k, f"expected a list of input-spec strings, got {v!r}"
    if "target" not in table:
        return None, "missing required key `target` (e.g. target = \"model.py:Net\")"
    return None


def _type_name(t) -> str:
    names = {str: "a string", list: "a list of strings", bool: "true or false", int: "an integer"}
    if isinstance(t, tuple):
        return "a number"
    return names.get(t, t.__name__)


def override(settings: Settings, **cli: Any) -> Settings:
    """Command-line values win over the config file; ``None`` means not given."""
    values = {k: v for k, v in cli.items() if v is not None}
    return dataclasses.replace(settings, **values)
