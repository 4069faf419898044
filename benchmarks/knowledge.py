"""What dynamo cannot trace, asked of the installed torch: the data the static rules read.

Run it with the Python of the torch to measure (a matrix venv for another version):

    python benchmarks/knowledge.py [--out DIR] [--only calls,methods,...,numbers] [--modules SPEC[,SPEC]] [-v]

It writes ``torchlint/data/knowledge-<major.minor>.json`` (``--out`` for another folder):

* ``calls``: every public callable of the modules of :data:`MODULES` (the standard library
  modules model code reaches for, torch's own functions dynamo's trace rules mark skipped or
  put in the graph while they return a Python value read from torch's state, such as
  ``torch.get_num_threads()``,
  and numpy's polynomial, linalg and fft modules, where a break is kept only when its reason
  is about the function, not the example's arguments), each given an example call found by
  trying a small table of arguments eagerly (``--modules``: these entries of MODULES alone,
  the file's other calls kept),
  then run through dynamo in a compiled function (``torch._dynamo.explain``). An entry is
  ``"breaks"`` (with dynamo's reason) or ``"traced"``, with what
  ``torch._dynamo.trace_rules.lookup`` says of it. No verdict comes from reading torch's
  source or from a list: dynamo decides each one;
* ``decorators``: the traced calls that make a decorator (``functools.lru_cache(maxsize=8)``),
  with what applying it to a function does in a compiled function (the decorator of a
  function defined inside a region);
* ``generator_consumers``: the builtins (``all``, ``any``, ``sum``, ...) at whose call a break
  inside the generator expression they consume breaks the graph too;
* ``stores``: item assignments dynamo cannot trace (``os.environ[...] = ...``), found the same way;
* ``numpy_on_numbers`` (``--only numbers``): each numpy function of one number (its
  one-argument ufuncs, its reductions and rounding, its scalar types as casts: ``np.int64(n)``)
  on an int read from a shape and on a float
  computed from one, used as a size and as a number: folded to a constant, or a break;
* ``random_generators`` (``--only randoms``): each random draw that takes a ``generator``
  (torch functions and tensor methods whose documentation names one, ``torch.nn.init``
  functions whose signature has one) called with ``generator=GEN`` on the first example that
  runs eagerly, and making, seeding and reading a ``torch.Generator``;
* ``skipped_packages`` (``--only packages``): the third-party packages whose every function
  dynamo skips (the candidates torch's trace rules list), each proven by compiling a call of a
  function of a stand-in package of that name, in a child process;
* ``tensor_methods``: every public method of ``torch.Tensor`` called the same way, on the first
  receiver it runs on: a tensor, a one-element tensor, a tensor in an autograd graph (an entry
  measured on the last says ``requires_grad``: it breaks only in training);
* ``tensor_attributes``: every public tensor attribute that is not a method, read on a tensor
  computed from an input, without and then with ``requires_grad`` (``y.grad_fn``);
* ``context_managers``: every context manager of :data:`CONTEXT_MODULES` that can be made and
  entered eagerly, entered around a tensor op in a compiled function (``with
  torch.random.fork_rng():``);
* ``dynamic_shape_ops`` / ``data_dependent_ops``: the aten operators whose fake (meta)
  kernel raises ``DynamicOutputShapeException`` (the output's size depends on the values)
  or ``DataDependentOutputException`` (a Python value computed from the data) under
  ``FakeTensorMode``, with arguments built from each operator's schema, and the torch
  functions and tensor methods of the same name; each function is then run through dynamo
  on the same (real) arguments, and only those that break are kept.

The rules read the file of the installed torch's version, or of the nearest measured one
(:mod:`torchlint.knowledge`); ``tests/rules/test_knowledge.py`` runs the committed examples
through dynamo again. Eager trials run in a temporary folder, with no standard input, and
only functions that cannot harm the machine are tried with arguments (see :func:`_may_try`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import json
import os
import sys
import tempfile
import time
import types
import warnings
from collections.abc import Iterator
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the modules whose public callables are measured ("module" or "module:Class" for a class's
#: class methods, such as ``datetime.datetime.now``)
MODULES = (
    "builtins",
    "time",
    "random",
    "os",
    "os.path",
    "sys",
    "inspect",
    "traceback",
    "json",
    "io",
    "pickle",
    "warnings",
    "logging",
    "hashlib",
    "zlib",
    "binascii",
    "base64",
    "datetime:datetime",
    "datetime:date",
    "copy",
    "importlib",
    "platform",
    "gc",
    "uuid",
    "struct",
    "glob",
    "pprint",
    "textwrap",
    "string",
    "re",
    "math",
    "operator",
    "functools",
    "itertools",
    "collections",
    "heapq",
    "bisect",
    "statistics",
    "secrets",
    "typing",
    "dataclasses",
    "types",
    "enum",
    "abc",
    "torch.autograd.functional",
    "torch",
    "torch.cuda",
    "torch.random",
    "torch.jit",
    "torch.quasirandom",
    # numpy's submodules, which dynamo traces through torch._numpy where that has the function
    # (numpy's own namespace is TL009's `numpy_unsupported`, read from torch._numpy itself)
    "numpy.linalg",
    "numpy.fft",
    "numpy.random",
    "numpy.polynomial.polynomial",
    "numpy.polynomial.legendre",
    "numpy.polynomial.chebyshev",
    "numpy.polynomial.hermite",
    "numpy.polynomial.hermite_e",
    "numpy.polynomial.laguerre",
)

#: modules whose functions act on the process or the machine: only functions that take no
#: argument and only read (``os.getpid``, ``sys.getsizeof`` is tried as a getter) are tried
_GETTERS_ONLY = {"os", "sys", "gc", "platform", "torch.cuda", "importlib", "builtins"}
#: names never called, whatever their module: they end, fork, block on input or change the
#: process for what follows
_NEVER = {
    "Manager",  # (multiprocessing: start processes)
    "Pool",
    "abort",
    "breakpoint",
    "copyright",
    "credits",
    "exit",
    "fork",
    "forkpty",
    "help",
    "input",
    "kill",
    "test",  # (numpy.random.test: runs numpy's test suite)
    "killpg",
    "license",
    "quit",
    "setrecursionlimit",
    "setprofile",
    "settrace",
    "setsid",
    "setpgrp",
    "wait",
    "wait3",
    "sync",
    "pipe",
    "openpty",
    "register_at_fork",
    "system",
    "pause",
    "getpass",
    "set_default_device",
    "set_default_dtype",
    "set_default_tensor_type",
    "use_deterministic_algorithms",
    "set_deterministic_debug_mode",
    "set_num_threads",
    "set_num_interop_threads",
    "set_printoptions",
    "set_float32_matmul_precision",
    "set_warn_always",
    "set_flush_denormal",
    "set_anomaly_enabled",
    "set_grad_enabled",
    "compile",
    "exec",
    "eval",
    "__import__",
    "setattr",
    "delattr",
    "disable",
    "reset",
    "memory_summary",
    "cudart",
    "init",
    "ipc_collect",
    "empty_cache",
    "manual_seed_all",
    "seed_all",
    "addaudithook",
    "displayhook",
    "excepthook",
}
#: argument lists tried in order (source text; ``x`` is a float tensor of 4, ``helper`` a
#: one-argument function, ``buf`` a fresh ``io.BytesIO()``): Python values first, so that a
#: verdict on a call is not one on what dynamo does with a tensor argument
#: (``random.uniform(x, x)`` breaks, ``random.uniform(1, 1)`` is traced); the last is a
#: type check (``torch.jit.isinstance(x, torch.Tensor)``)
ARGS = (
    "",
    "'ignore'",
    "'a'",
    "'1'",
    "1",
    "b'abc'",
    "[1, 2]",
    "{'a': 1}",
    "helper",
    "'a', 'a'",
    "1, 1",
    "x",
    "x, buf",
    "x, x",
    "helper, x",
    "1, [1, 2]",
    "x, torch.Tensor",
)
_GETTER_ARGS = ("", "x")
TORCH_SKIP_ONLY = {"torch", "torch.cuda", "torch.random", "torch.jit", "torch.quasirandom"}
#: of those, the modules whose skipped classes are tried too, made in the compiled function
#: (``torch.quasirandom.SobolEngine(2)``: botorch draws its quasi-random samples with one)
TORCH_CLASSES_TOO = {"torch.quasirandom"}


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def helper(t):
    return t


def _may_try(module: str, name: str, obj: Any) -> bool:
    if name.startswith("_") or name in _NEVER:
        return False
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return False
    return callable(obj)


def _namespace(torch) -> dict[str, Any]:
    return {"x": torch.randn(4), "helper": helper, "buf": io.BytesIO(), "torch": torch}


def _import_line(module: str) -> str:
    return f"import {module.split(':')[0]}"


def candidates(torch, specs=MODULES) -> list[tuple[str, str, Any]]:
    """(module, qualified name, object) of each public callable of :data:`MODULES`; of torch's
    namespaces only what dynamo's trace rules mark skipped (the rest is traced by design)."""
    from torch._dynamo import trace_rules
    from torch._dynamo.variables import SkipFunctionVariable

    out = []
    for spec in specs:
        modname, _, cls = spec.partition(":")
        mod = importlib.import_module(modname)
        owner = getattr(mod, cls) if cls else mod
        prefix = f"{modname}.{cls}" if cls else modname
        for name in sorted(dir(owner)):
            try:
                obj = getattr(owner, name)
            except Exception:  # noqa: BLE001 - a failed trial is no verdict
                continue
            if not _may_try(modname, name, obj):
                continue
            if cls and not (inspect.ismethod(obj) or inspect.isbuiltin(obj)):
                continue  # a class's class methods (datetime.datetime.now), not its instance methods
            if modname in TORCH_SKIP_ONLY:
                if inspect.ismodule(obj) or (inspect.isclass(obj) and modname not in TORCH_CLASSES_TOO):
                    continue
                try:
                    rule = trace_rules.lookup(obj)
                except Exception:  # noqa: BLE001 - a failed trial is no verdict
                    continue
                if rule is not SkipFunctionVariable and not _reads_state(rule, obj):
                    continue
            if inspect.ismodule(obj):
                continue
            out.append((spec, f"{prefix}.{name}", obj))
    return out


