"""``torchlint run PROGRAM``: the user's own program (or test suite) run unchanged, watched.

Two sides, two processes, like the target pass in :mod:`torchlint.dynamic`:

* ``command`` - the command itself (parent): the program run, then the static pass, merged
  into one :class:`~torchlint.findings.Report` through :func:`torchlint.pipeline.run_check`;
* ``program`` - the parent side: start the program with the observer on ``PYTHONPATH``,
  pass its output through, read the records every process wrote back into findings;
* ``observer`` - the child side, installed at interpreter start (``bootstrap/sitecustomize.py``)
  or by the pytest plugin (:mod:`torchlint.testing`): what the program's own dynamo does,
  written as JSON lines, one file per process.

Imports: :mod:`torchlint.dynamic` (the records-to-findings path and the plain-data modules
both passes share), :mod:`torchlint.findings`, :mod:`torchlint.files`, :mod:`torchlint.config`;
``command`` also :mod:`torchlint.pipeline`. Nothing in :mod:`torchlint.dynamic` imports this
package. Importing it imports no torch; the observer imports torch only once the program has.
"""
