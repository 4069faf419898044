"""The worker process: imports torch once, then runs targets one request at a time.

Started by :mod:`torchlint.dynamic.process` as ``python -c ... worker.main(rfd, wfd)`` with its
stdout and stderr on a pipe the parent drains (keeping only the tail), so nothing the user's
model prints can garble the report or block. Requests and answers are JSON lines on two
dedicated pipes (``rfd`` / ``wfd``). Each target runs under a memory limit (``max_memory``
bytes of data beyond the worker's own), and what it changed in the process (working
directory, ``sys.path``, environment, streams, its own modules) is put back before the next.

Request: ``{"id", "target", "input_sets": [[spec, ...], ...], "inputs_from", "input_sets_from", "train", "cwd",
"project", "user_files", "mode", "device", "max_memory", "cost_calls"}`` (``project``: the project's root
folders, whose frames breaks are placed on) (``TargetSpec.to_wire`` and the run's options).
Answer: an :class:`~torchlint.dynamic.answer.Answer` as JSON, with ``cudagraphs``
(:func:`torchlint.dynamic.cudagraphs.observe_cudagraphs`) for ``mode == "reduce-overhead"`` and
``recycle`` set when the worker should be replaced (out of memory).
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
import types
from collections.abc import Container, Sequence
from typing import Any

from torchlint.dynamic.answer import Answer


def _one_line(e: BaseException) -> str:
    lines = [line for line in str(e).strip().splitlines() if line.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def _chain(e: BaseException) -> list[BaseException]:
    """``e`` and what caused it, outermost first."""
    out: list[BaseException] = []
    cur: BaseException | None = e
    while cur is not None and cur not in out:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _real_error(e: BaseException) -> BaseException:
    """The error the user's code made, not dynamo's wrapper of it: ``TorchRuntimeError:
    RuntimeError when making fake tensor call`` was caused by the shape mismatch at the user's
    line, which is what to show."""
    chain = _chain(e)
    own = [c for c in chain if not type(c).__module__.startswith("torch._dynamo")]
    if not own:
        return e
    real = own[0]
    if real is not chain[0]:  # it came through dynamo, which may wrap it in a builtin error
        # that quotes it: "Dynamo failed to run FX node with fake tensors: ... got RuntimeError('...')"
        # (torch 2.14 and 2.15 raise that one where 2.13 raised dynamo's own error)
        while (
            real.__cause__ is not None
            and not type(real.__cause__).__module__.startswith("torch._dynamo")
            and repr(real.__cause__) in str(real)
        ):
            real = real.__cause__
    return real


def _user_line(e: BaseException, user_files: Container[str]) -> str:
    """`` (at model.py:12)``: the innermost frame in the user's files of the traceback, or of
    the user stack dynamo kept with its error (``real_stack``: the line it was tracing), or
    else the line dynamo's tracer stood on. The last is for errors dynamo raises while
    tracing without a user stack: torch 2.15 evaluates ``bytearray(n)`` of constants at trace
    time, so running out of memory there fails inside dynamo, and when dynamo's own error
    handling then runs out too, the error that comes out carries no user stack at all."""
    for error in _chain(e):
        stack = [(f.filename, f.lineno) for f in getattr(error, "real_stack", None) or []]
        stack += [(f.filename, f.lineno) for f in traceback.extract_tb(error.__traceback__)]
        frames = [(f, n) for f, n in stack if os.path.realpath(f) in user_files]
        if frames:
            return f" (at {os.path.basename(frames[-1][0])}:{frames[-1][1]})"
    for error in _chain(e):
        traced = _traced_line(error.__traceback__, user_files)
        if traced:
            return f" (at {os.path.basename(traced[0])}:{traced[1]})"
    return ""


def _traced_line(tb: Any, user_files: Container[str]) -> tuple[str, int] | None:
    """The line in the user's files that the innermost dynamo instruction translator of the
    traceback was tracing: a frame whose ``self`` has the traced code (``f_code``) and line
    (``lineno``), which dynamo's translators have had on every torch of the matrix."""
    found = None
    while tb is not None:
        tracer = tb.tb_frame.f_locals.get("self")
        code, line = getattr(tracer, "f_code", None), getattr(tracer, "lineno", None)
        if (
            isinstance(code, types.CodeType)
            and isinstance(line, int)
            and os.path.realpath(code.co_filename) in user_files
        ):
            found = (code.co_filename, line)
        tb = tb.tb_next
    return found