def _reads_state(rule: Any, obj: Any) -> bool:
    """Whether a function dynamo's trace rules put in the graph returns a Python number, flag
    or string when called with no arguments (``torch.get_num_threads()``): what it makes of
    such a call is measured like a skipped function's (folded to a constant, or a break)."""
    if getattr(rule, "__name__", "") != "TorchInGraphFunctionVariable":
        return False
    with contextlib.suppress(TypeError, ValueError):  # (a builtin has no signature)
        if any(p.kind is p.VAR_POSITIONAL for p in inspect.signature(obj).parameters.values()):
            return False  # `torch.sym_sum(*args)`: its value comes from what it is given
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            value = obj()
    except BaseException:  # noqa: BLE001 - one that needs arguments is not tried
        return False
    return type(value) in (bool, int, float, str)


def _rule_name(obj: Any) -> str | None:
    from torch._dynamo import trace_rules

    try:
        if trace_rules.is_builtin_callable(obj):
            return "BuiltinVariable"
        rule = trace_rules.lookup(obj)
    except Exception:  # noqa: BLE001 - a failed trial is no verdict
        return None
    return rule.__name__ if rule is not None else None


def find_example(spec: str, qual: str, torch) -> str | None:
    """The first call of ``qual`` with the arguments of :data:`ARGS` that runs eagerly."""
    return next(find_examples(spec, qual, torch), None)


def find_examples(spec: str, qual: str, torch) -> Iterator[str]:
    """Each call of ``qual`` with the arguments of :data:`ARGS` that runs eagerly, in order."""
    modname = spec.split(":")[0]
    table = _GETTER_ARGS if modname in _GETTERS_ONLY else ARGS
    call_name = qual.removeprefix("builtins.")
    for args in table:
        code = f"{call_name}({args})"
        if _eager(code, spec, torch)[0]:  # (a trial that fails tries the next arguments)
            yield code


def _eager(code: str, spec: str, torch) -> tuple[bool, Any]:
    """(whether ``code`` ran, its value) evaluated eagerly beside ``spec``'s module, quietly."""
    modname = spec.split(":")[0]
    ns = _namespace(torch)
    ns[modname.split(".")[0]] = importlib.import_module(modname.split(".")[0])
    importlib.import_module(modname)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            return True, eval(code, ns)
    except BaseException:  # noqa: BLE001 - any failure: it did not run
        return False, None


def _program(imports: set[str], statement: str) -> str:
    lines = sorted(imports | {"import io", "import torch"})
    body = "\n".join(f"    {s}" for s in statement.splitlines())
    return (
        "\n".join(lines)
        + "\n\n\ndef helper(t):\n    return t\n\n\ndef f(x):\n    buf = io.BytesIO()\n    x = x + 1\n"
        + body
        + "\n    return x * 2\n"
    )


_GB: dict[str, str] = {}


