"""The dynamic pass: run declared targets through dynamo and report what really happened.

Two sides, two processes. The **parent side** runs in torchlint's own process and never
imports torch or the user's code; the **child side** runs in the worker process
(:mod:`~torchlint.dynamic.worker`), imports torch and the user's model, and answers with
plain data (:class:`~torchlint.dynamic.answer.Answer`).

Parent side (may import each other, :mod:`torchlint.config`, :mod:`torchlint.files`,
:mod:`torchlint.findings`; never a child-side module, torch, ``api`` or ``pipeline``):

* ``target_pass`` - the entry :func:`torchlint.pipeline.run_check` calls: parse the declarations,
  check CUDA is there when asked for, send each target to the worker (``run_targets``);
* ``process`` - the worker process: start, request/answer, timeout, crash and out-of-memory
  recovery, the tail of what it printed;
* ``results`` - answers -> ``TargetResult`` and ``Finding``\\ s (graph breaks, CUDA graphs);
* ``targets`` - parsing ``PATH:OBJ[(args)]`` declarations into ``TargetSpec``\\ s;
* ``specs`` - parsing sample-input specs (``f32[8,16]``; building them imports torch, child only).

Child side (may import the parent side's plain-data modules ``answer``, ``specs``,
``targets``, ``recompiles``, ``gb_registry``, and :mod:`torchlint.config`; never ``target_pass``,
``process`` or ``results``):

* ``worker`` - the process's main loop: one request, one answer, state put back after each;
* ``load`` - importing the user's file, building the target, calling its input functions;
* ``observe`` - the oracle: a callable through dynamo, every graph break it hits;
* ``cudagraphs`` - measuring what stops ``mode="reduce-overhead"`` from replaying CUDA graphs;
* ``logs`` - capturing torch's log artifacts (one handler, one context manager);
* ``timing`` - timers at each compiled graph's entry and exit, and around each call of a
  compiled function, once warm (what each break costs); ``timed_calls`` - a target's timed
  calls after its observation (``--cost-calls``).

``costs`` (torch-free) - one call's time split between its graphs and the breaks between them;
``records`` - what dynamo recorded -> findings, the one path ``check --target``, ``torchlint run``
(:mod:`torchlint.run`) and the pytest plugin share.

Shared, standard library only: ``answer`` (the answer type both sides speak),
``gb_registry`` (torch's graph-break registry, read as a file), ``recompiles`` (dynamo's
recompile messages in words).

Importing this package imports no torch. Entry points (imported lazily):

* :func:`torchlint.dynamic.target_pass.run_targets` - targets in a reused worker.
* :func:`torchlint.dynamic.observe.break_lines_of_source` - a snippet's break lines, for tests.
"""

from __future__ import annotations

from torchlint import lazy_exports

__all__ = ["run_targets", "break_lines_of_source", "observe_source", "TargetError", "SpecError"]

__getattr__ = lazy_exports(
    __name__,
    {
        "run_targets": "torchlint.dynamic.target_pass",
        "break_lines_of_source": "torchlint.dynamic.observe",
        "observe_source": "torchlint.dynamic.observe",
        "TargetError": "torchlint.dynamic.targets",
        "SpecError": "torchlint.dynamic.specs",
    },
)
