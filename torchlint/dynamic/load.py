"""Importing the user's code, in the worker only: a target's file, its object, its inputs.

Importing a model runs its author's code, so nothing here runs in torchlint's own process;
the declarations were parsed in the parent (:mod:`torchlint.dynamic.targets`), and every
problem is a one-line :class:`TargetError`.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import sys
import uuid
from typing import Any

from torchlint.dynamic.specs import FLOATING, KeywordSpec, ScalarSpec, Spec, TupleSpec
from torchlint.dynamic.targets import ObjectRef, TargetError, is_dotted, package_of


def load_module_from_path(path: str, name: str | None = None) -> Any:
    """Import a Python file by path under a fresh module name (its folder goes on sys.path)."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    name = name or f"_torchlint_target_{stem}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _file_of(module: Any) -> str | None:
    file = getattr(module, "__file__", None)
    return os.path.realpath(file) if isinstance(file, str) else None


def import_file(path: str) -> Any:
    """Import a file the way its project does: a file inside a package (``__init__.py`` in
    its folder, and up) as ``pkg.sub.mod`` with the package's parent folder on ``sys.path``,
    so its relative imports work; a lone file under a fresh name (:func:`load_module_from_path`).
    """
    folder, parts = package_of(path)
    if len(parts) < 2 and not os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(path)), "__init__.py")):
        return load_module_from_path(path)
    name = ".".join(parts)
    real = os.path.realpath(path)
    for i in range(1, len(parts) + 1):  # a module of that name imported from elsewhere wins
        loaded = sys.modules.get(".".join(parts[:i]))
        if loaded is not None and not (_file_of(loaded) or "").startswith(os.path.realpath(folder) + os.sep):
            raise ImportError(
                f"a module named {'.'.join(parts[:i])!r} is already imported from "
                f"{_file_of(loaded) or 'elsewhere'}, not from {folder}"
            )
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.import_module(name)
    if _file_of(module) != real:
        raise ImportError(f"{name} imports from {_file_of(module)}, not {path}")
    return module


def _import_dotted(ref: ObjectRef) -> tuple[Any, str]:
    """``pkg.model`` that no search folder holds as a file: an installed module."""
    try:
        module = importlib.import_module(ref.path)
    except ModuleNotFoundError as e:
        if e.name and (ref.path == e.name or ref.path.startswith(e.name + ".")):
            raise TargetError(
                ref.text,
                f"no such file or module: {ref.path} (looked for it as a file "
                "under the working directory, the config's folder and their "
                "src/, then as an installed module)",
            ) from None
        raise TargetError(ref.text, f"cannot import {ref.path}: {type(e).__name__}: {_one_line(e)}") from None
    except Exception as e:  # noqa: BLE001 (the user's code may raise anything: the error names it)
        raise TargetError(ref.text, f"cannot import {ref.path}: {type(e).__name__}: {_one_line(e)}") from None
    return module, _file_of(module) or ref.path


