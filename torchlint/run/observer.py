"""The observer ``torchlint run`` installs in the user's program (child side).

The program runs unchanged, with its own ``torch.compile`` settings: no reset, no
``explain()``, no backend of ours. At interpreter start (:mod:`sitecustomize` in
``torchlint/run/bootstrap``, put on ``PYTHONPATH`` by :mod:`torchlint.run.program`) or
from the pytest plugin, :func:`install` arranges that, once ``torch._dynamo`` is imported,
the program's own dynamo reports what it does to a file of JSON lines, one file per
process (``<pid>.jsonl`` in the folder named by ``TORCHLINT_WATCH_DIR``), each line
written and flushed as it happens, so a crash keeps what was recorded before it:

* ``break``: each graph break dynamo logs (its ``graph_breaks`` log artifact, the one
  ``TORCH_LOGS=graph_breaks`` prints: once per break, the user stack on its first time),
  with the GB code, dynamo's explanation and hints;
* ``recompile``: each ``recompiles`` log record (which guard failed), with the live stack
  of the call that triggered it;
* ``limit``: dynamo's warning that a frame hit ``recompile_limit`` (it then runs eagerly);
* ``compile``: dynamo's compilation metrics of each compiled frame (time, failure, ops),
  with the graphs made and the FX-graph / AOT-autograd cache hits and misses since the
  last one, read from ``counters``;
* ``backward``: the first time the program runs autograd's backward (``.backward()``,
  ``torch.autograd.grad``): it trains, whatever its backend compiles;
* ``autotune``: inductor's autotune cache lookups (hit or miss), ``cache_dir``: where
  inductor keeps its caches and whether that folder is writable;
* ``cudagraph``: inductor's CUDA-graph skips (the reason in its words, the user's trace), the
  partition log of each graph compiled with CUDA graphs (the nodes left out, with their
  stacks), its re-recording reasons and distinct-size warnings, and each recording cudagraph
  trees makes (compile id, mode, function, non-static input shapes).

Nothing is printed: the artifact loggers get our handler only, unless the user turned them
on (``TORCH_LOGS``), in which case their output is left as it was. DataLoader worker
processes and processes that never compile write nothing. Importing this module imports
neither torch nor the rest of torchlint; the hooks import torch only when it is loaded.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import logging
import os
import sys
import threading
import time
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from collections.abc import Sequence

ENV_DIR = "TORCHLINT_WATCH_DIR"

_TORCHLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Records:
    """One JSON-lines file per process, opened on the first record (a forked child that
    records opens its own)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._fd: int | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()

    def _open(self) -> int:
        pid = os.getpid()
        if self._fd is not None and self._pid == pid:
            return self._fd
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, f"{pid}.jsonl")
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._pid = pid
        env = os.environ
        header = {
            "kind": "process",
            "pid": pid,
            "ppid": os.getppid(),
            "argv": list(sys.argv),
            "rank": _int(env.get("RANK")),
            "world_size": _int(env.get("WORLD_SIZE")),
            "local_rank": _int(env.get("LOCAL_RANK")),
            "xdist_worker": env.get("PYTEST_XDIST_WORKER"),
            "cwd": os.getcwd(),
            "time": time.time(),
            "torch_version": getattr(sys.modules.get("torch"), "__version__", None),
        }
        os.write(self._fd, (json.dumps(header) + "\n").encode("utf-8"))
        return self._fd

    def write(self, record: dict[str, Any]) -> None:
        if _in_dataloader_worker():
            return
        line = (json.dumps(record, default=str) + "\n").encode("utf-8")
        with self._lock:
            try:
                os.write(self._open(), line)
            except OSError:
                pass  # a full disk must not break the user's program


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _in_dataloader_worker() -> bool:
    worker = sys.modules.get("torch.utils.data._utils.worker")
    return worker is not None and getattr(worker, "_worker_info", None) is not None


