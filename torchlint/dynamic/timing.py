"""Timers at graph entry and exit: where the time of each compiled call goes (child side).

Installed with the observer (:mod:`torchlint.run.observer`) once ``torch._dynamo`` is
imported, and by the worker for a target's timed calls. Two hooks, both on dynamo's own
seams, nothing on the user's code:

* every compiled graph dynamo gets back from its backend (``OutputGraph.call_user_compiler``)
  is wrapped: two ``perf_counter_ns`` readings and a list append per graph call, with what is
  known of it when it was compiled (its frame, where that frame broke after it, the break a
  resume function resumes after: :class:`~torchlint.dynamic.costs.GraphInfo`);
* each ``torch.compile`` wrapper (``OptimizeContext``) gets an entry/exit hook
  (``enter_exit_hooks``, which dynamo calls around the compiled call): the outermost entry on a
  thread starts a call, its exit ends it;
* each resume function dynamo installs (``OutputGraph.install_resume_function_global``: the
  global the compiled code calls after a break) is wrapped to note the time it is entered (a
  *mark*), so that two breaks with no graph between them each get their own time. The wrapper
  is a frame dynamo skips (``skip_code``) and makes no Python call but the resume function's.

A call is *timed* when it is warm: nothing compiled during it, no CUDA graph recorded, and
each graph in it has run before. Its timeline is split by :func:`~torchlint.dynamic.costs.split_call`
and kept per frame (every warm call until ``WINDOW`` were timed, then one in ``STRIDE``; at most
``SAMPLES`` calls per frame, a reservoir beyond): P50 and P95 of
their wall times, and the sums over them without the slowest ``TRIM`` of calls (a call the
machine preempted must not decide what a break costs). The first ``TORCHLINT_COST_WARMUP``
warm calls of a frame (default 2) are skipped;
``TORCHLINT_COST_CALLS`` caps the timed calls per frame (default: no cap). What each frame
measured is written as a ``cost`` record at exit and, as a snapshot, at 16, 32, 64, ... timed
calls (a program killed midway keeps its last one). The cost per graph call is a few
microseconds; compiled steps of milliseconds do not notice it (``benchmarks/run.py``).
"""

from __future__ import annotations

import atexit
import os
import random
import sys
import threading
import time
from typing import Any, Callable

from torchlint.dynamic.costs import TRIM, GraphInfo, percentile, resume_target, root_function, split_call, trimmed_sums

ENV_CALLS = "TORCHLINT_COST_CALLS"
ENV_WARMUP = "TORCHLINT_COST_WARMUP"
SAMPLES = 4096
#: every warm call of a frame is timed until WINDOW were; then one in STRIDE (the timers' cost
#: per call is then mostly two clock readings per graph)
WINDOW = 256
STRIDE = 8

_now = time.perf_counter_ns


class _Frame:
    """What one frame's timed calls add up to."""

    __slots__ = (
        "info",
        "calls",
        "warm",
        "timed",
        "samples",
        "compile_calls",
        "record_calls",
        "record_walls",
        "next_snapshot",
    )

    def __init__(self, info: GraphInfo) -> None:
        self.info = info
        self.calls = self.warm = self.timed = 0
        #: per timed call (a reservoir beyond SAMPLES): wall, in graphs, other, per break
        self.samples: list[tuple[int, int, int, dict[tuple[str, int], int]]] = []
        self.compile_calls = self.record_calls = 0
        self.record_walls: list[int] = []
        self.next_snapshot = 16


class _Call(threading.local):
    def __init__(self) -> None:
        self.depth = 0
        self.t0 = 0
        self.events: list[tuple[int, Any]] = []
        self.compiled = False
        self.recorded = False
        self.cold = False
        #: the exception being handled when the call began (a call made in an ``except``)
        self.handling: BaseException | None = None