def _resolve(ref: ObjectRef, cwd: str) -> tuple[Any, str]:
    path = ref.path if os.path.isabs(ref.path) else os.path.join(cwd, ref.path)
    if not os.path.isfile(path) and is_dotted(ref.path):
        module, real = _import_dotted(ref)
        return _attribute(ref, module), real
    if not os.path.isfile(path):
        raise TargetError(ref.text, f"no such file: {ref.path}")
    try:
        module = import_file(path)
    except SyntaxError as e:
        raise TargetError(ref.text, f"cannot import {ref.path}: SyntaxError at line {e.lineno}: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 (the user's code may raise anything: the error names it)
        raise TargetError(ref.text, f"cannot import {ref.path}: {type(e).__name__}: {_one_line(e)}") from None
    return _attribute(ref, module), os.path.realpath(path)


def _attribute(ref: ObjectRef, module: Any) -> Any:
    obj: Any = module
    for part in ref.name.split("."):
        if not hasattr(obj, part):
            raise TargetError(ref.text, f"{ref.path} has no {ref.name!r}")
        obj = getattr(obj, part)
    return obj


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else ""


def _is_factory(func: Any, torch: Any) -> bool:
    """A plain function that needs no argument, or is annotated to return a module, is a
    factory (``model.py:build``): a forward always takes the sample inputs."""
    if not inspect.isfunction(func):
        return False
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return False
    ret = sig.return_annotation
    if inspect.isclass(ret) and issubclass(ret, torch.nn.Module):
        return True
    if isinstance(ret, str) and ret.split(".")[-1] in vars(inspect.getmodule(func) or object()):
        target = getattr(inspect.getmodule(func), ret.split(".")[-1])
        if inspect.isclass(target) and issubclass(target, torch.nn.Module):
            return True
    return not any(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values()
    )


def load_target(ref: ObjectRef, cwd: str) -> tuple[Any, str]:
    """Import the file and build the callable: a module class is instantiated (with the call's
    arguments, if any); a factory call ``build(...)`` is called; a function that needs no
    argument, or is annotated to return an ``nn.Module``, is taken as a factory and called
    with none; other functions and module instances are used as they are."""
    import torch

    obj, path = _resolve(ref, cwd)
    try:
        if not ref.called and _is_factory(obj, torch):
            obj = obj()
            if not callable(obj):
                raise TargetError(ref.text, f"{ref.name}() returned {type(obj).__name__}, not a module or function")
        elif ref.called:
            obj = obj(*ref.args, **ref.kwargs_dict)
        elif inspect.isclass(obj):
            if not issubclass(obj, torch.nn.Module):
                raise TargetError(ref.text, f"{ref.name} is a class but not an nn.Module")
            obj = obj()
    except TargetError:
        raise
    except Exception as e:  # noqa: BLE001 (the user's code may raise anything: the error names it)
        raise TargetError(ref.text, f"building it raised {type(e).__name__}: {_one_line(e)}") from None
    if not callable(obj):
        raise TargetError(ref.text, f"{ref.name} is not callable")
    return obj, path


def _call_source(ref: ObjectRef, cwd: str) -> Any:
    func, _ = _resolve(ref, cwd)
    try:
        return func(*ref.args, **ref.kwargs_dict)
    except Exception as e:  # noqa: BLE001 (the user's code may raise anything: the error names it)
        raise TargetError(ref.text, f"raised {type(e).__name__}: {_one_line(e)}") from None


def load_inputs(ref: ObjectRef, cwd: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Call an ``inputs-from`` function: a tuple/list is the positional args, a dict the keyword
    args, a ``(tuple, dict)`` pair both, anything else the single argument."""
    return as_call(_call_source(ref, cwd))


def load_input_sets(ref: ObjectRef, cwd: str) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Call an ``input-sets-from`` function: a list (or other iterable) of calls, each read
    like an ``inputs-from`` result."""
    value = _call_source(ref, cwd)
    try:
        calls = list(value)
    except TypeError:
        raise TargetError(ref.text, f"must return a list of calls, got {type(value).__name__}") from None
    return [as_call(c) for c in calls]


def as_call(value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """One call's arguments, as ``inputs-from`` (and ``explain``'s ``calls``) give them: a
    dict is keyword arguments, a ``(tuple, dict)`` pair both, a tuple/list the positional
    arguments, anything else the single argument."""
    if isinstance(value, dict):
        return (), value
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], (tuple, list))
        and isinstance(value[1], dict)
    ):
        return tuple(value[0]), dict(value[1])
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    return (value,), {}


def materialize_call(specs: list[Spec]) -> tuple[list[Any], dict[str, Any]]:
    """One call's specs -> (positional values, keyword values); the i-th spec of the call is
    drawn with seed i, whether it is passed by position or by keyword."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for i, spec in enumerate(specs):
        if isinstance(spec, KeywordSpec):
            kwargs[spec.name] = materialize(spec.spec, seed=i)
        else:
            args.append(materialize(spec, seed=i))
    return args, kwargs


def materialize(spec: Spec, seed: int = 0) -> Any:
    """Build the Python value for a spec (imports torch). Deterministic for one seed."""
    import torch

    gen = torch.Generator().manual_seed(seed)

    def build(s: Spec) -> Any:
        if isinstance(s, KeywordSpec):
            return build(s.spec)
        if isinstance(s, ScalarSpec):
            return s.value
        if isinstance(s, TupleSpec):
            return tuple(build(i) for i in s.items)
        dtype = getattr(torch, s.dtype)
        if s.dtype == "bool":
            value = torch.randint(0, 2, s.shape, generator=gen).bool()
        elif s.dtype in FLOATING:
            if s.low is None or s.high is None:  # a range gives both ends
                value = torch.randn(s.shape, generator=gen, dtype=torch.float32)
            else:
                value = torch.rand(s.shape, generator=gen) * (s.high - s.low) + s.low
            value = value.to(dtype)
        else:
            low, high = (0, 10) if s.low is None or s.high is None else (int(s.low), int(s.high))
            value = torch.randint(low, high, s.shape, generator=gen, dtype=torch.int64).to(dtype)
        return value.to(s.device) if s.device != "cpu" else value

    return build(spec)