def _live_stack(limit: int = 64) -> list[list[Any]]:
    """The Python stack of the running thread, outermost first, without torch's, torchlint's
    and the logging module's own frames (at compile time: the user's calls into the compiled
    function)."""
    frames: list[list[Any]] = []
    frame: FrameType | None = sys._getframe(1)
    torch_dir = _torch_dir()
    while frame is not None and len(frames) < limit:
        name = frame.f_code.co_filename
        if not (
            name.startswith(_TORCHLINT_DIR)
            or (torch_dir and name.startswith(torch_dir))
            or name.startswith("<")
            or name == logging.__file__
        ):
            frames.append([name, frame.f_lineno])
        frame = frame.f_back
    frames.reverse()
    return frames


_TORCH_DIR: list[str | None] = []


def _torch_dir() -> str | None:
    if not _TORCH_DIR:
        torch = sys.modules.get("torch")
        file: str | None = getattr(torch, "__file__", None)
        if not file:
            return None
        _TORCH_DIR.append(os.path.dirname(os.path.abspath(file)) + os.sep)
    return _TORCH_DIR[0]


def _compile_id() -> str | None:
    try:
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        return str(cid) if cid is not None else None
    except Exception:  # noqa: BLE001 (no compile id is not worth breaking the program over)
        return None