class Timers:
    """The per-process timers; ``write`` takes each ``cost`` record."""

    def __init__(self, write: Callable[[dict[str, Any]], None]) -> None:
        self.write = write
        self.call = _Call()
        self.frames: dict[tuple[str, str], _Frame] = {}
        self.runs: dict[int, int] = {}
        self.lock = threading.Lock()
        self.cap = _env_int(ENV_CALLS, 0)
        self.warmup = _env_int(ENV_WARMUP, 2)
        self.window, self.stride = WINDOW, STRIDE
        self.random = random.Random(0)

    # ------------------------------------------------------------------ hooks

    def install(self) -> bool:
        """Hook dynamo (idempotent per process); False on a torch without the seams."""
        import torch._dynamo.eval_frame as eval_frame
        import torch._dynamo.output_graph as output_graph

        graph_class = getattr(output_graph, "OutputGraph", None)
        context = getattr(eval_frame, "OptimizeContext", None)
        if graph_class is None or context is None or not hasattr(graph_class, "call_user_compiler"):
            return False
        if getattr(graph_class.call_user_compiler, "_torchlint_timers", False):
            return True
        original_compile = graph_class.call_user_compiler
        timers = self

        def call_user_compiler(graph: Any, *args: Any, **kwargs: Any) -> Any:
            compiled = original_compile(graph, *args, **kwargs)
            try:
                return timers.wrap(compiled, _graph_info(graph))
            except Exception:  # noqa: BLE001 (an untimed graph still runs)
                return compiled

        call_user_compiler._torchlint_timers = True  # type: ignore[attr-defined]
        graph_class.call_user_compiler = call_user_compiler
        original_init = context.__init__

        def init(ctx: Any, *args: Any, **kwargs: Any) -> None:
            original_init(ctx, *args, **kwargs)
            hooks = getattr(ctx, "enter_exit_hooks", None)
            if isinstance(hooks, list):
                hooks.append(timers.enter)

        context.__init__ = init
        self._hook_resumes(graph_class)
        atexit.register(self.flush)
        return True

    def _hook_resumes(self, graph_class: Any) -> None:
        """Marks at resume-function entries (where this torch has the seams)."""
        import types

        import torch._dynamo.eval_frame as eval_frame

        original = getattr(graph_class, "install_resume_function_global", None)
        skip = getattr(eval_frame, "skip_code", None)
        if original is None or skip is None:
            return
        call = self.call
        now = _now

        def marked(fn: Any, info: GraphInfo) -> Any:
            def resume(*args: Any, **kwargs: Any) -> Any:
                if call.depth:
                    call.events.append((now(), info))
                return fn(*args, **kwargs)

            return resume

        def marked_factory(factory: Any, info: GraphInfo) -> Any:
            def make(*args: Any, **kwargs: Any) -> Any:
                return marked(factory(*args, **kwargs), info)

            return make

        skip(marked(None, None).__code__)  # type: ignore[arg-type]
        skip(marked_factory(None, None).__code__)  # type: ignore[arg-type]
        skip(marked.__code__)

        def install_resume_function_global(graph: Any, name: str, code: Any, f_globals: Any) -> None:
            original(graph, name, code, f_globals)
            try:
                resumed = resume_target(code.co_name)
                scope = graph.global_scope
                value = scope.get(name)
                if resumed is None or value is None:
                    return
                info = GraphInfo(
                    frame=root_function(code.co_name),
                    path=code.co_filename,
                    resume_of=(code.co_filename, resumed[1]),
                    mark=True,
                )
                direct = isinstance(value, types.FunctionType) and value.__code__ is code
                scope[name] = marked(value, info) if direct else marked_factory(value, info)
            except Exception:  # noqa: BLE001 (the resume function still runs, unmarked)
                pass

        graph_class.install_resume_function_global = install_resume_function_global

    def wrap(self, compiled: Any, info: GraphInfo) -> Any:
        """``compiled`` with timers at its entry and exit."""
        compiled = _realized(compiled)
        self.compiled()
        call = self.call
        runs = self.runs
        key = id(info)
        runs[key] = 0

        def timed_graph(*args: Any, **kwargs: Any) -> Any:
            if call.depth == 0:
                return compiled(*args, **kwargs)
            n = runs[key]
            runs[key] = n + 1
            if n < 1:
                call.cold = True
            events = call.events
            events.append((_now(), info))
            try:
                return compiled(*args, **kwargs)
            finally:
                events.append((_now(), None))

        timed_graph.__wrapped__ = compiled  # type: ignore[attr-defined]
        return timed_graph

    def compiled(self) -> None:
        """Something compiled now (a graph, or a frame without one): this call is not warm."""
        if self.call.depth:
            self.call.compiled = True

    def recorded(self) -> None:
        """A CUDA graph was recorded now."""
        if self.call.depth:
            self.call.recorded = True

    def enter(self) -> Callable[[], None]:
        call = self.call
        call.depth += 1
        if call.depth == 1:
            call.events = []
            call.compiled = call.recorded = call.cold = False
            call.handling = sys.exc_info()[1]
            call.t0 = _now()
        return self.exit

    def exit(self) -> None:
        t1 = _now()
        call = self.call
        call.depth -= 1
        if call.depth:
            return
        events = call.events
        call.events = []
        if not events:
            return  # no graph ran (an eager frame, a call that raised early): no frame to name
        raised = sys.exc_info()[1]  # dynamo calls this in a `finally`: what the call raises
        if raised is not None and raised is not call.handling:
            return  # it stopped partway: not a call's time
        try:
            self._add(call, t1, events)
        except Exception:  # noqa: BLE001 (the program goes on whatever the timers do)
            pass

    # ------------------------------------------------------------------ sums

    def _add(self, call: _Call, t1: int, events: list[tuple[int, Any]]) -> None:
        first = events[0][1]
        known = self.frames.get((first.frame, first.path)) if first is not None else None
        if known is not None and known.timed >= self.window and not (call.compiled or call.recorded or call.cold):
            # past the window, one warm call in `stride` is split and kept: the rest only counted
            if (known.warm + 1) % self.stride:
                known.calls += 1
                known.warm += 1
                return
        times = split_call(call.t0, t1, events)
        info = times.frame
        if info is None:
            return
        key = (info.frame, info.path)
        frame = self.frames.get(key)
        if frame is None:
            with self.lock:
                frame = self.frames.setdefault(key, _Frame(info))
        frame.calls += 1
        if call.compiled:
            frame.compile_calls += 1
        if call.recorded:
            frame.record_calls += 1
            if len(frame.record_walls) < SAMPLES:
                frame.record_walls.append(times.wall_ns)
        if call.compiled or call.recorded or call.cold:
            return
        frame.warm += 1
        if frame.warm <= self.warmup or (self.cap and frame.timed >= self.cap):
            return
        frame.timed += 1
        sample = (times.wall_ns, times.graph_ns, times.other_ns, times.breaks)
        if len(frame.samples) < SAMPLES:
            frame.samples.append(sample)
        else:  # a reservoir: every timed call as likely to be kept
            slot = self.random.randrange(frame.timed)
            if slot < SAMPLES:
                frame.samples[slot] = sample
        if frame.timed >= frame.next_snapshot:
            frame.next_snapshot *= 2
            self.write(self.record(frame))

    def record(self, frame: _Frame) -> dict[str, Any]:
        sums = trimmed_sums(frame.samples, TRIM)
        walls = [s[0] for s in frame.samples]
        p50 = percentile(walls, 0.5)
        extra = [w - p50 for w in frame.record_walls] if walls and frame.record_walls else []
        return {
            "kind": "cost",
            "pid": os.getpid(),
            "frame": frame.info.frame,
            "path": frame.info.path,
            "calls": frame.calls,
            "timed": frame.timed,
            "kept": sums.kept,
            "wall_ns": sums.wall_ns,
            "p50_ns": int(p50),
            "p95_ns": int(percentile(walls, 0.95)),
            "graph_ns": sums.graph_ns,
            "other_ns": sums.other_ns,
            "breaks": [[p, n, ns] for (p, n), ns in sums.breaks.items()],
            "compile_calls": frame.compile_calls,
            "record_calls": frame.record_calls,
            "record_extra_ns": int(sum(extra) / len(extra)) if extra else None,
        }

    def flush(self) -> None:
        """Write every frame's figures (at exit, or when the worker's timed calls are done)."""
        for frame in list(self.frames.values()):
            if frame.calls:
                try:
                    self.write(self.record(frame))
                except Exception:  # noqa: BLE001
                    pass

    def reset(self) -> None:
        self.frames.clear()