_OUT_OF_MEMORY = re.compile(r"MemoryError|can't allocate memory|Cannot allocate memory|out of memory", re.I)
_ALLOCATE = re.compile(r"tried to allocate (?:(\d+) bytes|([\d.]+ ?[KMGT]iB))", re.I)
_UNLIMITED: tuple[int, int] | None = None


def _limit_memory(request: dict[str, Any]) -> int:
    """Cap the data segment (heap and private writable mappings: what ``malloc``, tensors and
    Python objects take) at its size now plus ``max_memory`` bytes, the target's share.
    Returns the share applied, 0 when none (no limit asked, no ``resource`` or ``/proc``).

    ``RLIMIT_DATA``, not ``RLIMIT_AS``: the CUDA driver reserves huge address ranges that it
    never writes, and fails to start under an address-space limit; GPU memory is not counted.
    """
    global _UNLIMITED
    share = int(request.get("max_memory") or 0)
    if share <= 0:
        return 0
    try:
        import resource

        with open("/proc/self/status") as fh:
            vm_data = re.search(r"^VmData:\s+(\d+) kB", fh.read(), re.M)
        if vm_data is None:
            return 0
        data = int(vm_data.group(1)) * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if _UNLIMITED is None:
            _UNLIMITED = (soft, hard)
        cap = data + share
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
    except (ImportError, OSError, ValueError, AttributeError):
        return 0
    return share


def _lift_memory_limit() -> None:
    if _UNLIMITED is not None:
        import resource

        try:
            resource.setrlimit(resource.RLIMIT_DATA, _UNLIMITED)
        except (OSError, ValueError):
            pass


def _out_of_memory(answer: Answer, share: int) -> None:
    """Say so plainly when the target ran out of memory, and ask for a fresh worker (the
    old one may hold on to what it allocated)."""
    error = answer.error or ""
    if not _OUT_OF_MEMORY.search(error):
        return
    from torchlint.config import format_size

    where = re.search(r" \(at [^()]+:\d+\)$", error)
    wanted = _ALLOCATE.search(error)
    if wanted:
        detail = f"tried to allocate {format_size(int(wanted.group(1))) if wanted.group(1) else wanted.group(2)}"
    else:
        detail = "MemoryError" if "MemoryError" in error else error.split(": ", 1)[-1][:200]
    limit = f" (over --max-memory {format_size(share)})" if share else ""
    prefix = error.split(": ", 1)[0] + ": " if error.startswith("target ") else ""
    kind = "GPU memory" if "CUDA" in error else "memory"
    answer.error = f"{prefix}ran out of {kind}{limit}: {detail}{where.group(0) if where else ''}"
    answer.recycle = True


class _ProcessState:
    """What a target may change that the next one must not see: the working directory,
    ``sys.path``, ``sys.argv``, the environment, ``sys.stdout``/``stderr``, and the modules
    it imported through folders it put on ``sys.path`` (its own folder: the next target's
    ``layers.py`` must not be this one's). Installed packages stay imported."""

    def __init__(self) -> None:
        self.cwd = os.getcwd()
        self.path = list(sys.path)
        self.argv = list(sys.argv)
        self.environ = dict(os.environ)
        self.modules = set(sys.modules)

    def restore(self) -> None:
        try:
            os.chdir(self.cwd)
        except OSError:
            pass
        entries: list[object] = list(sys.path)  # a program may put other objects there
        added = tuple(
            os.path.join(os.path.realpath(p), "") for p in entries if isinstance(p, str) and p and p not in self.path
        )
        if added:
            for name in set(sys.modules) - self.modules:
                file = getattr(sys.modules.get(name), "__file__", None)
                if isinstance(file, str) and os.path.realpath(file).startswith(added):
                    sys.modules.pop(name, None)
        sys.path[:] = self.path
        sys.argv[:] = self.argv
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        for name, fd in (("stdout", 1), ("stderr", 2)):
            stream = getattr(sys, name)
            if stream is None or getattr(stream, "closed", True) or stream is not getattr(sys, f"__{name}__"):
                original = getattr(sys, f"__{name}__")
                if original is None or original.closed:
                    original = open(fd, "w", encoding="utf-8", errors="replace", closefd=False, buffering=1)
                    setattr(sys, f"__{name}__", original)
                setattr(sys, name, original)


def handle(request: dict[str, Any]) -> Answer:
    """Run one target under the memory limit; every failure becomes a one-line ``error``."""
    share = _limit_memory(request)
    try:
        answer = _handle(request)
    except MemoryError:
        answer = Answer(id=request.get("id"), error="raised MemoryError")
    finally:
        _lift_memory_limit()
    _out_of_memory(answer, share)
    return answer