# --------------------------------------------------------------------------- post-import hooks


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback right after a named module has been imported (by anyone)."""

    def __init__(self) -> None:
        self.hooks: dict[str, list[Callable[[Any], None]]] = {}
        self._busy = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.hooks or self._busy:
            return None
        self._busy = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        finally:
            self._busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _HookedLoader(spec.loader, self.hooks.pop(name))
        return spec

    def when_imported(self, name: str, hook: Callable[[Any], None]) -> None:
        module = sys.modules.get(name)
        if module is not None:
            _run_hook(hook, module)
            return
        self.hooks.setdefault(name, []).append(hook)
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)


class _HookedLoader(importlib.abc.Loader):
    def __init__(self, inner: Any, hooks: list[Callable[[Any], None]]) -> None:
        self.inner = inner
        self.hooks = hooks

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__spec__.loader = self.inner
        module.__loader__ = self.inner
        self.inner.exec_module(module)
        for hook in self.hooks:
            _run_hook(hook, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _run_hook(hook: Callable[[Any], None], module: Any) -> None:
    try:
        hook(module)
    except Exception as e:  # noqa: BLE001 (the observer must never break the program)
        sys.stderr.write(f"torchlint: observer not installed ({type(e).__name__}: {e})\n")


_FINDER = _AfterImport()
_RECORDS: list[_Records] = []


def install(directory: str | None = None) -> bool:
    """Record what dynamo does in this process (and its children that inherit the
    environment) into ``directory`` (default ``$TORCHLINT_WATCH_DIR``). Idempotent; returns
    False when no folder is named."""
    directory = directory or os.environ.get(ENV_DIR)
    if not directory:
        return False
    if _RECORDS:
        return True
    _RECORDS.append(_Records(os.path.abspath(directory)))
    _FINDER.when_imported("torch._dynamo", _attach)
    return True


def records() -> _Records | None:
    return _RECORDS[0] if _RECORDS else None


# --------------------------------------------------------------------------- dynamo side


class _Handler(logging.Handler):
    #: kept by :func:`torchlint.dynamic.logs.capture_logs`: what ``torchlint.explain`` sees in
    #: a watched process is recorded for the whole run too
    torchlint_observer = True

    def __init__(self, on_record: Callable[[logging.LogRecord], None]) -> None:
        super().__init__(logging.DEBUG)
        self.on_record = on_record

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.on_record(record)
        except Exception:  # noqa: BLE001 (a malformed record must not stop the program)
            pass


_ARTIFACTS = ("graph_breaks", "recompiles")
_LOGGING_MODULES = (
    "torch._dynamo.guards",
    "torch._dynamo.convert_frame",
    "torch._dynamo.symbolic_convert",
    "torch._dynamo.exc",
)


def _attach(_module: Any) -> None:
    """Install the log handlers and the metrics hook (once ``torch._dynamo`` is imported)."""
    import importlib

    import torch._logging._internal as internal

    for name in _LOGGING_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    out = records()
    if out is None:  # attached by install(), which made the records first
        return
    from torchlint.dynamic.logs import heard, log_every_break

    breaks = _BreakRecorder(out)
    handlers = {
        "graph_breaks": _Handler(breaks.on_record),
        "recompiles": _Handler(
            lambda r: out.write(
                {"kind": "recompile", "message": r.getMessage(), "compile_id": _compile_id(), "stack": _live_stack()}
            )
        ),
    }

    def configure() -> None:
        for logger in _artifact_loggers():
            artifact = logger.name.rsplit(".__", 1)[1]
            handler = handlers[artifact]
            if handler not in logger.handlers:
                logger.addHandler(handler)
            if not _artifact_enabled(artifact):
                logger.setLevel(logging.DEBUG)
                logger.propagate = False  # not asked for: recorded, never printed
                heard(logger)  # (so the program's ``logging.disable`` does not hide it)

    configure()

    log_every_break()  # (for the whole program: each break is placed, a repeated one too)
    import torch._dynamo.guards as guards

    if hasattr(guards, "is_recompiles_enabled"):  # dynamo writes the record only when asked to
        guards.is_recompiles_enabled = lambda: True
    original_init = internal._init_logs

    def init_logs(*args: Any, **kwargs: Any) -> Any:  # torch._logging.set_logs(...) resets loggers
        result = original_init(*args, **kwargs)
        configure()
        return result

    internal._init_logs = init_logs
    limit = _Handler(lambda r: _on_convert_frame_warning(out, r))
    logging.getLogger("torch._dynamo.convert_frame").addHandler(limit)
    _hook_metrics(out)
    _hook_backward(out)
    _hook_timers(out)
    _FINDER.when_imported("torch._inductor.runtime.autotune_cache", lambda m: _hook_autotune(out, m))
    _FINDER.when_imported("torch._inductor.cudagraph_trees", lambda m: _hook_cudagraph_trees(out, m))
    _hook_inductor_logs(out)


def _artifact_enabled(artifact: str) -> bool:
    """Whether the user turned a log artifact on (``TORCH_LOGS``)."""
    import torch._logging._internal as internal

    enabled: Callable[[str], bool] = internal.log_state.is_artifact_enabled
    return enabled(artifact)


def _artifact_loggers() -> list[logging.Logger]:
    suffixes = tuple(f".__{a}" for a in _ARTIFACTS)
    return [
        logging.getLogger(name)
        for name in list(logging.root.manager.loggerDict)
        if name.startswith("torch") and name.endswith(suffixes)
    ]


def _on_convert_frame_warning(out: _Records, record: logging.LogRecord) -> None:
    message = record.getMessage()
    if message.startswith("torch._dynamo hit config."):
        out.write({"kind": "limit", "message": message, "compile_id": _compile_id(), "stack": _live_stack()})


class _BreakRecorder:
    """Turns each ``graph_breaks`` record into a ``break`` line, with the parsing the
    dynamic pass uses for its own runs (:mod:`torchlint.dynamic.observe`); the registry is
    read on the first break, so processes that never break never read it."""

    def __init__(self, out: _Records) -> None:
        self.out = out
        self.collector: Any = None

    def on_record(self, record: logging.LogRecord) -> None:
        if self.collector is None:
            from torchlint.dynamic.gb_registry import load_registry
            from torchlint.dynamic.observe import _BreakCollector

            out = self.out

            class Collector(_BreakCollector):
                def add(
                    self,
                    frames: Sequence[tuple[str, int]],
                    text: str,
                    witness: str,
                    *,
                    skipped: bool = False,
                    gb_type: str | None = None,
                    dynamo_loc: tuple[str, int] | None = None,
                ) -> None:
                    out.write(_break_record(self.registry, frames, text, skipped, gb_type, dynamo_loc))
                    return None

            self.collector = Collector(None, load_registry())
        self.collector.add_log_record(record)


def _break_record(
    registry: Any, frames: Any, text: str, skipped: bool, gb_type: str | None, dynamo_loc: Any
) -> dict[str, Any]:
    from torchlint.dynamic.observe import _split_reason

    entry = registry.lookup(gb_type) if gb_type else None
    if entry is None:
        entry = registry.find_in_text(text)
    explanation, hints, _ = _split_reason(text)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "graph break")
    return {
        "kind": "break",
        "frames": [[f, int(n)] for f, n in frames],
        "loc": [dynamo_loc[0], int(dynamo_loc[1])] if dynamo_loc else None,
        "gb_type": entry.gb_type if entry else gb_type,
        "gb_code": entry.code if entry else None,
        "reason": entry.gb_type if entry else first,
        "explanation": explanation or (entry.explanation if entry else ""),
        "hints": hints or (list(entry.hints) if entry else []),
        "skipped": bool(skipped),
        "compile_id": _compile_id(),
        "stack": _live_stack(),
    }


def _hook_backward(out: _Records) -> None:
    """One ``backward`` record the first time autograd's engine runs backward: the program
    trains. A backend that compiles no backward graph (``"eager"``) says so nowhere else."""
    import torch
    import torch.autograd as autograd

    original = getattr(autograd, "_engine_run_backward", None)
    if original is None:  # an older torch: compiled backward graphs alone say it trains
        return
    seen = [False]

    def engine_run_backward(*args: Any, **kwargs: Any) -> Any:
        if not seen[0] and not torch.compiler.is_compiling():
            seen[0] = True
            out.write({"kind": "backward"})
        return original(*args, **kwargs)

    autograd._engine_run_backward = engine_run_backward


def _hook_timers(out: _Records) -> None:
    """Timers at each compiled graph's entry and exit (:mod:`torchlint.dynamic.timing`): what
    each graph break costs per call."""
    from torchlint.dynamic import timing

    timing.install(out.write)


def _compiled_now() -> None:
    from torchlint.dynamic import timing

    timers = timing.timers()
    if timers is not None:
        timers.compiled()


def _recorded_now() -> None:
    from torchlint.dynamic import timing

    timers = timing.timers()
    if timers is not None:
        timers.recorded()


_CACHE_COUNTERS = (
    ("inductor", "fxgraph_cache_hit"),
    ("inductor", "fxgraph_cache_miss"),
    ("inductor", "fxgraph_cache_bypass"),
    ("aot_autograd", "autograd_cache_hit"),
    ("aot_autograd", "autograd_cache_miss"),
    ("aot_autograd", "autograd_cache_bypass"),
    ("stats", "unique_graphs"),
)


def _hook_metrics(out: _Records) -> None:
    """Dynamo appends each frame's :class:`CompilationMetrics` to a module-level deque; a
    deque that also records them sees every compile, whatever the backend."""
    import collections

    import torch._dynamo.utils as utils

    if not isinstance(getattr(utils, "_compilation_metrics", None), collections.deque):
        return  # an older torch: no compile times, the rest still recorded
    counters = utils.counters
    last: dict[str, int] = {}
    state = {"cache_dir": False}

    class Recording(collections.deque[Any]):
        def append(self, metrics: Any) -> None:
            super().append(metrics)
            try:
                _compiled_now()
                _record_metrics(metrics)
            except Exception:  # noqa: BLE001 (dynamo's own list is kept whatever this does)
                pass

    def _record_metrics(m: Any) -> None:
        now = {f"{group}.{name}": int(counters[group].get(name, 0)) for group, name in _CACHE_COUNTERS}
        # a counter below its last reading was cleared in between (``torch._dynamo.reset``,
        # ``explain``, ``assert_graph_breaks``): all it holds now is new
        delta = {k: (v - last.get(k, 0) if v >= last.get(k, 0) else v) for k, v in now.items()}
        delta = {k: v for k, v in delta.items() if v}
        last.update(now)

        def get(name: str) -> Any:
            return getattr(m, name, None)

        out.write(
            {
                "kind": "compile",
                "compile_id": str(get("compile_id")) if get("compile_id") else None,
                "co_name": get("co_name"),
                "co_filename": get("co_filename"),
                "co_firstlineno": get("co_firstlineno"),
                "seconds": get("entire_frame_compile_time_s"),
                "backend_seconds": get("backend_compile_time_s"),
                "inductor_seconds": get("inductor_compile_time_s"),
                "fail_type": get("fail_type"),
                "fail_reason": (get("fail_reason") or "")[:500] or None,
                "ops": get("graph_op_count"),
                "is_forward": get("is_forward"),
                "is_runtime": get("is_runtime"),
                "counters": delta,
            }
        )
        if not state["cache_dir"] and "torch._inductor" in sys.modules:
            state["cache_dir"] = True
            _record_cache_dir(out)

    utils._compilation_metrics = Recording(utils._compilation_metrics, utils._compilation_metrics.maxlen)


def _record_cache_dir(out: _Records) -> None:
    try:
        from torch._inductor import config as inductor_config
        from torch._inductor.runtime.cache_dir_utils import cache_dir
    except ImportError:
        return
    path = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    try:
        path = path or cache_dir()
    except OSError as e:
        out.write({"kind": "cache_dir", "path": path, "writable": False, "error": str(e)})
        return
    writable = os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)
    out.write(
        {
            "kind": "cache_dir",
            "path": os.path.abspath(path),
            "writable": writable,
            "fx_graph_cache": bool(getattr(inductor_config, "fx_graph_cache", True)),
            "autotune_local_cache": bool(getattr(inductor_config, "autotune_local_cache", True)),
            "env": "TORCHINDUCTOR_CACHE_DIR" in os.environ,
        }
    )


def _hook_autotune(out: _Records, module: Any) -> None:
    cache = getattr(module, "AutotuneCache", None)
    original = getattr(cache, "read_best", None)
    if cache is None or original is None:
        return

    def read_best(self: Any, *args: Any, **kwargs: Any) -> Any:
        best = original(self, *args, **kwargs)
        out.write({"kind": "autotune", "hit": best is not None})
        return best

    cache.read_best = read_best


# --------------------------------------------------------------------------- CUDA graphs

_CUDAGRAPH_MODULES = (
    "torch._inductor.cudagraph_utils",
    "torch._inductor.cudagraph_trees",
    "torch._inductor.output_code",
    "torch._inductor.compile_fx",
    "torch._inductor.scheduler",
)


def _hook_inductor_logs(out: _Records) -> None:
    """Inductor's ``cudagraphs`` log says when it skips CUDA graphs ("skipping cudagraphs due
    to ...", with the user's trace), how it partitions a graph around work it cannot capture,
    why it re-records one and when a dynamic graph has recorded many sizes; recorded as they
    come (texts read by :mod:`torchlint.dynamic.cudagraph_text`, as for declared targets).
    Each module's logger exists once the module is imported (the scheduler's only at the first
    compile), so the handler is added on each one's import."""
    handler = _Handler(lambda r: _on_cudagraph_log(out, r))

    def configure(_module: Any) -> None:
        import torch._logging._internal as internal

        from torchlint.dynamic.logs import heard

        artifact = "cudagraphs"
        if artifact not in getattr(internal.log_registry, "artifact_names", {artifact}):
            return
        for name in list(logging.root.manager.loggerDict):
            if name.startswith("torch._inductor") and name.endswith(f".__{artifact}"):
                logger = logging.getLogger(name)
                if handler not in logger.handlers:
                    logger.addHandler(handler)
                if not _artifact_enabled(artifact):
                    logger.setLevel(logging.DEBUG)
                    logger.propagate = False
                    heard(logger)
                    if name.startswith("torch._inductor.scheduler") and "isEnabledFor" not in vars(logger):
                        # its partition log lists every node (with its stack) of a graph compiled
                        # without CUDA graphs too: asked for only while compiling with them
                        vars(logger)["isEnabledFor"] = _only_with_cudagraphs(logger.isEnabledFor)

    for name in _CUDAGRAPH_MODULES:
        _FINDER.when_imported(name, configure)