def gb_codes(torch) -> dict[str, str]:
    """dynamo's graph-break type -> its GB code (the registry shipped with torch)."""
    if not _GB:
        path = os.path.join(os.path.dirname(torch.__file__), "_dynamo", "graph_break_registry.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                for code, entries in json.load(fh).items():
                    for entry in entries:
                        _GB.setdefault(entry.get("Gb_type", ""), code)
    return _GB


def dynamo_verdict(program: str, torch, args=None) -> tuple[bool, str | None]:
    """(breaks, dynamo's reason) of ``f`` of the program run once through dynamo."""
    folder = tempfile.mkdtemp(prefix="torchlint_knowledge_")
    path = os.path.join(folder, "probe.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(program)
    spec = importlib.util.spec_from_file_location(f"probe_{abs(hash(program))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            explained = torch._dynamo.explain(mod.f)(*(args if args is not None else [torch.randn(4)]))
    except Exception as exc:  # noqa: BLE001 - dynamo itself failed: not a verdict on the call
        return False, f"error: {type(exc).__name__}"
    # a break inside a ``with`` block dynamo cannot resume in runs the frame eagerly: the
    # reason is recorded though no graph follows it, so the count alone would miss it
    if explained.graph_break_count > 0 or explained.break_reasons:
        reason = explained.break_reasons[0].reason.splitlines()[0] if explained.break_reasons else None
        code = gb_codes(torch).get(reason or "")
        return True, f"{code} {reason}" if code else reason
    return False, None


def measure_one(spec: str, qual: str, obj: Any, torch) -> dict[str, Any] | None:
    """The entry of one candidate: its example and dynamo's verdict (None: no example runs).
    A numpy function is tried on each example that runs eagerly until one gives a verdict on
    the function rather than on the example's arguments (``randint('1')`` runs in numpy, and
    dynamo's fake tensors refuse the string)."""
    for i, example in enumerate(find_examples(spec, qual, torch)):
        if i and not example.endswith(_NUMBERS):
            continue  # (numpy's C functions given odd objects may crash the interpreter)
        entry = _measure_example(spec, qual, obj, example, torch)
        if entry is not None or not spec.startswith("numpy"):
            return entry
    return None


#: the argument lists a numpy function is tried on again after a first example's verdict was
#: the example's
_NUMBERS = ("(1)", "(1, 1)", "([1, 2])", "(1, [1, 2])")


def _measure_example(spec: str, qual: str, obj: Any, example: str, torch) -> dict[str, Any] | None:
    imports = {_import_line(spec)} if not qual.startswith("builtins.") else set()
    breaks, reason = dynamo_verdict(_program(imports, example), torch)
    if reason is not None and reason.startswith("error:"):
        return None
    sized = None
    if breaks and spec.startswith("numpy") and not _function_level(reason):
        # a numpy class dynamo cannot make an object of breaks whatever it is given; a draw that
        # returns a Python number breaks where one given a size (an array) is traced
        sized = _sized_form(spec, qual, obj, example, imports, torch) if _DATA_DEPENDENT in (reason or "") else None
        if not inspect.isclass(obj) and sized is None:
            return None  # (dynamo traces numpy through torch._numpy: a fake-tensor error on a string is the example's)
    entry = {
        "verdict": "breaks" if breaks else "traced",
        "example": example,
        "imports": sorted(imports),
        "trace_rule": _rule_name(obj),
    }
    if inspect.isclass(obj):
        entry["class"] = True  # (what is made is an object of it: its methods are its too)
    elif breaks and spec.startswith("numpy"):
        made = _made_numpy_class(example, spec, torch)
        if made is not None:
            entry["makes"] = made  # (default_rng(): a Generator, whose methods dynamo cannot call)
    if breaks:
        entry["reason"] = reason
    if sized is not None:
        entry["unless_sized"], entry["sized_example"] = sized
    return entry


#: dynamo's reason where a value computed in the graph is read as a Python number
_DATA_DEPENDENT = "Data dependent operator"


def _sized_form(spec: str, qual: str, obj: Any, example: str, imports: set[str], torch) -> tuple[dict, str] | None:
    """Where a numpy draw breaks only for the Python number it returns: how a call asks for an
    array instead (``{"keyword": "size", "position": 2}`` from its signature; ``rand(*args)``:
    any positional argument), and the sized example dynamo traces. None: no sized call runs
    eagerly, or it breaks too."""
    try:
        params = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params]
    if "size" in names:
        form, extra = {"keyword": "size", "position": names.index("size")}, "size=2"
    elif params and params[0].kind is inspect.Parameter.VAR_POSITIONAL:
        form, extra = {"position": 0}, "2"
    else:
        return None
    head = example[:-1].rstrip()
    call = f"{head}, {extra})" if not head.endswith("(") else f"{head}{extra})"
    if not _eager(call, spec, torch)[0]:
        return None  # (no sized call: the break stays unexplained)
    breaks, _ = dynamo_verdict(_program(imports, call), torch)
    return None if breaks else (form, call)


def _made_numpy_class(example: str, spec: str, torch) -> str | None:
    """The numpy class (not an array or a scalar) of what the example makes, by its qualified
    name: ``numpy.random.default_rng()`` makes a ``numpy.random.Generator``."""
    import numpy as np

    ran, value = _eager(example, spec, torch)
    if not ran:
        return None  # (it ran once already; a second failure says nothing)
    cls = type(value)
    if not cls.__module__.startswith("numpy") or isinstance(value, (np.ndarray, np.generic)):
        return None
    public = spec.split(":")[0]
    return f"{public}.{cls.__name__}" if getattr(importlib.import_module(public), cls.__name__, None) is cls else None


#: the breaks that say something of a numpy function whatever it is given: dynamo skips it, or
#: torch._numpy has no such function
_FUNCTION_LEVEL = (
    "Attempted to call function marked as skipped",
    "Attempted to inline function marked as skipped",
    "attempted to trace numpy function unsupported by PyTorch",
)


def _function_level(reason: str | None) -> bool:
    return reason is not None and any(r in reason for r in _FUNCTION_LEVEL)


def recheck(path: str, verbose: bool) -> int:
    """Measure again the calls of an existing file whose example passes a tensor, with the
    Python arguments of :data:`ARGS` tried first (as a whole run now does)."""
    import torch

    logging_quiet()
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    cwd = os.getcwd()
    os.chdir(tempfile.mkdtemp(prefix="torchlint_knowledge_cwd_"))
    changed = 0
    try:
        by_name = {qual: (spec, obj) for spec, qual, obj in candidates(torch)}
        for qual, entry in sorted(data.get("calls", {}).items()):
            inner = entry["example"][entry["example"].find("(") + 1 : -1]
            if qual not in by_name or not any(p.strip() == "x" for p in inner.split(",")):
                continue
            spec, obj = by_name[qual]
            fresh = measure_one(spec, qual, obj, torch)
            if fresh is not None and fresh != entry:
                data["calls"][qual] = fresh
                changed += 1
                if verbose:
                    say(f"  {qual:40s} {entry['example']} {entry['verdict']} -> {fresh['example']} {fresh['verdict']}")
    finally:
        os.chdir(cwd)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
    say(f"{changed} entries measured again")
    return 0


def child(spec: str, skip: set[str]) -> int:
    """Measure one module's candidates (``--child``), one JSON line each, announcing each
    trial first: a call that crashes the interpreter (a C function given a bad argument) is
    named by the parent and skipped on the next start."""
    import torch

    logging_quiet()
    os.chdir(tempfile.mkdtemp(prefix="torchlint_knowledge_cwd_"))
    for s, qual, obj in candidates(torch, [spec]):
        if qual in skip:
            continue
        print(json.dumps({"try": qual}), flush=True)
        entry = measure_one(s, qual, obj, torch)
        print(json.dumps({"done": qual, "entry": entry}), flush=True)
    return 0


def measure_calls(torch, verbose: bool, specs: tuple[str, ...] = MODULES) -> dict[str, Any]:
    import subprocess

    calls: dict[str, Any] = {}
    crashed: list[str] = []
    for spec in specs:
        skip: set[str] = set()
        retried: set[str] = set()
        while True:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", spec, "--skip", ",".join(sorted(skip))],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=1800,
            )
            last, done = None, 0
            for line in proc.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                record = json.loads(line)
                if "try" in record:
                    last = record["try"]
                else:
                    last, done = None, done + 1
                    skip.add(record["done"])
                    if record["entry"] is not None:
                        calls[record["done"]] = record["entry"]
                        if verbose:
                            e = record["entry"]
                            say(f"  {record['done']:40s} {e['verdict']:7s} {e['example']}")
            if proc.returncode != 0 and last is None and done:
                break  # every trial finished: the interpreter died on its way out
            if proc.returncode != 0 and last is None:
                tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
                raise SystemExit(f"measuring {spec} failed before any trial: {tail[0]}")
            if proc.returncode == 0:
                break
            if last not in retried:  # (a crash can come from an earlier trial's leftovers: once more, first)
                retried.add(last)
                say(f"  {last}: the trial crashed the interpreter (exit {proc.returncode}); trying it again")
                continue
            crashed.append(last)  # the interpreter died in this trial: measured as nothing
            skip.add(last)
            say(f"  {last}: the trial crashed the interpreter (exit {proc.returncode}); skipped")
    stores = {}
    for target, example in (("os.environ", "os.environ['TORCHLINT_PROBE'] = '1'"),):
        breaks, reason = dynamo_verdict(_program({"import os"}, example), torch)
        stores[target] = {"verdict": "breaks" if breaks else "traced", "example": example, "imports": ["import os"]}
        if breaks:
            stores[target]["reason"] = reason
    return {"calls": calls, "stores": stores, "crashed_trials": sorted(crashed)}


#: receivers a tensor method is tried on, in order: (the example's receiver, the compiled
#: function's statement that makes it from its input ``x``, whether ``x`` requires grad). A
#: method that needs one element (``x.is_nonzero()``) or a tensor in an autograd graph
#: (``y.retain_grad()``) gets its verdict on the receiver it runs on
_RECEIVERS = (
    ("x", "y = x.clone()", False),
    ("x.sum()", "y = x.sum()", False),
    ("(x * 2)", "y = x * 2", True),
)


def measure_tensor_methods(torch, verbose: bool) -> dict[str, Any]:
    """``<receiver>.<name>(...)`` of every public tensor method, with the first receiver and
    arguments that run eagerly."""
    out: dict[str, Any] = {}
    for name in sorted(dir(torch.Tensor)):
        if name.startswith("_") or name in _NEVER or not callable(getattr(torch.Tensor, name, None)):
            continue
        entry = _method_entry(name, torch)
        if entry is None:
            continue
        out[name] = entry
        if verbose:
            say(f"  Tensor.{name:30s} {entry['verdict']}")
    return out


def _method_entry(name: str, torch) -> dict[str, Any] | None:
    for receiver, make, grad in _RECEIVERS:
        # a function first: `y.register_hook(0)` runs eagerly too, but breaks for its argument
        for args in ("", "helper", "0", "x", "1"):
            code = f"{receiver}.{name}({args})"
            ns = _namespace(torch)
            if grad:
                ns["x"] = torch.randn(4, requires_grad=True)
            try:
                with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    eval(code, ns)
            except BaseException:  # noqa: BLE001
                continue
            statement = f"{make}\ny.{name}({args})"
            inputs = [torch.randn(4, requires_grad=True)] if grad else None
            breaks, reason = dynamo_verdict(_program(set(), statement), torch, inputs)
            if reason is not None and reason.startswith("error:"):
                return None
            entry = {"verdict": "breaks" if breaks else "traced", "example": code}
            if receiver != "x":
                entry["receiver"] = make
                if grad:
                    entry["requires_grad"] = True
            if breaks:
                entry["reason"] = reason
            return entry
    return None


def measure_tensor_attributes(torch, verbose: bool) -> dict[str, Any]:
    """``y.<name>`` read for every public tensor attribute that is not a method, on a tensor
    computed from an input without and then with ``requires_grad`` (``y.grad_fn`` breaks only
    in an autograd graph): the first verdict that breaks, else ``"traced"``."""
    probe = torch.randn(2, 2)
    names = []
    for name in sorted(dir(torch.Tensor)):
        if name.startswith("_"):
            continue
        try:
            if callable(getattr(probe, name)):
                continue
        except Exception:  # noqa: BLE001 - an attribute of some tensors only (``x.H``): tried below
            pass
        names.append(name)
    out: dict[str, Any] = {}
    for name in names:
        entry: dict[str, Any] | None = None
        for grad in (False, True):
            x = torch.randn(4, requires_grad=grad)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    getattr(x * 2, name)
            except Exception:  # noqa: BLE001 - no value on this tensor: no verdict
                continue
            breaks, reason = dynamo_verdict(
                _program(set(), f"y = x * 2\nvalue = y.{name}"), torch, [torch.randn(4, requires_grad=grad)]
            )
            if reason is not None and reason.startswith("error:"):
                continue
            entry = {"verdict": "breaks" if breaks else "traced", "example": f"(x * 2).{name}"}
            if breaks:
                entry["reason"] = reason
                if grad:
                    entry["requires_grad"] = True
                break
        if entry is not None:
            out[name] = entry
            if verbose:
                say(f"  Tensor.{name:30s} {entry['verdict']}")
    return out


# --------------------------------------------------------------------------- context managers

#: modules whose context managers model code enters: classes with ``__enter__``,
#: ``@contextmanager`` functions, and (in the modules of :data:`_MADE_BY_CALL`) functions
#: whose result is one (``threading.Lock()``)
CONTEXT_MODULES = (
    "threading",
    "multiprocessing",
    "contextlib",
    "warnings",
    "torch",
    "torch.random",
    "torch.autograd",
    "torch.autograd.graph",
    "torch.autograd.profiler",
    "torch.profiler",
    "torch.nn.attention",
    "torch.backends.cudnn",
    "torch.backends.cuda",
    "torch.backends.mkldnn",
    "torch.backends.opt_einsum",
    "torch.cpu.amp",
    "torch.amp",
    "torch._dynamo.config",
    "torch._inductor.config",
)
_MADE_BY_CALL = {"threading", "multiprocessing", "torch._dynamo.config", "torch._inductor.config"}


def _context_candidates(torch) -> list[tuple[str, str]]:
    out = []
    for modname in CONTEXT_MODULES:
        try:
            mod = importlib.import_module(modname)
        except Exception:  # noqa: BLE001 - a module this build lacks
            continue
        names = set(dir(mod))
        if type(mod) is not types.ModuleType:  # a config module: its methods are its class's
            names |= set(dir(type(mod)))
        for name in sorted(names):
            if name.startswith("_") or name in _NEVER:
                continue
            try:
                obj = getattr(mod, name)
            except Exception:  # noqa: BLE001
                continue
            try:  # (torch.backends.cuda's lazy objects initialise CUDA when asked anything)
                wrapped = getattr(obj, "__wrapped__", None)
                inner = inspect.unwrap(obj) if wrapped is not None else None  # (`@deprecated` over it)
            except Exception:  # noqa: BLE001
                continue
            if inspect.isclass(obj):
                ok = hasattr(obj, "__enter__") and hasattr(obj, "__exit__") and not issubclass(obj, BaseException)
            else:
                ok = (inner is not None and inspect.isgeneratorfunction(inner)) or (
                    modname in _MADE_BY_CALL and callable(obj) and not inspect.ismodule(obj)
                )
            if ok:
                out.append((modname, f"{modname}.{name}"))
    return out


def measure_decorators(calls: dict[str, Any], torch, verbose: bool) -> dict[str, Any]:
    """What applying the function a traced call returns does: ``functools.lru_cache()`` is
    traced, and the decorator it makes, applied to a function (``@functools.lru_cache(...)`` on
    a function defined in a compiled region), breaks. Each traced call whose example returns a
    plain function eagerly is applied to ``helper`` through dynamo."""
    out: dict[str, Any] = {}
    for qual, entry in sorted(calls.items()):
        if entry.get("verdict") != "traced" or qual.startswith("builtins."):
            continue
        ns = _namespace(torch)
        try:
            for line in entry.get("imports", ()):
                exec(line, ns)
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                made = eval(entry["example"], ns)
                if not inspect.isfunction(made):
                    continue
                made(helper)
        except BaseException:  # noqa: BLE001 - what does not apply eagerly is no decorator
            continue
        example = f"{entry['example']}(helper)"
        breaks, reason = dynamo_verdict(_program(set(entry.get("imports", ())), example), torch)
        if reason is not None and reason.startswith("error:"):
            continue
        out[qual] = {"verdict": "breaks" if breaks else "traced", "example": example, "imports": entry["imports"]}
        if breaks:
            out[qual]["reason"] = reason
        if verbose:
            say(f"  {qual:40s} applied: {out[qual]['verdict']}")
    return out


#: example arguments tried, in order, before ``generator=GEN`` in a random draw: a size, a
#: count, a tensor, probabilities, a distribution's parameters, a range and a size
RANDOM_ARGS = ("4", "(4,)", "x.sigmoid()", "x.softmax(0), 2", "x, 1.0", "10, (4,)", "0, 10, (4,)")
#: the same for a tensor method (``x.clone().uniform_(generator=GEN)``), on the receiver given
RANDOM_METHOD_ARGS = (("x.clone()", ""), ("x.sigmoid()", ""), ("x.softmax(0)", "2"), ("x.clone()", "0.0, 1.0"))
#: what is done with a generator itself: made, seeded, read
GENERATOR_USES = {
    "torch.Generator": "torch.Generator()",
    "torch.Generator.manual_seed": "GEN.manual_seed(1)",
    "torch.Generator.seed": "GEN.seed()",
    "torch.Generator.initial_seed": "GEN.initial_seed()",
    "torch.Generator.get_state": "GEN.get_state()",
}


def _random_program(call: str) -> str:
    return (
        "import torch\n\nGEN = torch.Generator().manual_seed(0)\n\n\ndef f(x):\n    x = x + 1\n"
        f"    y = {call}\n    return x * 2, y\n"
    )


def _runs_eagerly(program: str, torch) -> bool:
    ns: dict[str, Any] = {}
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(program, "probe", "exec"), ns)
            ns["f"](torch.randn(4))
    except Exception:  # noqa: BLE001 - an example that fails eagerly is not one
        return False
    return True


