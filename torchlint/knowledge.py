"""What dynamo cannot trace, per torch version, as measured by ``benchmarks/knowledge.py``.

The generator asks the installed torch (dynamo's trace rules, its fake kernels, and a run of
each example through dynamo) and writes ``torchlint/data/knowledge-<major.minor>.json``. This
module reads the file of the version the static pass reports for, without importing torch:

* the ``torch-version`` setting (:func:`torchlint.matrix.active_version`) when set;
* else the installed torch's version (read from its metadata);
* else, or when that version was not measured, the nearest measured version: the newest
  not newer than it, else the oldest.

The rules read :func:`skipped_calls` and :func:`skipped_packages` (TL009), :func:`dynamic_shape_functions` and
:func:`dynamic_shape_methods` (TL008), :func:`data_dependent_functions` (TL016).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

from torchlint import matrix

_FILE = re.compile(r"^knowledge-(\d+)\.(\d+)\.json$")


@functools.lru_cache(maxsize=1)
def measured() -> dict[str, str]:
    """Measured version -> file name (``{"2.13": "knowledge-2.13.json"}``)."""
    out = {}
    for entry in resources.files("torchlint.data").iterdir():
        m = _FILE.match(entry.name)
        if m:
            out[f"{int(m.group(1))}.{int(m.group(2))}"] = entry.name
    return out


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def version_for(wanted: str | None) -> str | None:
    """The measured version nearest ``wanted`` (a major.minor key or None)."""
    known = sorted(measured(), key=_key)
    if not known:
        return None
    if wanted is None:
        return known[-1]
    older = [v for v in known if _key(v) <= _key(wanted)]
    return older[-1] if older else known[0]


def current_version() -> str | None:
    """The version whose knowledge the static pass of this process reads."""
    wanted = matrix.active_version()
    if wanted is None:
        installed = matrix.installed_torch()
        wanted = matrix.minor(installed) if installed else None
    return version_for(wanted)


@functools.lru_cache(maxsize=8)
def load(version: str | None) -> dict[str, Any]:
    """The knowledge of a measured version (empty when none is measured)."""
    name = measured().get(version or "")
    if name is None:
        return {}
    return json.loads(resources.files("torchlint.data").joinpath(name).read_text("utf-8"))


def current() -> dict[str, Any]:
    return load(current_version())


def skipped_calls(data: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Qualified name -> entry of each call dynamo broke on (``time.time``, ``os.getpid``)."""
    data = current() if data is None else data
    return {name: e for name, e in data.get("calls", {}).items() if e.get("verdict") == "breaks"}


def breaking_decorators(data: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Calls that make a decorator dynamo breaks on when it is applied (``functools.lru_cache``:
    ``lru_cache(maxsize=8)`` is traced, ``lru_cache(maxsize=8)(fn)`` breaks)."""
    data = current() if data is None else data
    return {name: e for name, e in data.get("decorators", {}).items() if e.get("verdict") == "breaks"}


def traced_calls(data: dict[str, Any] | None = None) -> set[str]:
    """The measured calls dynamo traced (compiled whole with them)."""
    data = current() if data is None else data
    return {name for name, e in data.get("calls", {}).items() if e.get("verdict") == "traced"}


def breaking_stores(data: dict[str, Any] | None = None) -> set[str]:
    """Objects whose item assignment breaks (``os.environ``)."""
    data = current() if data is None else data
    return {name for name, e in data.get("stores", {}).items() if e.get("verdict") == "breaks"}


def skipped_packages(data: dict[str, Any] | None = None) -> frozenset[str]:
    """The third-party packages whose every function dynamo skips (``tqdm``, ``sklearn``,
    ``pandas``): a call of one in compiled code runs in Python and splits the graph."""
    data = current() if data is None else data
    return frozenset(n for n, e in data.get("skipped_packages", {}).items() if e.get("verdict") == "breaks")


def dynamic_shape_functions(data: dict[str, Any] | None = None) -> set[str]:
    data = current() if data is None else data
    return set(data.get("dynamic_shape_ops", {}).get("functions", {}))


def dynamic_shape_methods(data: dict[str, Any] | None = None) -> set[str]:
    data = current() if data is None else data
    return set(data.get("dynamic_shape_ops", {}).get("methods", {}))


def data_dependent_functions(data: dict[str, Any] | None = None) -> set[str]:
    data = current() if data is None else data
    return set(data.get("data_dependent_ops", {}).get("functions", {}))


def breaking_context_managers(data: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Qualified name -> entry of each context manager dynamo cannot enter (``with
    threading.Lock():``, ``with torch.random.fork_rng():``), as measured on its example."""
    data = current() if data is None else data
    return {name: e for name, e in data.get("context_managers", {}).items() if e.get("verdict") == "breaks"}


def breaking_tensor_attributes(data: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Tensor attributes whose read dynamo cannot trace (``y.grad_fn`` in an autograd graph),
    each with its entry (``requires_grad``: it breaks only on a tensor that requires grad)."""
    data = current() if data is None else data
    return {name: e for name, e in data.get("tensor_attributes", {}).items() if e.get("verdict") == "breaks"}


def random_generator_breaks(data: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """What breaks when a ``torch.Generator`` is at hand: making one (``torch.Generator``),
    calling its methods (``torch.Generator.manual_seed``), and each random draw given one
    (``torch.randn``, ``Tensor.uniform_``, ``torch.nn.init.normal_`` with ``generator=``),
    each with its entry."""
    data = current() if data is None else data
    return {name: e for name, e in data.get("random_generators", {}).items() if e.get("verdict") == "breaks"}


def numpy_on_numbers(data: dict[str, Any] | None = None) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """What numpy of one number does under dynamo, for an int read from a shape and a float
    computed from one: the functions it does not fold to a constant, with the kinds it breaks
    on (``{"numpy.ceil": {"int"}}``: ``np.ceil(n)`` breaks, ``np.ceil(n / 3)`` is folded), and
    those that give an int of an int (``numpy.prod``; ``np.sqrt(n)`` is a float)."""
    if data is None:  # (asked once a file: read once a version)
        return _numpy_on_numbers(current_version())
    breaks: dict[str, frozenset[str]] = {}
    keeps: set[str] = set()
    for name, entry in data.get("numpy_on_numbers", {}).items():
        kinds = frozenset(k for k in ("int", "float") if entry.get(k, {}).get("verdict") == "breaks")
        if kinds:
            breaks[name] = kinds
        if entry.get("int", {}).get("returns") == "int":
            keeps.add(name)
    return breaks, frozenset(keeps)


@functools.lru_cache(maxsize=8)
def _numpy_on_numbers(version: str | None) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    return numpy_on_numbers(load(version))


def generator_consumers(data: dict[str, Any] | None = None) -> set[str]:
    """Builtins (``all``, ``any``, ``sum``) at whose call a break inside the generator
    expression they consume breaks the graph too."""
    data = current() if data is None else data
    return {name for name, e in data.get("generator_consumers", {}).items() if e.get("verdict") == "breaks"}