def _env_int(name: str, default: int) -> int:
    try:
        return max(int(os.environ.get(name, default)), 0)
    except ValueError:
        return default


def _realized(compiled: Any) -> Any:
    """A lazily generated FX module made real now (dynamo does it for the callable it keeps;
    wrapped, the callable would hide the module from it)."""
    try:
        from torch.fx._lazy_graph_module import _LazyGraphModule
    except ImportError:
        return compiled
    lazy = compiled if isinstance(compiled, _LazyGraphModule) else getattr(compiled, "__self__", None)
    named = getattr(compiled, "__name__", "") == "_lazy_forward"
    if isinstance(lazy, _LazyGraphModule) and (compiled is lazy or named):
        _LazyGraphModule.force_recompile(lazy)
        return lazy.forward
    return compiled


def _graph_info(graph: Any) -> GraphInfo:
    """What the graph being compiled belongs to: its frame (a resume function's own function),
    where the frame broke after it (the line the root frame stood on when dynamo broke), and
    the break a resume function resumes after."""
    tx = getattr(graph, "root_tx", None)
    code = getattr(tx, "f_code", None)
    name = getattr(code, "co_name", "?")
    path = getattr(code, "co_filename", "?")
    reason = getattr(graph, "compile_subgraph_reason", None)
    after = None
    line = getattr(tx, "lineno", None)
    if reason is not None and getattr(reason, "graph_break", False) and line:
        after = (path, int(line))
    resumed = resume_target(name)
    return GraphInfo(
        frame=root_function(name),
        path=path,
        break_after=after,
        resume_of=(path, resumed[1]) if resumed else None,
    )


_TIMERS: list[Timers] = []


def install(write: Callable[[dict[str, Any]], None]) -> Timers | None:
    """The process's timers, installed on dynamo (once); None where this torch lacks the seams."""
    if _TIMERS:
        return _TIMERS[0]
    timers = Timers(write)
    if not timers.install():
        return None
    _TIMERS.append(timers)
    return timers


def timers() -> Timers | None:
    return _TIMERS[0] if _TIMERS else None