def random_draws(torch) -> list[tuple[str, list[str]]]:
    """(qualified name, the calls to try) of each random draw that takes a ``generator``: the
    torch functions and tensor methods whose documentation names ``torch.Generator`` or a
    ``generator`` argument, and the ``torch.nn.init`` functions whose signature has one."""

    def doc(obj: Any) -> str:
        text = getattr(obj, "__doc__", None)
        return text if isinstance(text, str) else ""

    out: list[tuple[str, list[str]]] = []
    for name in sorted(dir(torch)):
        obj = getattr(torch, name, None)
        if name.startswith("_") or not callable(obj) or "torch.Generator" not in doc(obj) or name == "manual_seed":
            continue
        out.append((f"torch.{name}", [f"torch.{name}({a}, generator=GEN)" for a in RANDOM_ARGS]))
    for name in sorted(dir(torch.Tensor)):
        if name.startswith("_") or "generator" not in doc(getattr(torch.Tensor, name, None)):
            continue
        calls = [f"{recv}.{name}({a + ', ' if a else ''}generator=GEN)" for recv, a in RANDOM_METHOD_ARGS]
        out.append((f"Tensor.{name}", calls))
    from torch.nn import init

    for name in sorted(dir(init)):
        obj = getattr(init, name)
        if name.startswith("_") or not inspect.isfunction(obj):
            continue
        try:
            takes = "generator" in inspect.signature(obj).parameters
        except (TypeError, ValueError):
            takes = False
        if takes:
            recv = ("torch.empty(4, 4)", "torch.empty(4)")
            out.append((f"torch.nn.init.{name}", [f"torch.nn.init.{name}({r}, generator=GEN)" for r in recv]))
    return out