def _only_with_cudagraphs(plain: Callable[[int], bool]) -> Callable[[int], bool]:
    """A logger's ``isEnabledFor`` that lets its DEBUG records through only while inductor
    compiles with CUDA graphs."""

    def is_enabled_for(level: int) -> bool:
        return plain(level) and (level > logging.DEBUG or _cudagraphs_on())

    return is_enabled_for


def _cudagraphs_on() -> bool:
    """Whether inductor is compiling with CUDA graphs now (``mode="reduce-overhead"`` patches
    its config while it compiles): a graph compiled without them is partitioned too."""
    config = sys.modules.get("torch._inductor.config")
    return bool(getattr(getattr(config, "triton", None), "cudagraphs", False))


def _on_cudagraph_log(out: _Records, record: logging.LogRecord) -> None:
    from torchlint.dynamic import cudagraph_text as text

    message = record.getMessage()
    base = {"kind": "cudagraph", "compile_id": _compile_id()}
    if text.is_skip(message):
        out.write(
            {
                **base,
                "event": "skip",
                "reason": text.skip_reason(message),
                "frames": [[f, n] for f, n in text.frames_in(message)],
                "message": message.splitlines()[0][:500],
                "stack": _live_stack(),
            }
        )
    elif (rerecorded := text.rerecord(message)) is not None:
        compile_id, function, reason = rerecorded
        out.write(
            {
                **base,
                "event": "rerecord_reason",
                "compile_id": compile_id or base["compile_id"],
                "function": function,
                "reason": reason[:500],
            }
        )
    elif text.distinct_sizes(message) is not None:
        out.write({**base, "event": "sizes", "sizes": text.distinct_sizes(message), "stack": _live_stack()})
    elif record.name.startswith("torch._inductor.scheduler") and text.is_partition_text(message) and _cudagraphs_on():
        out.write({**base, "event": "partition_log", "message": message[:1000]})


