"""Whether a file can hold a compiled region, told from its summary and its project facts.

The static pass builds a libcst tree only for the files whose regions it walks: a file
without one has no findings (the rules run inside regions only), so its tree is not
needed. The facts (:meth:`torchlint.analysis.project.Project.facts`) name the functions
other files make regions; this module answers for the roots the file's own check finds
(:func:`torchlint.analysis.regions.find_regions`), by reading the names as
:class:`torchlint.analysis.names.ImportTable` reads them, from the summary
(:mod:`torchlint.analysis.summary`) instead of the tree.

The answer errs one way only: ``True`` whenever the per-file analysis could find a root
(a class that is an ``nn.Module``, a ``torch.compile`` decoration or call). Where the
summary cannot tell (a ``from torch import *``, a name imported twice), it says ``True``.
One case the summary does not keep: a class or function defined at the top level and again
under a top-level ``if``/``try`` later in the file; the summary holds the later one.

Nothing here imports libcst.
"""

from __future__ import annotations

import builtins
from typing import Any

from torchlint.analysis.torchnames import COMPILE_CALLS, is_module_class_name

_BUILTINS = frozenset(dir(builtins))
#: what ImportTable canonicalises (kept in step with torchlint.analysis.names)
_CANONICAL = {"torch.nn.modules.module.Module": "torch.nn.Module"}


def may_hold_regions(summary: dict[str, Any] | None, facts: dict[str, Any] | None) -> bool:
    """False only when checking the file with ``facts`` finds no compiled region in it."""
    if summary is None:
        return True  # not parsed by ast: libcst's parse reports the problem
    facts = facts or {}
    if facts.get("roots") or facts.get("reached") or facts.get("module_local"):
        return True
    if summary.get("compiled"):
        return True
    aliases: dict[str, set[str]] = {}
    for local, module, name, level in summary.get("imports", ()):
        if level:
            continue  # relative: bound, resolved only through the facts
        if name is None:
            head = module.split(".")[0]
            # `import a.b` binds a; `import a.b as c` binds c to a.b (the summary keeps both as
            # (local, "a.b")): either may be meant
            aliases.setdefault(local, set()).update({head if local == head else module, module})
        elif name == "*":
            if module == "torch":
                return True  # every unbound name may be torch's
        else:
            aliases.setdefault(local, set()).add(f"{module}.{name}")
    for local, qual in facts.get("aliases", {}).items():
        aliases[local] = {qual}
    module_classes = set(facts.get("module_classes", ()))

    def resolved(name: str) -> set[str]:
        head, _, rest = name.partition(".")
        targets = aliases.get(head)
        if targets is None:
            return {f"builtins.{name}"} if head in _BUILTINS else set()
        out = set()
        for target in targets:
            full = f"{target}.{rest}" if rest else target
            out.add(_CANONICAL.get(full, full))
        return out

    if any(t in COMPILE_CALLS for targets in aliases.values() for t in targets):
        return True  # `from torch import compile as c`: a call of c is a torch.compile
    classes = summary.get("classes", {})
    for cls in classes.values():
        for base in cls.get("bases", ()):  # (a same-file base is a module through bases seen here too)
            if any(is_module_class_name(q) or q in module_classes for q in resolved(base)):
                return True
    records = [rec for cls in classes.values() for rec in cls.get("methods", {}).values()]
    records.extend(summary.get("functions", {}).values())
    for rec in records:
        for decorator in rec.get("decorators", ()):
            if resolved(decorator) & COMPILE_CALLS:
                return True
    return False