def measure_random_generators(torch, verbose: bool) -> dict[str, Any]:
    """For each random draw that takes ``generator=`` (:func:`random_draws`): whether passing a
    ``torch.Generator`` breaks the graph, on the first example that runs eagerly; and for what
    is done with a generator (:data:`GENERATOR_USES`: made, seeded, read) whether it does."""
    out: dict[str, Any] = {}
    tries = [(qual, [call]) for qual, call in GENERATOR_USES.items()] + random_draws(torch)
    for qual, calls in tries:
        example = next((c for c in calls if _runs_eagerly(_random_program(c), torch)), None)
        if example is None:
            continue
        breaks, reason = dynamo_verdict(_random_program(example), torch)
        if reason is not None and reason.startswith("error:"):
            continue
        out[qual] = {"verdict": "breaks" if breaks else "traced", "example": example}
        if breaks:
            out[qual]["reason"] = reason
        if verbose:
            say(f"  {example}: {out[qual]['verdict']}")
    return out


#: numpy's reductions and rounding, measured on numbers besides its one-argument ufuncs
NUMPY_ON_NUMBERS = ("prod", "sum", "mean", "round", "around", "amax", "amin", "max", "min", "clip")
#: numpy's scalar types, called on a number as a cast (``np.int64(n)``)
NUMPY_SCALARS = ("int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64")