def _handle(request: dict[str, Any]) -> Answer:
    import torch

    from torchlint.config import CUDAGRAPH_MODES
    from torchlint.dynamic.cudagraphs import observe_cudagraphs, prepare
    from torchlint.dynamic.load import load_input_sets, load_inputs, load_target, materialize_call
    from torchlint.dynamic.observe import observe
    from torchlint.dynamic.records import ProjectFiles
    from torchlint.dynamic.specs import parse_input
    from torchlint.dynamic.targets import TargetError, parse_ref

    number = request.get("id")
    cwd = request.get("cwd") or os.getcwd()
    user_files: Any = {os.path.realpath(p) for p in request.get("user_files") or []}
    path: str | None = None
    cudagraphs = None
    try:
        os.chdir(cwd)
        torch.manual_seed(0)
        ref = parse_ref(request["target"])
        fn, path = load_target(ref, cwd)
        # a break belongs to the innermost frame in the project (its root, and the target's
        # folder), whichever files were linted; without a project: the linted files
        project = request.get("project") or []
        if project:
            user_files = ProjectFiles(list(project) + [os.path.dirname(path)], cwd, also=[path])
        else:
            user_files.add(path)
        calls: list[tuple[Sequence[Any], dict[str, Any]]] = [
            materialize_call([parse_input(s) for s in call]) for call in request.get("input_sets") or []
        ]
        if request.get("inputs_from"):
            source = parse_ref(request["inputs_from"], "inputs-from function")
            calls.insert(0, load_inputs(source, cwd))
        if request.get("input_sets_from"):
            calls.extend(load_input_sets(parse_ref(request["input_sets_from"], "input-sets-from function"), cwd))
        if not calls:
            raise TargetError(ref.text, "no sample inputs: give --input, --input-set, --inputs-from or input-sets-from")
        fn, prepared = prepare(fn, calls, request.get("device"))
        obs = observe(
            fn,
            [list(a) for a, _ in prepared],
            kwarg_sets=[k for _, k in prepared],
            user_files=user_files,
            train=bool(request.get("train")),
            cost_calls=int(request.get("cost_calls") or 0),
        )
        if request.get("mode") in CUDAGRAPH_MODES:  # reduce-overhead, max-autotune
            cudagraphs = observe_cudagraphs(fn, prepared, user_files=user_files, mode=request["mode"])
    except TargetError as e:
        return Answer(id=number, error=str(e), path=path)
    except SystemExit as e:
        return Answer(id=number, error=f"the target called sys.exit({e.code!r})", path=path)
    except Exception as e:  # noqa: BLE001 (whatever the target raised is its answer)
        if any(isinstance(c, MemoryError) for c in _chain(e)):
            _lift_memory_limit()  # what the target holds still fills its share: room to say so
        return Answer(
            id=number,
            error=f"raised {_one_line(_real_error(e))}{_user_line(e, user_files)}",
            path=path,
            traceback="".join(traceback.format_exception(type(e), e, e.__traceback__)),
        )
    return obs.answer(id=number, path=path, cudagraphs=cudagraphs)


def main(rfd: int, wfd: int) -> None:
    reader = os.fdopen(rfd, "r", encoding="utf-8")
    writer = os.fdopen(wfd, "w", encoding="utf-8")

    def send(obj: dict[str, Any]) -> None:
        writer.write(json.dumps(obj) + "\n")
        writer.flush()

    try:
        import torch

        from torchlint.dynamic.observe import observe

        # Pay dynamo's one-off start-up cost now, not in the first target's time.
        observe(lambda x: x + 1, [(torch.ones(2),)], user_files=())

        send({"ready": True, "torch_version": torch.__version__, "pid": os.getpid(), "cuda": torch.cuda.is_available()})
    except BaseException as e:  # noqa: BLE001 (torch missing or broken: say so, then stop)
        send({"ready": False, "error": _one_line(e)})
        return
    state = _ProcessState()
    for line in reader:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("quit"):
            break
        try:
            answer = handle(request)
        except BaseException as e:  # noqa: BLE001 (keep the protocol alive whatever the target did)
            answer = Answer(id=request.get("id"), error=f"raised {_one_line(e)}")
        state.restore()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        send(answer.to_json())


if __name__ == "__main__":  # pragma: no cover - the runner starts it with -c
    main(int(sys.argv[1]), int(sys.argv[2]))
