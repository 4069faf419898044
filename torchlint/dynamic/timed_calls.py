"""A target's timed calls, in the worker: what each of its graph breaks costs per call.

After the observation (:func:`torchlint.dynamic.observe.observe`) has compiled the target and
called it once per input set, the target is called ``cost_calls`` more times, warm, cycling
through its input sets, with the same timers ``torchlint run`` puts in a program
(:mod:`torchlint.dynamic.timing`): two clock readings at each graph's entry and exit and
around each call. The timers' first warm calls of a frame are skipped (the warm-up), and the
calls stop once ``cost_calls`` of them were timed, after ``3 * (cost_calls + warm-up)``
calls whatever happened, or after ``BUDGET_S`` seconds, whichever comes first, so a slow
target does not hold CI; a call that raises ends them too (the observation stands as it
was). What they measured travels in the answer as the same ``cost`` records a watched
program writes; the parent turns them into figures on the findings through
:mod:`torchlint.dynamic.costs`, as for ``run``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Callable

from torchlint.dynamic import timing

#: seconds of timed calls at most per target
BUDGET_S = 10.0

_RECORDS: list[dict[str, Any]] = []


def ready() -> bool:
    """Timers installed on dynamo (once per process) and emptied: call before the target is
    compiled, so that its graphs are timed. False on a torch without the seams."""
    timers = timing.install(_RECORDS.append)
    if timers is None:
        return False
    timers.reset()
    _RECORDS.clear()
    return True


def time_calls(
    compiled: Callable[..., Any],
    calls: Sequence[tuple[Sequence[Any], dict[str, Any]]],
    count: int,
    *,
    budget_s: float = BUDGET_S,
) -> list[dict[str, Any]]:
    """Call ``compiled`` warm until ``count`` calls were timed (see the module's docstring);
    returns the ``cost`` records, one per compiled frame that was timed."""
    timers = timing.timers()
    if timers is None or count <= 0 or not calls:
        return []
    cap, stride = timers.cap, timers.stride
    timers.cap, timers.stride = count, 1  # every call timed: the count is what was asked
    try:
        start = time.monotonic()
        for i in range(3 * (count + timers.warmup)):
            args, kwargs = calls[i % len(calls)]
            try:
                compiled(*args, **kwargs)
            except Exception:  # noqa: BLE001 (a target that fails on a later call: what was timed stays)
                break
            if max((f.timed for f in timers.frames.values()), default=0) >= count:
                break
            if time.monotonic() - start > budget_s:
                break
        _RECORDS.clear()
        timers.flush()
        return [r for r in _RECORDS if r.get("kind") == "cost" and r.get("timed")]
    finally:
        timers.cap, timers.stride = cap, stride
        timers.reset()
        _RECORDS.clear()