def _numbers_program(call: str) -> str:
    return (
        "import numpy as np\nimport torch\n\n\ndef f(x):\n    n = x.shape[-1]\n    h = n / 3\n"
        f"    v = {call}\n    return x.new_zeros(int(v)) + float(v)\n"
    )


def measure_numpy_on_numbers(torch, verbose: bool) -> dict[str, Any]:
    """For each numpy function of one number (its one-argument ufuncs,
    :data:`NUMPY_ON_NUMBERS` and :data:`NUMPY_SCALARS`), called on an int read from a shape (``n``) and on a float
    computed from one (``h = n / 3``), the result used as a size and as a number: whether
    dynamo folds it to a constant (``"traced"``) or breaks, and whether it gives an int or a
    float there (``returns``)."""
    import numpy as np

    sys.path.insert(0, REPO)
    from torchlint.dynamic.observe import observe_source

    names = sorted(
        {n for n in dir(np) if isinstance(getattr(np, n), np.ufunc) and getattr(np, n).nin == 1}
        | set(NUMPY_ON_NUMBERS)
        | set(NUMPY_SCALARS)
    )
    out: dict[str, Any] = {}
    for name in names:
        entry: dict[str, Any] = {}
        for kind, arg in (("int", "n"), ("float", "h")):
            call = f"np.{name}({arg}, 0, 10)" if name == "clip" else f"np.{name}({arg})"
            if not _runs_eagerly(_numbers_program(call), torch):
                continue
            program = _numbers_program(call)
            try:
                with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    obs, path = observe_source(program, "f", [torch.randn(2, 4)])
            except Exception:  # noqa: BLE001 - dynamo itself failed: no verdict
                continue
            # a break of the call itself, or of reading its result (not one deeper in numpy)
            reasons = [b.gb_type or b.reason for b in obs.breaks if b.path == path and b.line in (8, 9)]
            breaks = bool(reasons)
            code = gb_codes(torch).get(reasons[0] or "") if reasons else None
            reason = f"{code} {reasons[0]}" if code else (reasons[0] if reasons else None)
            value = eval(call, {"np": np, "n": 4, "h": 4 / 3})
            entry[kind] = {
                "verdict": "breaks" if breaks else "traced",
                "example": call,
                "returns": "float" if isinstance(value, (float, np.floating)) else "int",
            }
            if breaks:
                entry[kind]["reason"] = reason
        if entry:
            out[f"numpy.{name}"] = entry
            if verbose:
                say(f"  np.{name}: " + ", ".join(f"{k} {entry[k]['verdict']}" for k in ("int", "float") if k in entry))
    return out


#: builtins that consume an iterable, tried with a generator expression that breaks inside
CONSUMERS = ("all", "any", "sum", "min", "max", "set", "frozenset", "list", "tuple", "sorted")


def measure_generator_consumers(torch, verbose: bool) -> dict[str, Any]:
    """For each builtin of :data:`CONSUMERS`, whether a break inside a generator expression it
    consumes (``all(\n    t.sum().item() > 0 for t in x\n)``) also breaks the graph at the
    consumer's line: dynamo cannot rebuild a generator made while tracing to resume in it."""
    sys.path.insert(0, REPO)
    from torchlint.dynamic.observe import observe_source

    out: dict[str, Any] = {}
    for name in CONSUMERS:
        example = f"s = {name}(\n    t.sum().item() > 0 for t in x\n)"
        program = _program(set(), example)
        line = program.splitlines().index(f"    s = {name}(") + 1
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            obs, path = observe_source(program, "f", [torch.randn(2, 3)])
        reasons = [b.gb_type or b.reason for b in obs.breaks if b.path == path and b.line == line]
        out[name] = {"verdict": "breaks" if reasons else "traced", "example": example}
        if reasons:
            code = gb_codes(torch).get(reasons[0] or "")
            out[name]["reason"] = f"{code} {reasons[0]}" if code else reasons[0]
        if verbose:
            say(f"  {name}(<generator>) {out[name]['verdict']}")
    return out


def measure_contexts(torch, verbose: bool) -> dict[str, Any]:
    """``with <call>:`` around a tensor op for every context manager of
    :data:`CONTEXT_MODULES` that can be made and entered eagerly: ``"breaks"`` (with dynamo's
    reason) or ``"traced"``."""
    out: dict[str, Any] = {}
    for modname, qual in _context_candidates(torch):
        example = None
        for args in ("", "'ignore'", "1", "False", "True", "x", "'cpu'"):
            code = f"{qual}({args})"
            ns = _namespace(torch)
            ns[modname.split(".")[0]] = importlib.import_module(modname.split(".")[0])
            try:
                with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    made = eval(code, ns)
                    if not (hasattr(made, "__enter__") and hasattr(made, "__exit__")):
                        break
                    with made:
                        pass
            except BaseException:  # noqa: BLE001 - a trial that fails tries the next arguments
                continue
            example = code
            break
        if example is None:
            continue
        imports = {_import_line(modname)}
        breaks, reason = dynamo_verdict(_program(imports, f"with {example}:\n    x = x + 1"), torch)
        if reason is not None and reason.startswith("error:"):
            continue
        entry = {"verdict": "breaks" if breaks else "traced", "example": example, "imports": sorted(imports)}
        if breaks:
            entry["reason"] = reason
        out[qual] = entry
        if verbose:
            say(f"  with {example:40s} {entry['verdict']}")
    return out


