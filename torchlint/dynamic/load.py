"""Importing the user's code, in the worker only: a target's file, its object, its inputs.

Importing a model runs its author's code, so nothing here runs in torchlint's own process;
the declarations were parsed in the parent (:mod:`torchlint.dynamic.targets`), and every
problem is a one-line :class:`TargetError`.
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import uuid
from typing import Any, Dict, List, Optional, Tuple

from torchlint.dynamic.specs import FLOATING, ScalarSpec, Spec, TupleSpec
from torchlint.dynamic.targets import ObjectRef, TargetError


def load_module_from_path(path: str, name: Optional[str] = None) -> Any:
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


def _resolve(ref: ObjectRef, cwd: str) -> Tuple[Any, str]:
    path = ref.path if os.path.isabs(ref.path) else os.path.join(cwd, ref.path)
    if not os.path.isfile(path):
        raise TargetError(ref.text, f"no such file: {ref.path}")
    try:
        module = load_module_from_path(path)
    except SyntaxError as e:
        raise TargetError(ref.text, f"cannot import {ref.path}: SyntaxError at line {e.lineno}: {e.msg}") from None
    except Exception as e:
        raise TargetError(ref.text, f"cannot import {ref.path}: {type(e).__name__}: {_one_line(e)}") from None
    obj: Any = module
    for part in ref.name.split("."):
        if not hasattr(obj, part):
            raise TargetError(ref.text, f"{ref.path} has no {ref.name!r}")
        obj = getattr(obj, part)
    return obj, os.path.realpath(path)


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
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                   for p in sig.parameters.values())


def load_target(ref: ObjectRef, cwd: str) -> Tuple[Any, str]:
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
    except Exception as e:
        raise TargetError(ref.text, f"building it raised {type(e).__name__}: {_one_line(e)}") from None
    if not callable(obj):
        raise TargetError(ref.text, f"{ref.name} is not callable")
    return obj, path


def _call_source(ref: ObjectRef, cwd: str) -> Any:
    func, _ = _resolve(ref, cwd)
    try:
        return func(*ref.args, **ref.kwargs_dict)
    except Exception as e:
        raise TargetError(ref.text, f"raised {type(e).__name__}: {_one_line(e)}") from None


def load_inputs(ref: ObjectRef, cwd: str) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
    """Call an ``inputs-from`` function: a tuple/list is the positional args, a dict the keyword
    args, a ``(tuple, dict)`` pair both, anything else the single argument."""
    return _as_call(_call_source(ref, cwd))


def load_input_sets(ref: ObjectRef, cwd: str) -> List[Tuple[Tuple[Any, ...], Dict[str, Any]]]:
    """Call an ``input-sets-from`` function: a list (or other iterable) of calls, each read
    like an ``inputs-from`` result."""
    value = _call_source(ref, cwd)
    try:
        calls = list(value)
    except TypeError:
        raise TargetError(ref.text, f"must return a list of calls, got {type(value).__name__}") from None
    return [_as_call(c) for c in calls]


def _as_call(value: Any) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
    if isinstance(value, dict):
        return (), value
    if (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (tuple, list))
            and isinstance(value[1], dict)):
        return tuple(value[0]), dict(value[1])
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    return (value,), {}


def materialize(spec: Spec, seed: int = 0) -> Any:
    """Build the Python value for a spec (imports torch). Deterministic for one seed."""
    import torch

    gen = torch.Generator().manual_seed(seed)

    def build(s: Spec) -> Any:
        if isinstance(s, ScalarSpec):
            return s.value
        if isinstance(s, TupleSpec):
            return tuple(build(i) for i in s.items)
        dtype = getattr(torch, s.dtype)
        if s.dtype == "bool":
            value = torch.randint(0, 2, s.shape, generator=gen).bool()
        elif s.dtype in FLOATING:
            if s.low is None:
                value = torch.randn(s.shape, generator=gen, dtype=torch.float32)
            else:
                value = torch.rand(s.shape, generator=gen) * (s.high - s.low) + s.low
            value = value.to(dtype)
        else:
            low, high = (0, 10) if s.low is None else (int(s.low), int(s.high))
            value = torch.randint(low, high, s.shape, generator=gen, dtype=torch.int64).to(dtype)
        return value.to(s.device) if s.device != "cpu" else value

    return build(spec)
