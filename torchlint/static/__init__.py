"""The static pass: lint many files without importing or running them.

``lint`` is the one way to lint one file's text (``lint_file``; the editor's second way,
re-parsing only what changed, is ``incremental``); ``engine`` walks one parsed file's
compiled regions once, running every enabled rule (and, when asked, letting the fixes plan
their edits in the same walk); ``limits`` runs one file's parse and walk under a time limit
on a big stack (and words parse errors); ``sources`` reads the files once and pre-filters
them (with an index of their stats, so a warm run opens only what changed); ``static_pass``
decides what to parse, runs it in a process pool and asks the ``cache``;
``notebook`` turns a notebook's code cells into one module and fixed text back into cells;
``installed_breaks`` reads what the installed packages the regions call break inside.

May import: :mod:`torchlint.analysis`, :mod:`torchlint.rules`, ``files``, ``findings``,
``config``, ``matrix``, ``knowledge`` (which tensor attributes and methods break only in an
autograd graph, so a file using them differs between the modes), ``pages`` (the cache hashes
the rule pages) and ``atomic`` (the cache's writes). Never the fixes (they are handed in as
a :class:`~torchlint.static.engine.FixPlanner`), the output or the dynamic pass.
"""