# --------------------------------------------------------------------------- skipped packages

#: a compiled function calling a function of the package under test: where the package is
#: installed, one whose code says it is a file of the package (dynamo's trace rules judge a
#: function by its file); where not, one of a stand-in found first on the path, as dynamo's
#: trace rules find a package where an import would, when torch is imported
_PACKAGE_PROBE = """
import importlib.util
import os
import sys

if importlib.util.find_spec({name!r}) is None:
    sys.path.insert(0, {folder!r})
import torch

spec = importlib.util.find_spec({name!r})
where = os.path.join(os.path.dirname(spec.origin), "_torchlint_probe.py")
space = {{}}
exec(compile("def probe(x):\\n    return x + 1\\n", where, "exec"), space)
probe = space["probe"]


def f(x):
    x = x + 1
    x = probe(x)
    return x * 2


explained = torch._dynamo.explain(f)(torch.randn(3))
print("BREAKS" if explained.graph_break_count else "TRACED")
for reason in explained.break_reasons:
    print("REASON", str(reason.reason).splitlines()[0])
"""


def measure_skipped_packages(torch, verbose: bool) -> dict[str, Any]:
    """Each third-party package whose functions dynamo skips whole: the candidates are what
    torch's trace rules list (``THIRDPARTY_SKIPLIST``; numpy aside, measured function by
    function in ``calls``), each proven by a run through dynamo, in a child process, of a
    compiled function that calls a function of a package of that name placed first on the
    path. ``"breaks"`` (with dynamo's reason) or ``"traced"``."""
    import subprocess

    from torch._dynamo import trace_rules

    out: dict[str, Any] = {}
    for name in sorted(getattr(trace_rules, "THIRDPARTY_SKIPLIST", ())):
        if name == "numpy" or not name.isidentifier():
            continue
        with tempfile.TemporaryDirectory() as folder:
            stand_in = os.path.join(folder, "site")  # (not the child's folder: an import finds that)
            os.makedirs(os.path.join(stand_in, name))
            with open(os.path.join(stand_in, name, "__init__.py"), "w", encoding="utf-8") as fh:
                fh.write("def probe(x):\n    return x + 1\n")
            program = _PACKAGE_PROBE.format(folder=stand_in, name=name)
            done = subprocess.run(
                [sys.executable, "-c", program], capture_output=True, text=True, cwd=folder, timeout=300
            )
        lines = done.stdout.splitlines()
        if done.returncode != 0 or not lines or lines[0] not in ("BREAKS", "TRACED"):
            if verbose:
                say(f"  {name}: no verdict ({done.stderr.strip().splitlines()[-1:] or done.returncode})")
            continue
        entry: dict[str, Any] = {
            "verdict": "breaks" if lines[0] == "BREAKS" else "traced",
            "example": f"{name}.probe(x)",
        }
        reasons = [line[len("REASON ") :] for line in lines[1:] if line.startswith("REASON ")]
        if reasons:
            code = gb_codes(torch).get(reasons[0].split(":")[0].strip(), "")
            entry["reason"] = f"{code} {reasons[0]}".strip()
        out[name] = entry
        if verbose:
            say(f"  {name:12s} {entry['verdict']}")
    return out


# --------------------------------------------------------------------------- aten ops


def _schema_args(schema, torch, dtype, n: int = 4) -> list[Any] | None:
    """Arguments for an operator from its schema: tensors of ``n`` elements of ``dtype``,
    small scalars, None for optionals; None when an argument has no such value."""
    args = []
    for arg in schema.arguments:
        if arg.kwarg_only and (arg.has_default_value() or str(arg.type).endswith("?")):
            continue
        if arg.has_default_value():
            break  # the defaults of the rest
        t = str(arg.type)
        if t.endswith("?"):
            args.append(None)
        elif t == "Tensor":
            args.append(torch.ones(n, dtype=dtype))
        elif t == "Tensor[]":
            args.append([torch.ones(n, dtype=dtype), torch.ones(n, dtype=dtype)])
        elif t in ("int", "SymInt"):
            args.append(0)
        elif t in ("int[]", "SymInt[]", "int[1]", "SymInt[1]"):
            args.append([4])
        elif t == "float":
            args.append(0.5)
        elif t == "bool":
            args.append(False)
        elif t == "Scalar":
            args.append(1)
        else:
            return None
    return args