def _hook_cudagraph_trees(out: _Records, module: Any) -> None:
    """Each CUDA-graph recording (``CUDAGraphTreeManager.record_function``), with the compiled
    graph it belongs to (compile id, mode, the function: ``partition_0``... or ``call``), the
    shapes of its non-static inputs and the program's stack."""
    manager = getattr(module, "CUDAGraphTreeManager", None)
    original = getattr(manager, "record_function", None)
    if manager is None or original is None:
        return

    def record_function(self: Any, new_inputs: Any, function_id: Any) -> Any:
        try:
            _recorded_now()
            out.write(
                {
                    "kind": "cudagraph",
                    "event": "record",
                    **_recording(self, new_inputs, function_id),
                    "stack": _live_stack(),
                }
            )
        except Exception:  # noqa: BLE001 (the recording goes on whatever this does)
            pass
        return original(self, new_inputs, function_id)

    manager.record_function = record_function


def _recording(manager: Any, inputs: Any, function_id: Any) -> dict[str, Any]:
    import torch

    compile_id = getattr(manager, "id_to_compile_id", {}).get(function_id)
    mode = getattr(getattr(manager, "id_to_mode", {}).get(function_id), "name", None)
    wrapped = getattr(manager, "ids_to_funcs", {}).get(function_id)
    static = set(getattr(wrapped, "static_input_idxs", ()) or ())
    shapes = [
        "x".join(str(d) for d in t.shape) or "scalar"
        for i, t in enumerate(inputs or ())
        if isinstance(t, torch.Tensor) and i not in static
    ]
    name = manager.get_func_name(function_id) if hasattr(manager, "get_func_name") else None
    return {
        "function": str(getattr(function_id, "id", function_id)),
        "name": name,
        "mode": mode,
        "compile_id": str(compile_id) if compile_id is not None else _compile_id(),
        "shapes": shapes[:8],
    }