def measure_aten(torch, verbose: bool) -> dict[str, Any]:
    """The aten operators whose fake kernel cannot give an output shape (or a value) without
    the data, and the torch functions and tensor methods of their names that break dynamo."""
    from torch._subclasses.fake_tensor import (
        DataDependentOutputException,
        DynamicOutputShapeException,
        FakeTensorMode,
    )

    dynamic: dict[str, list[str]] = {}
    data_dependent: dict[str, list[str]] = {}
    names = sorted(
        {n.split("::", 1)[1].split(".")[0] for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::")}
    )
    for base in names:
        packet = getattr(torch.ops.aten, base, None)
        if packet is None:
            continue
        for overload in packet.overloads():
            op = getattr(packet, overload)
            schema = op._schema
            if schema.is_mutable or any(
                str(r.type) != "Tensor" and "Tensor" not in str(r.type) for r in schema.returns
            ):
                if base not in ("equal", "is_nonzero", "_local_scalar_dense"):
                    continue
            # four elements of each dtype, then one (an op that wants a single value: is_nonzero)
            for dtype, n in ((torch.float32, 4), (torch.bool, 4), (torch.int64, 4), (torch.float32, 1)):
                real = _schema_args(schema, torch, dtype, n)
                if real is None:
                    break
                mode = FakeTensorMode()
                try:
                    fake = [
                        mode.from_tensor(a)
                        if isinstance(a, torch.Tensor)
                        else [mode.from_tensor(t) for t in a]
                        if isinstance(a, list) and a and isinstance(a[0], torch.Tensor)
                        else a
                        for a in real
                    ]
                    with mode:
                        op(*fake)
                except DynamicOutputShapeException:
                    dynamic.setdefault(base, []).append(str(op))
                    break
                except DataDependentOutputException:
                    data_dependent.setdefault(base, []).append(str(op))
                    break
                except Exception:  # noqa: BLE001 - a failed trial is no verdict
                    continue
                break
    say(f"aten: {len(dynamic)} dynamic-output-shape ops, {len(data_dependent)} data-dependent-output ops")

    def python_names(bases: dict[str, list[str]]) -> dict[str, Any]:
        """The torch functions and tensor methods named as an operator (``_unique2`` ->
        ``torch.unique``; ``linalg_lstsq`` -> ``torch.linalg.lstsq``)."""
        spaces = {"torch": torch, "torch.nn.functional": torch.nn.functional}
        prefixed = {"linalg_": "torch.linalg", "special_": "torch.special", "fft_": "torch.fft"}
        functions, methods = {}, {}
        for base in sorted(bases):
            plain = base.lstrip("_").rstrip("0123456789")
            for name in {base, plain}:
                if name.startswith("_"):
                    continue
                for space, mod in spaces.items():
                    if hasattr(mod, name):
                        functions[f"{space}.{name}"] = base
                for prefix, space in prefixed.items():
                    if name.startswith(prefix):
                        mod = importlib.import_module(space)
                        if hasattr(mod, name[len(prefix) :]):
                            functions[f"{space}.{name[len(prefix) :]}"] = base
                if hasattr(torch.Tensor, name):
                    methods[name] = base
        return {"functions": functions, "methods": methods}

    return {
        "dynamic_shape_ops": {
            "aten": {b: sorted(set(v)) for b, v in dynamic.items()},
            **prove(python_names(dynamic), torch, verbose),
        },
        "data_dependent_ops": {
            "aten": {b: sorted(set(v)) for b, v in data_dependent.items()},
            **prove(python_names(data_dependent), torch, verbose),
        },
    }


_OP_ARGS = ("x", "x > 0", "x.long()", "x, x", "x > 0, x", "x, x > 0", "x.long(), x.long()", "x[:1]")


def prove(named: dict[str, dict[str, str]], torch, verbose: bool) -> dict[str, Any]:
    """Keep the torch functions / tensor methods that break dynamo on an example that runs."""
    out: dict[str, Any] = {"functions": {}, "methods": {}}
    for kind, table in named.items():
        for name, base in sorted(table.items()):
            for args in _OP_ARGS:
                if kind == "functions":
                    code = f"{name}({args})"
                else:
                    receiver, _, rest = args.partition(", ")
                    code = f"({receiver}).{name}({rest})"
                ns = _namespace(torch)
                ns["x"] = torch.tensor([1.0, 0.0, 3.0, 2.0])
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        eval(code, ns)
                except Exception:  # noqa: BLE001 - a failed trial is no verdict
                    continue
                breaks, reason = dynamo_verdict(
                    _program(set(), f"y = {code}"), torch, [torch.tensor([1.0, 0.0, 3.0, 2.0])]
                )
                if breaks:
                    out[kind][name] = {"aten": base, "example": code, "reason": reason}
                if verbose:
                    say(f"  {kind} {name:30s} {'breaks' if breaks else 'traced'} {code}")
                break
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "torchlint", "data"))
    ap.add_argument(
        "--only",
        default="calls,methods,attributes,ops,contexts,decorators,generators,randoms,numbers,packages",
        help="comma-separated: calls, methods, attributes, ops, contexts, decorators (from the calls), generators, "
        "randoms, numbers, packages",
    )
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument(
        "--modules",
        metavar="SPEC[,SPEC]",
        help="measure the calls of these entries of MODULES only, keeping the file's other calls",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--skip", default="", help=argparse.SUPPRESS)
    ap.add_argument("--recheck", metavar="FILE", help="measure again the calls of FILE whose example passes a tensor")
    args = ap.parse_args(argv)
    if args.recheck:
        return recheck(args.recheck, args.verbose)
    if args.child:
        return child(args.child, set(filter(None, args.skip.split(","))))
    import torch

    logging_quiet()
    parts = set(args.only.split(","))
    version = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    path = os.path.join(args.out, f"knowledge-{version}.json")
    data: dict[str, Any] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    data["_comment"] = (
        "Generated by benchmarks/knowledge.py on this torch: each verdict is dynamo's on the "
        "example shown (run again by tests/rules/test_knowledge.py). Read by torchlint.knowledge."
    )
    data["torch"] = torch.__version__
    t0 = time.time()
    if "calls" in parts and args.modules:
        specs = tuple(args.modules.split(","))
        unknown = [m for m in specs if m not in MODULES]
        if unknown:
            raise SystemExit(f"not in MODULES: {', '.join(unknown)}")
        measured = measure_calls(torch, args.verbose, specs)
        measured["calls"] = {k: v for k, v in data.get("calls", {}).items() if _module_of(k, specs) is None} | measured[
            "calls"
        ]
        kept = {k for k in data.get("crashed_trials", []) if _module_of(k, specs) is None}
        measured["crashed_trials"] = sorted(kept | set(measured["crashed_trials"]))
        data.update(measured)
    elif "calls" in parts:
        data.update(measure_calls(torch, args.verbose))
    if "methods" in parts:
        data["tensor_methods"] = measure_tensor_methods(torch, args.verbose)
    if "ops" in parts:
        data.update(measure_aten(torch, args.verbose))
    if "attributes" in parts:
        data["tensor_attributes"] = measure_tensor_attributes(torch, args.verbose)
    if "contexts" in parts:
        data["context_managers"] = measure_contexts(torch, args.verbose)
    if "decorators" in parts:
        data["decorators"] = measure_decorators(data.get("calls", {}), torch, args.verbose)
    if "generators" in parts:
        data["generator_consumers"] = measure_generator_consumers(torch, args.verbose)
    if "randoms" in parts:
        data["random_generators"] = measure_random_generators(torch, args.verbose)
    if "numbers" in parts:
        data["numpy_on_numbers"] = measure_numpy_on_numbers(torch, args.verbose)
    if "packages" in parts:
        data["skipped_packages"] = measure_skipped_packages(torch, args.verbose)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
    calls = data.get("calls", {})
    say(
        f"wrote {os.path.relpath(path, REPO)} in {time.time() - t0:.0f}s: "
        f"{sum(c['verdict'] == 'breaks' for c in calls.values())} of {len(calls)} calls break, "
        f"{sum(m['verdict'] == 'breaks' for m in data.get('tensor_methods', {}).values())} tensor methods break, "
        f"{len(data.get('dynamic_shape_ops', {}).get('functions', {}))} dynamic-shape functions, "
        f"{len(data.get('data_dependent_ops', {}).get('functions', {}))} data-dependent functions"
    )
    return 0


def _module_of(qual: str, specs: tuple[str, ...]) -> str | None:
    """The entry of ``specs`` a measured call's name belongs to (its module, or its class)."""
    head = qual.rpartition(".")[0]
    for spec in specs:
        modname, _, cls = spec.partition(":")
        if head == (f"{modname}.{cls}" if cls else modname):
            return spec
    return None


def logging_quiet() -> None:
    import logging

    logging.getLogger("torch").setLevel(logging.CRITICAL)


if __name__ == "__main__":
    sys.exit(main())
