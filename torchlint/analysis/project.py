"""Compiled regions across files, decided over the files' summaries (no trees, no imports).

The per-file pass (:mod:`torchlint.analysis.regions`) sees one file. This module sees the
project: it resolves each file's imports to files (:mod:`torchlint.analysis.modules`), so that

* a class is an ``nn.Module`` when any base, through any number of files and mixins, is one;
  its ``forward`` (and a ``__call__`` override) is a root region;
* ``torch.compile(Net())`` or ``@torch.compile`` in one file marks the target wherever it is
  defined;
* functions, methods, properties, static- and classmethods reached from a region, in any
  project file, are regions too ("called from XLMModel.forward in models/xlm/modeling_xlm.py"),
  as is the wrapper inside a project decorator applied to a region;
* ``@torch.compiler.disable`` and ``is_compiling()`` are recognised through re-exports and
  wrappers (``def is_torchdynamo_compiling(): return torch.compiler.is_compiling()``), and
  code under ``if not <that>():`` is not followed;
* module-level loggers (``logging.getLogger``, a project ``get_logger`` that returns one),
  functions annotated ``-> torch.Tensor`` and module-level tensors keep what they are where
  another file imports them.

What a file's check needs from the project is its *facts* (:meth:`Project.facts`): small,
JSON-able, and part of the file's cache key, so editing a helper re-checks exactly the files
whose facts change.

An analysis can be redone in part. What it works out per file -- the roots a file declares,
the functions each region calls, whether a reached function is traced, a file's name facts
-- depends only on the summaries of the file and of what it reads (:meth:`Project.reads`:
its imports, transitively). After an edit, the files that cannot read an edited summary
keep what an earlier analysis said (:meth:`Project.analyze`'s ``earlier``); the regions are
then decided anew over all the roots, in the same order, so the result is a whole
analysis's (a test compares the two after every kind of edit).
"""

from __future__ import annotations

import functools
import os
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Callable, cast

from torchlint.analysis.modules import ModuleMap, relative_base
from torchlint.analysis.sites import ABSOLUTE, RETURN, evaluate, torch_call_kind
from torchlint.analysis.summary import TRAINING_ONLY, Summary
from torchlint.analysis.torchnames import (
    AUTOGRAD_FUNCTION,
    COMPILE_CALLS,
    DISABLE_DECORATORS,
    IS_COMPILING,
    NOT_WHILE_COMPILING,
    OPAQUE_DECORATORS,
    is_module_class_name,
    op_callee,
)

Ref = tuple[str, ...]  # ("ext", q) | ("mod", path) | ("cls"|"fn"|"meth"|"bound", path, name)

_CANONICAL = {"torch.nn.modules.module.Module": "torch.nn.Module"}
_LOGGER_FACTORIES = frozenset({"logging.getLogger"})
#: torch calls whose module-level result is a tensor (for `MASK = torch.ones(...)` constants)
_TENSOR_MAKERS = frozenset(
    {
        "tensor",
        "as_tensor",
        "zeros",
        "ones",
        "full",
        "empty",
        "arange",
        "linspace",
        "eye",
        "rand",
        "randn",
        "randint",
        "from_numpy",
        "zeros_like",
        "ones_like",
    }
)
_PROPERTY = ("property", "cached_property", "functools.cached_property")
#: the special methods the summary notes where the syntax runs them (`s[k]`, `len(s)`, `s(x)`)
_RUN_BY_SYNTAX = frozenset({"__getitem__", "__len__", "__iter__", "__next__", "__bool__", "__call__"})
_MAX_DEPTH = 40
#: how many calls deep a sparse tensor is followed (returned, handed on)
_MAX_SPARSE_HOPS = 6
_DISTRIBUTIONS = "torch.distributions."
#: the methods of a ``torch.distributions`` distribution or transform that torch's own code
#: calls (``TransformedDistribution.log_prob`` calls each transform's ``_inverse`` and
#: ``log_abs_det_jacobian``): regions as a module's ``forward`` is, wherever one is made
DISTRIBUTION_HOOKS = (
    "log_prob",
    "rsample",
    "sample",
    "cdf",
    "icdf",
    "entropy",
    "_call",
    "_inverse",
    "log_abs_det_jacobian",
)
#: the endings of exception classes' names (made to be raised: their ``__init__`` is not followed)
_RAISED = ("Error", "Exception", "Warning")
#: a loss's class name: a word ``Loss``/``Losses`` in it (``DiceLoss``, ``BaseLossWrapper``,
#: ``_Loss``), or a criterion or a hard-example miner (what feeds a loss its pairs)
_LOSS_NAME = re.compile(r"Loss(?:es)?(?:[A-Z_]|$)|(?:Criterion|Miner)$")
#: an edge to a subclass's override of a method called on ``self``, as a ref's kind
_VIRTUAL = "virt"


def _kept(rec: dict[str, Any]) -> set[str]:
    """What a function makes and keeps on ``self`` (``self.attn = Attention(...)`` in a method
    that swaps a submodule, a lazy build): made once, to run later, not on every call."""
    return {c for callees in rec.get("sets", {}).values() for c in callees}


def _unknown_atom(atom: str) -> str:
    """A parameter or ``self`` attribute in what a function returns: not known here."""
    return "?"


class Project:
    """The summaries of the checked files (and of the project files they import)."""

    def __init__(
        self,
        modmap: ModuleMap,
        load: Callable[[str], Summary | None],
        checked: Sequence[str],
        display: Callable[[str], str] | None = None,
        train: bool = False,
        installed: Callable[[str], int] | None = None,
        loss_roots: bool = True,
        followable: Callable[[str], bool] | None = None,
        module_base: Callable[[str], bool] | None = None,
    ) -> None:
        self.map = modmap
        #: whether an installed package's class is an ``nn.Module`` (``installed.is_module_class``:
        #: ``torch_geometric.nn.MessagePassing``, read from its source); None: only torch's are
        self.module_base = module_base
        #: what an installed package's name does when called (``installed.verdict``: 2 runs an
        #: operator whose output size depends on the data, 1 its package registers such an
        #: operator, 0 neither); None: installed packages are not read
        self.installed = installed
        #: whether an installed package is read for the breaks inside what the project calls
        #: of it (``installed.followable``); None: not read
        self.followable = followable
        #: calls made only in training (under ``if self.training:``) reach regions too
        self.train = train
        #: a loss's ``forward`` is a root (False: the eval pass of a project that is checked
        #: in training too, where they are: eval runs the model's forward alone)
        self.loss_roots = loss_roots or train
        self._load = load
        self.checked = [os.path.abspath(p) for p in checked]
        self._checked_set = set(self.checked)
        self._display = display or (lambda p: os.path.relpath(p))
        self._summaries: dict[str, Summary | None] = {}
        self._imports: dict[str, dict[str, tuple[str, str | None]]] = {}
        self._memo: dict[tuple, Any] = {}
        # (path, qualname) -> (root path, root qualname); roots map to themselves
        self.regions: dict[tuple[str, str], tuple[str, str]] = {}
        #: what the analysis worked out per file, to be taken as it is by a later one
        #: (:meth:`analyze`'s ``earlier``): checked path -> the roots it declares, in the
        #: order they are added; path -> region qualname -> the functions it calls; path ->
        #: qualname -> whether a function reached by a region is traced
        self.root_refs: dict[str, list[Ref]] = {}
        self.edges: dict[str, dict[str, list[Ref]]] = {}
        self.traced: dict[str, dict[str, bool]] = {}
        self._analyzed = False
        self._by_path: dict[str, list[tuple[str, tuple[str, str]]]] | None = None
        self._callers: dict[tuple[str, str], set[tuple[str, str]]] | None = None
        self._subclass_index: dict[tuple[str, str], list[tuple[str, str]]] | None = None
        self._dynamic: tuple[frozenset[str], frozenset[tuple[str, str]]] | None = None

    def read_paths(self) -> list[str]:
        """Every file whose summary the analysis used (the checked ones and those they import)."""
        return sorted(self._summaries)

    # -- summaries ---------------------------------------------------------------------
    def summary(self, path: str) -> Summary:
        if path not in self._summaries:
            self._summaries[path] = self._load(path)
        return self._summaries[path] or {}

    def _import_map(self, path: str) -> dict[str, tuple[str, str | None]]:
        """local name -> (absolute module, imported name or None for a module binding)."""
        table = self._imports.get(path)
        if table is not None:
            return table
        table = {}
        s = self.summary(path)
        module = self.map.module_of(path)
        is_pkg = os.path.basename(path) == "__init__.py"
        for local, mod, name, level in s.get("imports", ()):
            if level:
                base = relative_base(module, is_pkg, level)
                if base is None:
                    continue
                mod = f"{base}.{mod}".strip(".") if mod else base
            if local == "*":
                table.setdefault("*", [])  # type: ignore[arg-type]
                table["*"].append(mod)  # type: ignore[attr-defined]
            elif name is None:
                table[local] = (mod, None)
            else:
                table[local] = (mod, name)
        self._imports[path] = table
        return table

    # -- what a file's analysis can read ----------------------------------------------
    def reads(self, path: str) -> list[str]:
        """The files whose summaries resolving a name of ``path`` may read directly: what its
        imports (star, relative, the absolute calls a function returns) name, and the modules
        one level below it (``pkg.sub`` read through the package). Their own reads,
        transitively, are all that the file's roots and name facts depend on besides its own
        summary."""
        s = self.summary(path)
        out: set[str] = set()

        def find(name: str | None) -> None:
            f = self.map.find(name) if name else None
            if f is not None:
                out.add(f)

        for local, target in self._import_map(path).items():
            if local == "*":
                for mod in target:
                    find(mod)
                continue
            mod, imported = target
            find(mod)
            if imported:
                find(f"{mod}.{imported}")
        records = list(s.get("functions", {}).values())
        for cls in s.get("classes", {}).values():
            records.extend(cls.get("methods", {}).values())
        for rec in records:
            call = rec.get("returns_call")
            if call and rec.get("returns_abs"):
                pieces = call.split(".")
                for i in range(1, len(pieces) + 1):
                    find(".".join(pieces[:i]))
        out.update(self._children(path))
        out.discard(path)
        return sorted(out)

    def _children(self, path: str) -> list[str]:
        """The files one module level below ``path``'s module (``find("m.x")``): those mapped,
        and those on disk beside an ``__init__.py`` or in a folder named as the module (a
        lookup not made yet may find them)."""
        index = self._memo.get(("children",))
        if index is None:
            index = self._memo[("children",)] = {}
            for f, names in self.map.names.items():
                for name in names:
                    parent = name.rpartition(".")[0]
                    if parent:
                        index.setdefault(parent, set()).add(f)
        path = os.path.abspath(path)
        found: set[str] = set()
        for name in self.map.names.get(path, ()):
            found |= index.get(name, set())
        is_pkg = os.path.basename(path) == "__init__.py"
        found.update(self._python_files(os.path.dirname(path) if is_pkg else os.path.splitext(path)[0]))
        return sorted(found)

    def _python_files(self, folder: str) -> list[str]:
        """The modules and packages directly in ``folder`` (none when it is not a folder)."""
        key = ("folder", folder)
        if key not in self._memo:
            out: list[str] = []
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.name.endswith(".py") and entry.name != "__init__.py":
                            out.append(os.path.join(folder, entry.name))
                        elif entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                            out.append(os.path.join(entry.path, "__init__.py"))
            except OSError:
                pass
            self._memo[key] = out
        return self._memo[key]

    # -- name resolution ---------------------------------------------------------------
    def resolve_name(self, path: str, name: str, depth: int = 0) -> Ref | None:
        """What the top-level ``name`` of the module at ``path`` is."""
        key = ("name", path, name)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # cycles resolve to nothing
        out = self._resolve_name(path, name, depth) if depth < _MAX_DEPTH else None
        self._memo[key] = out
        return out

    def _resolve_name(self, path: str, name: str, depth: int) -> Ref | None:
        s = self.summary(path)
        if name in s.get("classes", ()):
            return ("cls", path, name)
        if name in s.get("functions", ()):
            return ("fn", path, name)
        table = self._import_map(path)
        if name in table and name != "*":
            mod, imported = table[name]
            return self._binding(mod, imported, depth + 1)
        alias = s.get("aliases", {}).get(name)
        if alias is not None and alias != name:
            return self.resolve_dotted(path, alias, depth + 1)
        if name in s.get("bound", ()):
            return ("bound", path, name)
        if os.path.basename(path) == "__init__.py":
            sub = self.map.find(f"{self.map.module_of(path)}.{name}")
            if sub is not None:
                return ("mod", sub)
        for star in cast("list[str]", table.get("*", ())):  # `from m import *`: the modules
            f = self.map.find(star)
            if f is not None:
                found = self.resolve_name(f, name, depth + 1)
                if found is not None:
                    return found
        return None

    def _binding(self, mod: str, imported: str | None, depth: int) -> Ref | None:
        f = self.map.find(mod)
        if imported is None:
            return ("mod", f) if f is not None else ("ext", _CANONICAL.get(mod, mod))
        if f is None:
            q = f"{mod}.{imported}"
            return ("ext", _CANONICAL.get(q, q))
        found = self.resolve_name(f, imported, depth)
        if found is not None:
            return found
        sub = self.map.find(f"{mod}.{imported}")
        return ("mod", sub) if sub is not None else None

    def resolve_dotted(self, path: str, dotted: str, depth: int = 0) -> Ref | None:
        head, *rest = dotted.split(".")
        ref = self.resolve_name(path, head, depth)
        for part in rest:
            if ref is None:
                return None
            ref = self._attr(ref, part, depth)
        return ref

    def _attr(self, ref: Ref, part: str, depth: int) -> Ref | None:
        kind = ref[0]
        if kind == "ext":
            q = f"{ref[1]}.{part}"
            return ("ext", _CANONICAL.get(q, q))
        if kind == "mod":
            found = self.resolve_name(ref[1], part, depth + 1)
            if found is None:
                sub = self.map.find(f"{self.map.module_of(ref[1])}.{part}")
                found = ("mod", sub) if sub is not None else None
            return found
        if kind == "cls":
            return self.find_method(ref[1], ref[2], part)
        return None

    def resolve_absolute(self, dotted: str) -> Ref | None:
        """An absolute dotted name (``import`` inside a function): the longest module prefix
        that is a project file, then attributes; else an external name."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            f = self.map.find(".".join(parts[:i]))
            if f is not None:
                ref: Ref | None = ("mod", f)
                for part in parts[i:]:
                    ref = self._attr(ref, part, 0) if ref is not None else None
                return ref
        return ("ext", _CANONICAL.get(dotted, dotted))

    def qualname(self, ref: Ref) -> str | None:
        if ref[0] == "ext":
            return ref[1]
        if ref[0] == "mod":
            return self.map.module_of(ref[1])
        module = self.map.module_of(ref[1])
        return f"{module}.{ref[2]}" if module else ref[2]

    # -- classes -----------------------------------------------------------------------
    def _class(self, path: str, name: str) -> dict[str, Any]:
        return self.summary(path).get("classes", {}).get(name, {})

    def bases(self, path: str, name: str) -> list[Ref]:
        key = ("bases", path, name)
        if key not in self._memo:
            self._memo[key] = [
                r
                for r in (self.resolve_dotted(path, b) for b in self._class(path, name).get("bases", ()))
                if r is not None
            ]
        return self._memo[key]

    def is_module(self, path: str, name: str) -> bool:
        """Whether ``name`` derives from ``torch.nn.Module``, through any number of files and mixins."""
        return self._derives("module", path, name, self._module_class)

    def _module_class(self, qual: str) -> bool:
        """Whether the external class ``qual`` is an ``nn.Module``: torch's, or an installed
        package's that derives from one (a project class subclassing ``MessagePassing``)."""
        return is_module_class_name(qual) or (self.module_base is not None and self.module_base(qual))

    def is_distribution(self, path: str, name: str) -> bool:
        """Whether ``name`` derives from a ``torch.distributions`` class (a distribution, a
        transform, a constraint), through the project's classes."""
        return self._derives("distribution", path, name, lambda q: q.startswith(_DISTRIBUTIONS))

    def is_autograd_function(self, path: str, name: str) -> bool:
        """Whether ``name`` derives from ``torch.autograd.Function``: ``Cls.apply(...)`` runs
        its ``forward``, which dynamo traces."""
        return self._derives("autograd", path, name, lambda q: q in AUTOGRAD_FUNCTION)

    def is_loss(self, path: str, name: str) -> bool:
        """Whether the module class ``name`` is a loss (or what picks a loss's pairs): its name,
        or a base's as written, through the project's classes, says so (``DiceLoss``,
        ``torch.nn.modules.loss._Loss``, ``BaseMiner``). A loss runs where a training step
        computes it; eval runs the model's forward alone."""
        return any(_LOSS_NAME.search(n) for n in self._written_names(path, name))

    def _lineage(self, path: str, name: str) -> list[tuple[str, str]]:
        """The class ``name`` of ``path`` and its bases in the project, each once, by name."""
        key = ("lineage", path, name)
        found = self._memo.get(key)
        if found is None:
            found = []
            todo, seen = [(path, name)], set[tuple[str, str]]()
            while todo and len(seen) < _MAX_DEPTH:
                where, cls = todo.pop()
                if (where, cls) in seen:
                    continue
                seen.add((where, cls))
                found.append((where, cls))
                todo.extend((b[1], b[2]) for b in self.bases(where, cls) if b[0] == "cls")
            self._memo[key] = found
        return found

    def _written_names(self, path: str, name: str) -> list[str]:
        """The last part of each name the class's lineage is written with: its classes' own
        names and their bases as written (``_Loss`` of ``nn.modules.loss._Loss``)."""
        return [
            str(b).rsplit(".", 1)[-1]
            for where, cls in self._lineage(path, name)
            for b in [cls, *self._class(where, cls).get("bases", ())]
        ]

    def _lineage_records(self, path: str, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """(file, method record) of each method of the class's lineage."""
        for where, cls in self._lineage(path, name):
            for rec in self._class(where, cls).get("methods", {}).values():
                yield where, rec

    def _derives(
        self, what: str, path: str, name: str, external: Callable[[str], bool], _seen: set | None = None
    ) -> bool:
        """Whether a base of ``name``, or of a project class among its bases, is an external
        class ``external`` accepts (memoized under ``what``)."""
        key = (what, path, name)
        if key in self._memo:
            return self._memo[key]
        seen = _seen or set()
        if (path, name) in seen or len(seen) > _MAX_DEPTH:
            return False
        seen.add((path, name))
        out = any(
            (base[0] == "ext" and external(base[1]))
            or (base[0] == "cls" and self._derives(what, base[1], base[2], external, seen))
            for base in self.bases(path, name)
        )
        self._memo[key] = out
        return out

    def find_method(
        self, path: str, cls: str, method: str, skip_self: bool = False, _seen: set | None = None
    ) -> Ref | None:
        """The class (``cls`` or a base, depth first) that defines ``method``, as a ref."""
        seen = _seen if _seen is not None else set()
        if (path, cls) in seen or len(seen) > _MAX_DEPTH:
            return None
        seen.add((path, cls))
        if not skip_self and method in self._class(path, cls).get("methods", {}):
            return ("meth", path, f"{cls}.{method}")
        for base in self.bases(path, cls):
            if base[0] == "cls":
                found = self.find_method(base[1], base[2], method, False, seen)
                if found is not None:
                    return found
        return None

    def record(self, ref: Ref) -> dict[str, Any] | None:
        """The summary record of a function or method ref."""
        s = self.summary(ref[1])
        if ref[0] == "fn":
            return s.get("functions", {}).get(ref[2])
        if ref[0] == "meth":
            cls, _, meth = ref[2].partition(".")
            return s.get("classes", {}).get(cls, {}).get("methods", {}).get(meth)
        if ref[0] == "nested":
            return s.get("functions", {}).get(ref[2].split(".")[0])
        return None

    def return_kind(self, ref: Ref, through_params: bool = False) -> str:
        """What a call of function or method ``ref`` gives, from its summary: ``"t"`` (a
        tensor), ``"i"``, ``"n"`` or ``"?"``; through the functions it returns the result of
        (``return err < 1`` with ``err = ratio(...)`` in another file), and with
        ``through_params`` through its parameters and ``self`` attributes as they hold at
        every call in the project (:meth:`_call_sites`; what a parameter's kind at a call is
        worked out from: the facts of a file that depend on its callers)."""
        key = ("ret", ref, through_params)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = "?"  # (a function returning its own call: unknown)
        rec = self.record(ref) if ref[0] in ("fn", "meth") else None
        # `fold(...)` of `from torch.nn.functional import fold`
        found = (torch_call_kind(ref[1]) or "?") if ref[0] == "ext" else "?"
        if rec is not None:
            if rec.get("returns") == "tensor":
                found = "t"
            elif "ret" in rec:
                path, owner = ref[1], ref[2].partition(".")[0] if ref[0] == "meth" else None
                atom = _unknown_atom
                if through_params and ("building",) not in self._memo:
                    # `return (top + h, left + w)` of the ints every caller reads from a shape
                    atom = functools.partial(self._call_sites().atom_kind, (path, owner, ref[2]))
                found = evaluate(rec["ret"], atom, lambda c: self.call_kind(path, owner, c, through_params))
        self._memo[key] = found
        return found

    def call_kind(self, path: str, owner: str | None, name: str, through_params: bool = False) -> str:
        """What ``name(...)`` (a function's dotted name, ``self.method``, or
        ``self.attr.method`` of an object kept on ``self``) called in ``path`` (in a method of
        class ``owner``) returns (``through_params``: see :meth:`return_kind`)."""
        if name.startswith("self.") and name.count(".") == 2 and owner is not None:
            attr, method = name[5:].split(".")
            return self.held_method_kind(path, owner, attr, method, through_params)
        ref = self.callee_ref(path, owner, name)
        return self.return_kind(ref, through_params) if ref is not None else "?"

    def callee_ref(self, path: str, owner: str | None, name: str) -> Ref | None:
        """What ``name(...)`` called in ``path`` (in a method of class ``owner``) calls: a
        dotted name as the file resolves it, ``self.method``, or a name the caller imports
        itself (:data:`~torchlint.analysis.sites.ABSOLUTE`)."""
        if name.startswith(ABSOLUTE):
            return self.resolve_absolute(name[len(ABSOLUTE) :])
        if name.startswith("self."):
            return self.find_method(path, owner, name[5:]) if owner is not None else None
        return self.resolve_dotted(path, name)

    def held_method_kind(self, path: str, owner: str, attr: str, method: str, through_params: bool = False) -> str:
        """What ``self.<attr>.<method>(...)`` returns in a method of ``owner``: ``"t"`` when
        that method of every class the attribute is made as (:meth:`_attr_makers`) returns a
        tensor, else ``"?"``."""
        kinds = set()
        for where, callee in self._attr_makers(path, owner, attr):
            for cls in self.made_classes(where, callee):
                found = self.find_method(cls[1], cls[2], method)
                kinds.add(self.return_kind(found, through_params) if found is not None else "?")
        return "t" if kinds == {"t"} else "?"

    def held_returns(self, path: str, cls: str) -> dict[str, str]:
        """``"<cls>.self.<attr>.<method>"`` -> ``"tensor"`` for each method returning a tensor
        of each object ``cls`` keeps (``self.box_coder = BoxCoder(...)``, in its lineage): what
        the engine reads for ``self.box_coder.decode(...)``."""
        out: dict[str, str] = {}
        attrs = {a for _, rec in self._lineage_records(path, cls) for a in rec.get("sets", {})}
        for attr in sorted(attrs):
            methods: set[str] = set()
            for where, callee in self._attr_makers(path, cls, attr):
                for made in self.made_classes(where, callee):
                    for file, kept in self._lineage(made[1], made[2]):
                        methods.update(self._class(file, kept).get("methods", {}))
            for method in sorted(methods):
                if not method.startswith("__") and self.held_method_kind(path, cls, attr, method) == "t":
                    out[f"{cls}.self.{attr}.{method}"] = "tensor"
        return out

    # -- what functions are ------------------------------------------------------------
    def _returns_is(self, ref: Ref | None, names: frozenset, pred: str) -> bool:
        """Whether ``ref`` is one of the torch ``names`` or a function returning a call of one."""
        if ref is None:
            return False
        if ref[0] == "ext":
            return ref[1] in names
        if ref[0] != "fn":
            return False
        key = (pred, ref)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False
        rec = self.record(ref) or {}
        call = rec.get("returns_call")
        out = False
        if call is not None:
            params = rec.get("params", [])
            head = call.split(".")[0]
            target = self.resolve_absolute(call) if rec.get("returns_abs") else self.resolve_dotted(ref[1], call)
            if (
                (pred == "compiling" and not params)
                or (pred == "disable" and params and head not in params)
                or pred == "logger"
            ):
                out = self._returns_is(target, names, pred)
        elif pred == "compiling" and rec.get("returns_calls"):
            out = all(self._returns_is(self.resolve_dotted(ref[1], c), names, pred) for c in rec["returns_calls"])
        self._memo[key] = out
        return out

    def is_compiling(self, ref: Ref | None) -> bool:
        return self._returns_is(ref, IS_COMPILING, "compiling")

    def is_disable(self, ref: Ref | None) -> bool:
        return self._returns_is(ref, DISABLE_DECORATORS, "disable")

    def is_logger(self, ref: Ref | None) -> bool:
        if ref is None or ref[0] != "bound":
            return False
        callee = self.summary(ref[1]).get("bound", {}).get(ref[2])
        return callee is not None and self._returns_is(self.resolve_dotted(ref[1], callee), _LOGGER_FACTORIES, "logger")

    def _decorator_refs(self, path: str, rec: dict[str, Any]) -> list[tuple[str, Ref | None]]:
        return [(d, self.resolve_dotted(path, d)) for d in rec.get("decorators", ())]

    def is_disabled(self, path: str, rec: dict[str, Any]) -> bool:
        return any(self.is_disable(r) for _, r in self._decorator_refs(path, rec))

    def is_opaque(self, path: str, rec: dict[str, Any]) -> bool:
        """A ``@torch.library.custom_op`` function: an operator dynamo does not trace into."""
        return any(
            r is not None and r[0] == "ext" and r[1] in OPAQUE_DECORATORS for _, r in self._decorator_refs(path, rec)
        )

    # -- regions -----------------------------------------------------------------------
    def analyze(self, earlier: dict[str, Any] | None = None, unchanged: Iterable[str] = ()) -> None:
        """Decide the regions.

        ``earlier``: what an earlier analysis worked out per file (:attr:`root_refs`,
        :attr:`edges`, :attr:`traced`), taken as it is for the files in ``unchanged``: the
        files none of whose reads changed (their summaries and those of everything they
        import, transitively). The roots keep their order, so which root reaches a function
        first ("called from") is what a whole analysis says."""
        if self._analyzed:
            return
        self._analyzed = True
        same = set(unchanged) if earlier else set()
        old_roots = earlier.get("roots", {}) if earlier else {}
        old_edges = earlier.get("edges", {}) if earlier else {}
        old_traced = earlier.get("traced", {}) if earlier else {}
        queue: deque = deque()

        def traced(ref: Ref) -> bool:
            """Whether a function reached by a region is traced (defined, not a constructor,
            not ``@torch.compiler.disable``)."""
            path, qual = ref[1], ref[2]
            known = old_traced.get(path, {}).get(qual) if path in same else None
            if known is None:
                rec = self.record(ref)
                known = not (
                    rec is None
                    or (qual.endswith(".__init__") and self.raised(path, qual.rsplit(".", 1)[0]))
                    or self.is_disabled(path, rec)
                    or self.is_opaque(path, rec)
                )
            self.traced.setdefault(path, {})[qual] = known
            return known

        def add(ref: Ref, root: tuple[str, str]) -> None:
            if ref[0] == _VIRTUAL:
                ref = ("meth", ref[1], ref[2])
            key = (ref[1], ref[2])
            if key in self.regions or not traced(ref):
                return
            self.regions[key] = root
            queue.append(ref)

        for path in self.checked:
            refs = old_roots.get(path) if path in same else None
            self.root_refs[path] = refs = list(self._declared_roots(path)) if refs is None else refs
            for ref in refs:
                if ref[0] in ("fn", "meth"):
                    add(ref, (ref[1], ref[2]))

        while queue:
            ref = queue.popleft()
            path, qual = ref[1], ref[2]
            root = self.regions[(path, qual)]
            targets = old_edges.get(path, {}).get(qual) if path in same else None
            rec = self.record(ref) or {}
            if targets is None:
                targets = list(self._edges(ref, rec))
            else:
                targets = [t for t in targets if t[0] != _VIRTUAL]
            # the overrides a `self.m()` call may run: what the project's subclasses define
            # depends on files this one does not read, so they are worked out anew each time;
            # so are the methods of objects handed to the constructor (who makes them, too)
            targets.extend(self._overrides(ref, rec))
            targets.extend(self._handed_in(ref, rec))
            targets.extend(self._passed_in(ref, rec))
            targets.extend(self._read_on_handed(ref, rec))
            self.edges.setdefault(path, {})[qual] = targets
            for target in targets:
                add(target, root)

    def _declared_roots(self, path: str) -> Iterator[Ref]:
        """The roots ``path`` declares: forwards of its module classes, ``@torch.compile``
        functions and methods, the targets of its ``torch.compile(...)`` calls (in any file)."""
        s = self.summary(path)
        for cname, cls in s.get("classes", {}).items():
            # in the eval pass of a project also checked in training, a loss's forward is
            # reached only from a model's forward that calls it
            if self.is_module(path, cname) and (self.loss_roots or not self.is_loss(path, cname)):
                for m in ("forward", "__call__"):
                    if m in cls.get("methods", {}):
                        yield ("meth", path, f"{cname}.{m}")
            if self.is_distribution(path, cname):
                # what torch.distributions calls on one, as a module's forward
                for m in DISTRIBUTION_HOOKS:
                    if m in cls.get("methods", {}):
                        yield ("meth", path, f"{cname}.{m}")
            for mname, rec in cls.get("methods", {}).items():
                if self._compile_decorated(path, rec):
                    yield ("meth", path, f"{cname}.{mname}")
        for fname, rec in s.get("functions", {}).items():
            if self._compile_decorated(path, rec):
                yield ("fn", path, fname)
        for func, how, target in s.get("compiled", ()):
            fref = self.resolve_dotted(path, func)
            if fref is None or fref[0] != "ext" or fref[1] not in COMPILE_CALLS:
                continue
            ref = self._compile_target(path, how, target)
            if ref is not None and ref[0] in ("fn", "meth"):
                yield ref

    def _compile_decorated(self, path: str, rec: dict[str, Any]) -> bool:
        for _, r in self._decorator_refs(path, rec):
            if r is not None and r[0] == "ext" and r[1] in COMPILE_CALLS:
                return True
        return False

    def _compile_target(self, path: str, how: str, target: str) -> Ref | None:
        """What ``torch.compile(target)`` compiles: a function or method as written; for a
        module (``Net``, an instance ``net = Net()``, a call ``Net()``), its ``forward``; for
        the result of a function (``model = build(cfg)``, ``torch.compile(build())``), the
        forward of the module it returns (None when that is not known: never the function
        itself, which runs before compiling)."""
        ref = self.resolve_dotted(path, target)
        made = how == "call"  # `torch.compile(target(...))`: what the call returns
        if ref is None:
            head, _, rest = target.partition(".")
            cls_name = self.summary(path).get("instances", {}).get(head)
            if cls_name is not None:
                ref = self.resolve_dotted(path, cls_name)
                made = not rest
                for part in rest.split(".") if rest else ():
                    ref = self._attr(ref, part, 0) if ref is not None else None
        elif ref[0] == "bound":  # `model = build(cfg)` at module level
            callee = self.summary(ref[1]).get("bound", {}).get(ref[2])
            ref = self.resolve_dotted(ref[1], callee) if callee else None
            made = True
        for _ in range(3):  # a function's result: the module it returns, through other makers
            if not (made and ref is not None and ref[0] == "fn"):
                break
            returned = (self.record(ref) or {}).get("returns_call")
            ref = self.resolve_dotted(ref[1], returned) if returned else None
        if made and ref is not None and ref[0] == "fn":
            return None
        if ref is not None and ref[0] == "cls":
            ref = self.find_method(ref[1], ref[2], "forward")
        return ref

    def _runs(self, path: str, guard: str | None) -> bool:
        """Whether a call under ``guard`` (see :mod:`torchlint.analysis.summary`) runs in a
        compiled region of this analysis."""
        if guard is None:
            return True
        for part in guard.split("&"):  # nested guards: each must let the call run
            if part == TRAINING_ONLY:
                if not self.train:
                    return False
            elif part.startswith("!"):  # only where part() is true
                ref = self.resolve_dotted(path, part[1:])
                if ref is not None and ref[0] == "ext" and ref[1] in NOT_WHILE_COMPILING:
                    return False
            elif self.is_compiling(self.resolve_dotted(path, part)):
                return False
        return True

    def subclasses(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """(path, class) -> the project's classes that name it as a base (made once, read by
        the override edges here and by :class:`torchlint.analysis.callsites.CallSites`)."""
        if self._subclass_index is None:
            index: dict[tuple[str, str], list[tuple[str, str]]] = {}
            for path in self.checked:
                for cname in self.summary(path).get("classes", {}):
                    for base in self.bases(path, cname):
                        if base[0] == "cls":
                            index.setdefault((base[1], base[2]), []).append((path, cname))
            self._subclass_index = index
        return self._subclass_index

    def dynamic_ops(self) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
        """The operators the project registers (``"ns::op"``) whose fake kernel allocates a size
        computed from the data, and the project's ``@custom_op`` functions (path, name) that
        are one of them: dynamo cannot trace past a call of either (made once, from every
        file's summary: the registration and the call are seldom in one file)."""
        if self._dynamic is None:
            ops: set[str] = set()
            makers: dict[str, list[tuple[str, str]]] = {}
            for path in self.checked:
                for name, rec in self.summary(path).get("functions", {}).items():
                    if rec.get("op"):
                        makers.setdefault(rec["op"], []).append((path, name))
                    fake = rec.get("dyn_fake")
                    if fake and fake.startswith("="):  # `@keep.register_fake`: keep's operator
                        ref = self.resolve_dotted(path, fake[1:])
                        fake = (self.record(ref) or {}).get("op") if ref is not None and ref[0] == "fn" else None
                    if fake and "::" in fake:
                        ops.add(fake)
            made = frozenset(ref for op in ops for ref in makers.get(op, ()))
            self._dynamic = (frozenset(ops), made)
        return self._dynamic

    def dynamic_names(self, path: str) -> list[str]:
        """How ``path`` may call operators whose output size depends on the data: the
        project's (:meth:`dynamic_ops`) as ``torch.ops.<ns>.<op>`` and the names the file has
        for their ``@custom_op`` functions; an installed package's wrappers of its own such
        operators (:mod:`torchlint.analysis.installed`) by the name the file imports, and
        ``<local>.*`` for a module of such a package the file imports (its calls are looked
        up when checked)."""
        ops, functions = self.dynamic_ops()
        names = {op_callee(op) for op in ops}
        names.update(name for p, name in functions if p == path)
        for local, target in self._import_map(path).items():
            if local == "*":
                continue
            ref = self._binding(target[0], target[1], 0)
            if ref is None:
                continue
            if ref[0] == "fn" and (ref[1], ref[2]) in functions:
                names.add(local)
            elif ref[0] == "mod":
                names.update(f"{local}.{name}" for p, name in functions if p == ref[1])
            elif ref[0] == "ext" and self.installed is not None:
                verdict = self.installed(ref[1])
                if verdict:
                    names.add(local if verdict == 2 else f"{local}.*")
        return sorted(names)

    def installed_calls(self, path: str) -> list[list[Any]]:
        """What the file's regions call of installed third-party packages whose code is read
        for the breaks inside it (``followable``): each ``[qualified name, None, passed]`` of a
        function or class called, and ``[class, "__call__", passed]`` of a kept object called
        (``self.kernel = ScaleKernel(...)``, then ``self.kernel(x)``). ``passed``: ``[number
        of positional arguments, [keywords]]`` of one way the file calls it, None where a call
        unpacks ``*args`` or ``**kwargs``. None read: empty."""
        if self.followable is None:
            return []
        found: set[tuple[str, str | None, tuple | None]] = set()
        for qual, _ in (self._by_path or {}).get(path, ()):
            rec = self.record(("meth" if "." in qual else "fn", path, qual)) or {}
            owner = qual.split(".")[0] if "." in qual else None
            named = rec.get("named", {})
            shapes: dict[str, set[tuple | None]] = {}
            for entry in rec.get("sites", ()):
                kw = entry[2] if len(entry) > 2 else {}
                unpacked = "*" in entry[1] or "**" in kw
                shapes.setdefault(entry[0], set()).add(None if unpacked else (len(entry[1]), tuple(sorted(kw))))
            for name, guard in rec.get("calls", ()):
                if not self._runs(path, guard):
                    continue
                head, _, rest = name.partition(".")
                makers: list[tuple[str, str, str | None]]
                if head == "self" and rest and "." not in rest and owner is not None:
                    makers = [(where, callee, "__call__") for where, callee in self._attr_makers(path, owner, rest)]
                elif head in named:  # `odeint = odeint_adjoint if adjoint else odeint`
                    makers = [(path, f"{value}.{rest}" if rest else value, None) for value in named[head]]
                else:
                    makers = [(path, name, None)]
                for where, callee, method in makers:
                    ref = self.resolve_dotted(where, callee)
                    if ref is not None and ref[0] == "ext" and self.followable(ref[1].split(".", 1)[0]):
                        for shape in shapes.get(name) or {None}:
                            found.add((ref[1], method, shape))
        return [
            [q, m, [s[0], list(s[1])] if s is not None else None]
            for q, m, s in sorted(found, key=lambda c: (c[0], c[1] or "", c[2] or (-1, ())))
        ]

    def _overrides(self, ref: Ref, rec: dict[str, Any]) -> Iterator[Ref]:
        """For a method's ``self.m()`` calls: the ``m`` each subclass of its class defines
        (an instance of any of them may be the ``self`` it runs on)."""
        if ref[0] != "meth":
            return
        path, owner = ref[1], ref[2].split(".")[0]
        called = []
        for name, guard in rec.get("calls", ()):
            head, _, rest = name.partition(".")
            if head in ("self", "cls") and rest and "." not in rest and self._runs(path, guard):
                called.append(rest)
        if not called:
            return
        for sub in self._descendants(path, owner):
            methods = self._class(*sub).get("methods", {})
            for m in called:
                if m in methods:
                    yield (_VIRTUAL, sub[0], f"{sub[1]}.{m}")

    def _handed_in(self, ref: Ref, rec: dict[str, Any]) -> Iterator[Ref]:
        """For a method's ``self.attr.m()`` and ``self.attr()`` calls, where ``self.attr`` is
        an object the constructor was handed (``self.scheduler = scheduler``): ``m`` (or
        ``__call__``) of each class the project's calls of the constructor pass an instance
        of (:meth:`~torchlint.analysis.callsites.CallSites.param_classes`)."""
        if ref[0] != "meth":
            return
        path, owner = ref[1], ref[2].split(".")[0]
        held = rec.get("held", {})
        for name, guard in rec.get("calls", ()):
            head, _, rest = name.partition(".")
            if head in held and rest and "." not in rest and self._runs(path, guard):
                for attr in held[head]:  # `q = self.q; q.step(x)`
                    for cls in self.handed_classes(path, owner, attr) + self.kept_class_objects(path, owner, attr):
                        found = self.find_method(*cls, rest)
                        if found is not None:
                            yield (_VIRTUAL, found[1], found[2])
                continue
            if head != "self" or not rest or rest.count(".") > 1 or not self._runs(path, guard):
                continue
            attr, _, method = rest.partition(".")
            if method:  # `self.semiring.sum(x)` of a class kept as an object
                for cls in self.kept_class_objects(path, owner, attr):
                    found = self.find_method(*cls, method)
                    if found is not None:
                        yield (_VIRTUAL, found[1], found[2])
            if not method and self.find_method(path, owner, attr) is not None:
                continue  # `self.helper(x)`: a method, not an object
            for cls in self.handed_classes(path, owner, attr):
                if not method and self.is_module(*cls):
                    continue  # `self.net(x)` of a module: its forward is a region of its own
                found = self.find_method(*cls, method or "__call__")
                if found is not None:
                    yield (_VIRTUAL, found[1], found[2])

    def _passed_in(self, ref: Ref, rec: dict[str, Any]) -> Iterator[Ref]:
        """For a function's ``p.m()`` and ``p()`` calls on its own parameter ``p`` (``def
        solve(term, y): term.vf(t, y)``): ``m`` (or ``__call__``) of each class the project's
        calls pass an instance of (a module's forward is a region of its own)."""
        if ref[0] not in ("fn", "meth"):
            return
        params = (set(rec.get("sig", ())) | set(rec.get("kwonly", ()))) - {"self", "cls"}
        if not params:
            return
        sites = None
        for name, guard in rec.get("pcalls", ()):
            head, _, rest = name.partition(".")
            if head not in params or "." in rest or not self._runs(ref[1], guard):
                continue
            sites = sites or self._call_sites()
            for cls in sorted(sites.param_classes(ref[1], ref[2], head)):
                if not rest and self.is_module(*cls):
                    continue
                found = self.find_method(cls[0], cls[1], rest or "__call__")
                if found is not None:
                    yield (_VIRTUAL, found[1], found[2])
            for cls in sorted(sites.param_class_objects(ref[1], ref[2], head)) if rest else ():
                found = self.find_method(cls[0], cls[1], rest)  # `semiring.sum(x)` of a class
                if found is not None:
                    yield (_VIRTUAL, found[1], found[2])

    def _read_on_handed(self, ref: Ref, rec: dict[str, Any]) -> Iterator[Ref]:
        """For a property read or a ``[k]`` of ``self.attr`` (an object the constructor was
        handed) or of a parameter: what it runs in each class the project's calls pass
        (:meth:`_handed_in`, :meth:`_passed_in` for those reads)."""
        if ref[0] not in ("fn", "meth"):
            return
        path = ref[1]
        owner = ref[2].split(".")[0] if ref[0] == "meth" else None
        params = (set(rec.get("sig", ())) | set(rec.get("kwonly", ()))) - {"self", "cls"}
        held = rec.get("held", {})
        sites = None
        for obj, attr, guard in rec.get("reads_on", ()):
            if not self._runs(path, guard):
                continue
            if obj.startswith("self.") and owner is not None:
                classes: Iterable[tuple[str, str]] = self.handed_classes(path, owner, obj[5:])
            elif obj in held and owner is not None:
                classes = [c for attr in held[obj] for c in self.handed_classes(path, owner, attr)]
            elif obj in params:
                sites = sites or self._call_sites()
                classes = sorted(sites.param_classes(path, ref[2], obj))
            else:
                continue
            for cls in classes:
                for found in self._read_runs(cls[0], cls[1], attr):
                    yield (_VIRTUAL, found[1], found[2])

    def handed_classes(self, path: str, owner: str, attr: str, sites: Any = None) -> list[tuple[str, str]]:
        """The project classes of the objects ``self.<attr> = <param>`` in a constructor of
        ``owner``'s lineage keeps: what every call of that constructor passes (``sites``: the
        project's calls, while they are being gathered)."""
        key = ("handed", path, owner, attr)
        found = self._memo.get(key)
        if found is not None:
            return found
        sites = sites if sites is not None else self._call_sites()
        out: list[tuple[str, str]] = []
        for where, init, param in self._kept_params(path, owner, attr):
            for made in sorted(sites.param_classes(where, init, param)):
                if made not in out:
                    out.append(made)
        self._memo[key] = out
        return out

    def _kept_params(self, path: str, owner: str, attr: str) -> Iterator[tuple[str, str, str]]:
        """(file, constructor, parameter) for each ``self.<attr> = <param>`` (in either arm of a
        conditional) of a constructor of ``owner``'s lineage."""
        for where, cls in self._lineage(path, owner):
            value = self._init_fields(where, cls).get(attr)
            params = [value] if isinstance(value, str) else value[1:] if isinstance(value, list) else []
            for p in params:
                if isinstance(p, str) and p.startswith("p:"):
                    yield where, f"{cls}.__init__", p[2:]

    def kept_class_objects(self, path: str, owner: str, attr: str, sites: Any = None) -> list[tuple[str, str]]:
        """The project classes ``self.<attr>`` holds as objects, not instances, in ``owner``'s
        lineage: set to one by name (``self.semiring = MaxSemiring``), or to a parameter of a
        constructor the project's calls pass one as (``Chain(MaxSemiring)``), or that
        defaults to one (``semiring=MaxSemiring``). A strategy whose methods the class calls
        (``self.semiring.sum(x)``)."""
        key = ("class objects", path, owner, attr)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = []  # (a cycle adds nothing)
        sites = sites if sites is not None else self._call_sites()
        out: list[tuple[str, str]] = []
        for where, init, param in self._kept_params(path, owner, attr):
            held = sites.param_class_objects(where, init, param)
            out.extend(c for c in sorted(held) if c not in out)
        for where, rec in self._lineage_records(path, owner):
            for name in rec.get("refs", {}).get(attr, ()):
                ref = self.resolve_dotted(where, name)
                if ref is not None and ref[0] == "cls" and (ref[1], ref[2]) not in out:
                    out.append((ref[1], ref[2]))
        # named in a class body (`struct = LinearChain`): the class's or a base's, or that of
        # a subclass the project makes an instance of (which may be `self`)
        made = sites.loose | set(sites.held_by)
        below = [c for c in self._descendants(path, owner) if {c, *self._descendants(*c)} & made]
        for where, cls in [*self._lineage(path, owner), *below]:
            name = self._class(where, cls).get("names", {}).get(attr)
            ref = self.resolve_dotted(where, name) if name is not None else None
            if ref is not None and ref[0] == "cls" and (ref[1], ref[2]) not in out:
                out.append((ref[1], ref[2]))
        self._memo[key] = out
        return out

    # -- sparse tensors ------------------------------------------------------------------
    def _makes_sparse(self) -> bool:
        """Whether any checked file makes a sparse tensor (else nothing below is asked)."""
        found = self._memo.get(("makes sparse",))
        if found is None:
            found = False
            for path in self.checked:
                s = self.summary(path)
                records = [*s.get("functions", {}).values()]
                records += [m for c in s.get("classes", {}).values() for m in c.get("methods", {}).values()]
                if any(r.get("sparse_ret") or r.get("sparse_fields") for r in records):
                    found = True
                    break
            self._memo[("makes sparse",)] = found
        return found

    def returns_sparse(self, ref: Ref | None, depth: int = 0) -> bool:
        """Whether the project function ``ref`` returns a sparse tensor (or a tuple holding
        one) it makes, or what another such function returns (``return build(...)``)."""
        if ref is None or ref[0] not in ("fn", "meth") or depth > _MAX_SPARSE_HOPS:
            return False
        key = ("sparse ret", ref[1], ref[2])
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = False  # (a cycle returns nothing sparse)
        rec = self.record(ref) or {}
        out = bool(rec.get("sparse_ret"))
        ret = rec.get("ret")
        if not out and isinstance(ret, list) and len(ret) == 2 and ret[0] == RETURN and isinstance(ret[1], str):
            owner = ref[2].split(".")[0] if ref[0] == "meth" else None
            out = self.returns_sparse(self.callee_ref(ref[1], owner, ret[1]), depth + 1)
        self._memo[key] = out
        return out

    def sparse_attrs(self, path: str, cls: str) -> list[str]:
        """The attributes of ``self`` a method of ``cls`` or of its bases sets to a sparse
        tensor: one it makes (``self.adj = adj.to_sparse()``, a registered buffer), or what a
        project function returns (``self.interp_mats = calc_tensor_spmatrix(omega)``)."""
        key = ("sparse attrs", path, cls)
        found = self._memo.get(key)
        if found is not None:
            return found
        out: list[str] = []
        if self._makes_sparse():
            for where, rec in self._lineage_records(path, cls):
                for attr in rec.get("sparse_fields", ()):
                    if attr not in out:
                        out.append(attr)
                for attr, kind in rec.get("fields", {}).items():
                    if isinstance(kind, list) and len(kind) == 2 and kind[0] == RETURN and attr not in out:
                        if self.returns_sparse(self.callee_ref(where, cls, kind[1])):
                            out.append(attr)
        self._memo[key] = out
        return out

    def sparse_params(self, path: str, qual: str, depth: int = 0) -> list[str]:
        """The parameters of ``qual`` that every call of the project passing them hands a
        sparse tensor (calls that leave one out aside): a ``self`` attribute set to one, a
        parameter of the caller handed one, what a function returning one gives (also
        ``Fn.apply(...)`` of an autograd Function, for its ``forward``). Not one some call
        hands a dense tensor: torch_geometric's ``edge_index`` takes either, and most of its
        calls pass an index."""
        key = ("sparse params", path, qual)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = []  # (a cycle hands nothing more)
        out: list[str] = []
        if self._makes_sparse() and depth <= _MAX_SPARSE_HOPS:
            from torchlint.analysis.callsites import argument

            sites = self._call_sites()
            calls = [*sites.sites.get((path, qual), ()), *sites.applied.get((path, qual), ())]
            if calls:
                rec, sig = sites.bound(path, qual)
                for name in [*sig, *rec.get("kwonly", ())]:
                    passed = [(a, where) for where, pos, kw in calls if (a := argument(sig, pos, kw, name)) is not None]
                    if passed and all(self._sparse_kind(a, where, depth) for a, where in passed):
                        out.append(name)
        self._memo[key] = out
        return out

    def _sparse_kind(self, kind: Any, where: tuple[str, str | None, str | None], depth: int) -> bool:
        path, owner, qual = where
        if isinstance(kind, list) and kind and kind[0] == "|":
            return any(self._sparse_kind(k, where, depth) for k in kind[1:])
        if isinstance(kind, list) and len(kind) == 2 and kind[0] == RETURN and isinstance(kind[1], str):
            return self.returns_sparse(self.callee_ref(path, owner, kind[1]))
        if not isinstance(kind, str):
            return False
        if kind.startswith("s:") and "." not in kind and owner is not None:
            return kind[2:] in self.sparse_attrs(path, owner)
        if kind.startswith("p:") and qual is not None:
            return kind[2:] in self.sparse_params(path, qual, depth + 1)
        return False

    def sparse_facts(self, path: str, quals: list[str]) -> dict[str, Any]:
        """``sparse``: for the file's regions ``quals``, the parameters handed a sparse tensor,
        and for their classes the attributes set to one (a use of either in compiled code
        splits the graph: dynamo cannot wrap a sparse tensor)."""
        if not self._makes_sparse():
            return {}
        params = {q: found for q in sorted(quals) if (found := self.sparse_params(path, q))}
        owners = sorted({q.split(".")[0] for q in quals if "." in q} & set(self.summary(path).get("classes", {})))
        attrs = {c: found for c in owners if (found := self.sparse_attrs(path, c))}
        out: dict[str, Any] = {}
        if params:
            out["params"] = params
        if attrs:
            out["attrs"] = attrs
        return {"sparse": out} if out else {}

    def _call_sites(self) -> Any:
        """Every call in the project (:class:`~torchlint.analysis.callsites.CallSites`), made once."""
        from torchlint.analysis.callsites import CallSites

        sites = self._memo.get(("callsites",))
        if sites is None:
            self._memo[("building",)] = True  # (what a return holds is not asked of it meanwhile)
            try:
                sites = self._memo[("callsites",)] = CallSites(self, self.checked)
            finally:
                del self._memo[("building",)]
        return sites

    def _descendants(self, path: str, owner: str) -> list[tuple[str, str]]:
        """Every project class below ``owner`` (breadth first, each once)."""
        key = ("descendants", path, owner)
        if key not in self._memo:
            index = self.subclasses()
            seen = {(path, owner)}
            out: list[tuple[str, str]] = []
            todo = deque(index.get((path, owner), ()))
            while todo:
                sub = todo.popleft()
                if sub not in seen:
                    seen.add(sub)
                    out.append(sub)
                    todo.extend(index.get(sub, ()))
            self._memo[key] = out
        return self._memo[key]

    def raised(self, path: str, name: str) -> bool:
        """Whether ``name`` is an exception class (made to be raised, where dynamo stops: its
        ``__init__`` is not followed)."""
        return any(n.endswith(_RAISED) for n in self._written_names(path, name))

    def _constructor(self, cls: Ref | None) -> Iterator[Ref]:
        """The ``__init__`` that making an instance of ``cls`` runs: dynamo traces it, a
        module's too (made in a region, its constructor runs in the graph), not an exception's."""
        if cls is not None and cls[0] == "cls" and not self.raised(cls[1], cls[2]):
            found = self.find_method(cls[1], cls[2], "__init__")
            if found is not None and not self.raised(found[1], found[2].split(".")[0]):
                yield found

    def made_classes(self, path: str, callee: str, owner: str | None = None, sites: Any = None) -> list[Ref]:
        """The project classes ``callee`` makes: a class (``Cls``), each class a table holds
        (``TABLE[]``, for ``TABLE[key](...)``), each class a factory function returns
        (``select()``, for ``cls = select(method); cls(...)``), or each class ``self.<attr>``
        holds as an object in a method of ``owner`` (``self.struct(semiring)``; ``sites``: the
        project's calls, while they are being gathered)."""
        if callee.startswith("self."):
            held = self.kept_class_objects(path, owner, callee[5:], sites) if owner is not None else []
            return [("cls", cls[0], cls[1]) for cls in held]
        if callee.endswith("[]"):
            classes = [self.resolve_dotted(f, n) for f, n in self._table(path, callee[:-2])]
        elif callee.endswith("()"):  # the classes a factory function returns
            factory = self.resolve_dotted(path, callee[:-2])
            rec = self.record(factory) if factory is not None and factory[0] == "fn" else None
            picked = (rec or {}).get("returns_classes", ())
            classes = [self.resolve_dotted(factory[1], n) for n in picked] if factory is not None else []
        else:
            classes = [self.resolve_dotted(path, callee)]
        return [cls for cls in classes if cls is not None and cls[0] == "cls"]

    def _method_and_init(
        self, path: str, callee: str, method: str, owner: str | None = None
    ) -> Iterator[tuple[tuple[str, str], tuple[str, str] | None]]:
        """For each class ``callee`` makes (a plain class or a module, not an exception): the
        ``method`` it runs and its ``__init__`` (None: none in the project)."""
        for cls in self.made_classes(path, callee, owner):
            run = self.find_method(cls[1], cls[2], method) if not self.raised(cls[1], cls[2]) else None
            if run is not None:
                init = self.find_method(cls[1], cls[2], "__init__")
                yield (run[1], run[2]), (init[1], init[2]) if init is not None else None

    def _attr_makers(self, path: str, cls: str, attr: str) -> list[tuple[str, str]]:
        """(file, callee as written there) for each call that ``self.<attr> = Callee(...)`` in
        a method of ``cls`` or of its bases in the project makes the attribute from. Where
        none does, a method of a base class reads what its subclasses set (``self`` is an
        instance of one of them): the calls in the methods of each subclass in the project."""
        out = self._own_attr_makers(path, cls, attr, self._lineage_records(path, cls))
        if not out:
            for where, sub in self._descendants(path, cls):
                records = ((where, rec) for rec in self._class(where, sub).get("methods", {}).values())
                out.extend(m for m in self._own_attr_makers(where, sub, attr, records) if m not in out)
        return out

    def _own_attr_makers(
        self, path: str, cls: str, attr: str, records: Iterable[tuple[str, dict[str, Any]]]
    ) -> list[tuple[str, str]]:
        out = []
        for where, rec in records:
            for callee in rec.get("sets", {}).get(attr, ()):
                head, _, method = callee.partition(".")
                if head == "self" and method and "." not in method:  # `self.q = self.build()`
                    out.extend(self._built_by(path, cls, method))
                elif callee:
                    out.append((where, callee))
        return out

    def _built_by(self, path: str, cls: str, method: str) -> list[tuple[str, str]]:
        """(file, class as written there) of what ``self.<method>()`` of ``cls`` returns,
        where it returns an instance it makes (``return Head(dim)``)."""
        found = self.find_method(path, cls, method)
        if found is None:
            return []
        ret = (self.record(found) or {}).get("ret")
        if isinstance(ret, list) and len(ret) == 2 and ret[0] == RETURN and isinstance(ret[1], str):
            return [] if ret[1].startswith("self.") else [(found[1], ret[1])]
        return []

    def _attr_binds(self, path: str, cls: str, attr: str) -> list[str]:
        """The methods of ``self`` that ``self.<attr> = self.<method>`` in a method of ``cls`` or
        of its bases in the project sets the attribute to."""
        found: list[str] = []
        for _, rec in self._lineage_records(path, cls):
            found.extend(m for m in rec.get("binds", {}).get(attr, ()) if m not in found)
        return found

    def _attr_refs(self, path: str, cls: str, attr: str) -> Iterator[Ref]:
        """The project's functions ``self.<attr> = f`` in a method of ``cls`` or of its bases
        sets the attribute to (``self.search_fn = native_search``): what calling it runs, an
        autograd Function's forward for ``Spike.apply``."""
        for where, rec in self._lineage_records(path, cls):
            for name in rec.get("refs", {}).get(attr, ()):
                if name.endswith(".apply"):
                    fn = self.resolve_dotted(where, name[: -len(".apply")])
                    if fn is not None and fn[0] == "cls" and self.is_autograd_function(fn[1], fn[2]):
                        found = self.find_method(fn[1], fn[2], "forward")
                        if found is not None:
                            yield found
                    continue
                target = self.resolve_dotted(where, name)
                if target is not None and target[0] in ("fn", "meth"):
                    yield target

    def _called(self, path: str, callee: str) -> Iterator[Ref]:
        """What calling an instance of each class ``callee`` makes runs: its ``__call__``, or
        a module's own ``forward`` (one inherited from a base is shared by every subclass, and
        its ``self.m()`` calls would reach each subclass's override: a root of its own, unless
        it is a loss's in an eval pass)."""
        for cls in self.made_classes(path, callee):
            found = self.find_method(cls[1], cls[2], "__call__")
            if found is None and self.is_module(cls[1], cls[2]):
                found = self.find_method(cls[1], cls[2], "forward")
                if found is not None and (found[1], found[2]) != (cls[1], f"{cls[2]}.forward"):
                    found = None
            if found is not None:
                yield found

    def _made(self, path: str, callee: str, method: str, owner: str | None = None) -> Iterator[Ref]:
        """The ``method`` of each class ``callee`` makes (:meth:`made_classes`)."""
        for cls in self.made_classes(path, callee, owner):
            found = self.find_method(cls[1], cls[2], method)
            if found is not None:
                yield found

    def _table(self, path: str, name: str, depth: int = 0) -> list[tuple[str, str]]:
        """(file, name as written there) for each name the module-level table ``name`` holds."""
        held = self.summary(path).get("tables", {}).get(name)
        if held is not None:
            return [(path, n) for n in held]
        target = self._import_map(path).get(name)
        if target is None or name == "*" or depth > _MAX_DEPTH:
            return []
        mod, imported = target
        f = self.map.find(mod) if imported else None
        return self._table(f, imported, depth + 1) if f is not None and imported else []

    def _edges(self, ref: Ref, rec: dict[str, Any]) -> Iterable[Ref]:
        path = ref[1]
        owner = ref[2].split(".")[0] if ref[0] == "meth" else None
        made, named, held = rec.get("made", {}), rec.get("named", {}), rec.get("held", {})
        kept = _kept(rec)
        for name, guard in rec.get("calls", ()):
            if not self._runs(path, guard):
                continue
            head, _, rest = name.partition(".")
            target: Ref | None = None
            if name.endswith("[]") and not rest:  # `INIT_METHODS[self.init](x)`: each it holds
                for where, entry in self._table(path, name[:-2]):
                    found = self.resolve_dotted(where, entry)
                    if found is not None and found[0] in ("fn", "meth"):
                        yield found
                    yield from self._constructor(found)
                continue
            if head in named:  # `solve = odeint_adjoint if adjoint else odeint; solve(...)`
                for value in named[head]:
                    target = self.resolve_dotted(path, f"{value}.{rest}" if rest else value)
                    if target is not None and target[0] in ("fn", "meth"):
                        yield target
                continue
            if head in made and rest and "." not in rest:
                for callee in made[head]:
                    yield from self._made(path, callee, rest, owner)
                continue
            if head in held and rest and "." not in rest and owner is not None:
                # `q = self.q; q.step(x)`, `for block in self.blocks: block.step(x)`
                for attr in held[head]:
                    for where, callee in self._attr_makers(path, owner, attr):
                        yield from self._made(where, callee, rest)
                continue
            if head in held and not rest and owner is not None:
                # `sample = self.ddim_sample if fast else self.p_sample_loop; sample(x)`: a bound
                # method, or what calling the object `self.<attr>` holds runs
                for attr in held[head]:
                    bound = self.find_method(path, owner, attr) if not attr.endswith("[]") else None
                    if bound is not None:
                        yield bound
                        continue
                    for where, callee in self._attr_makers(path, owner, attr):
                        yield from self._called(where, callee)
                continue
            if head in ("self", "cls") and owner is not None:
                if rest and "." not in rest:
                    target = self.find_method(path, owner, rest)
                    if target is None:  # `self.table(x)`: a plain object's `__call__`, a module's forward
                        for where, callee in self._attr_makers(path, owner, rest):
                            yield from self._called(where, callee)
                        # `self.criterion(x)` of a module the constructor was handed
                        for where, handed in self.handed_classes(path, owner, rest):
                            yield from self._called(where, handed)
                        for method in self._attr_binds(path, owner, rest):  # `self.loss_method = self.f`
                            bound = self.find_method(path, owner, method)
                            if bound is not None:
                                yield bound
                        yield from self._attr_refs(path, owner, rest)  # `self.search_fn = native_search`
                        for kept_path, kept_cls in self.kept_class_objects(path, owner, rest):
                            yield from self._constructor(("cls", kept_path, kept_cls))  # `self.struct(x)`
                elif rest.count(".") == 1:  # `self.table.lookup(x)`: what `self.table` was made as
                    attr, method = rest.split(".")
                    for where, callee in self._attr_makers(path, owner, attr):
                        yield from self._made(where, callee, method)
                    continue
            elif head == "super()" and owner is not None:
                if rest and "." not in rest:
                    target = self.find_method(path, owner, rest, skip_self=True)
            elif name.endswith(".apply"):  # `Scale.apply(x)` of an autograd Function: its forward
                fn = self.resolve_dotted(path, name[: -len(".apply")])
                if fn is not None and fn[0] == "cls" and self.is_autograd_function(fn[1], fn[2]):
                    target = self.find_method(fn[1], fn[2], "forward")
            else:
                target = self.resolve_dotted(path, name)
            if target is not None and target[0] in ("fn", "meth"):
                yield target
            if not (name in kept and target is not None and target[0] == "cls" and self.is_module(*target[1:])):
                yield from self._constructor(target)
        for method, makers, *_ in rec.get("on_made", ()):  # `Solver(...).run(x)` (made and called)
            for maker in makers:
                yield from self._made(path, maker, method, owner)
        for makers in made.values():  # `solver = SOLVERS[method](...)`: each class the table holds
            for maker in makers:
                if maker.endswith("[]"):
                    for cls in self.made_classes(path, maker):
                        yield from self._constructor(cls)
        for obj, attr, guard in rec.get("reads_on", ()):  # `s = Stats(x); s.total`, `s[0]`, `s(x)`
            if not self._runs(path, guard):
                continue
            if obj in made:
                yield from self._made_read_runs(path, owner, made[obj], attr)
                continue
            if obj.startswith("self.") and owner is not None:
                makers = self._attr_makers(path, owner, obj[5:])
            elif obj in held and owner is not None:  # `q = self.q; q.peak`
                makers = [m for attr in held[obj] for m in self._attr_makers(path, owner, attr)]
            else:
                continue
            for where, callee in makers:
                for cls in self.made_classes(where, callee):
                    yield from self._read_runs(cls[1], cls[2], attr)
        if owner is not None:
            for attr in rec.get("attrs", ()):
                target = self.find_method(path, owner, attr)
                if target is not None:
                    trec = self.record(target) or {}
                    if any(d.endswith(_PROPERTY) for d in trec.get("decorators", ())):
                        yield target
        for _, dref in self._decorator_refs(path, rec):
            yield from self._wrappers(dref)

    def _read_runs(self, path: str, cls: str, attr: str) -> Iterator[Ref]:
        """What reading ``obj.<attr>`` of an instance of ``cls`` runs: the method of that name
        when it is a property, or the special method itself (``__getitem__``, ``__len__``; not
        a module's ``__call__``: its forward is a region of its own)."""
        target = self.find_method(path, cls, attr)
        if target is None or (attr == "__call__" and self.is_module(path, cls)):
            return
        if attr in _RUN_BY_SYNTAX or any(
            d.endswith(_PROPERTY) for d in (self.record(target) or {}).get("decorators", ())
        ):
            yield target

    def _made_read_runs(self, path: str, owner: str | None, makers: Iterable[str], attr: str) -> Iterator[Ref]:
        """What reading ``obj.<attr>`` runs where ``obj`` is a local ``makers`` made (a class,
        or a class ``self.<x>`` of ``owner`` holds as an object)."""
        for callee in makers:
            for cls in self.made_classes(path, callee, owner):
                yield from self._read_runs(cls[1], cls[2], attr)

    def _wrappers(self, dref: Ref | None, depth: int = 0) -> Iterable[Ref]:
        """What runs at each call of a function a project decorator decorates: the wrapper the
        decorator returns; the decorator's other nested functions (`auto_docstring`'s, which
        edit a docstring) run once, when the decorated function is defined. A decorator with
        no wrapper of its own that calls project decorators (`cached` returning
        `_cached(method)` or `_cached_ignore_args(method)`) puts one of theirs in place."""
        if dref is None or dref[0] != "fn" or depth > 2:
            return
        drec = self.record(dref) or {}
        wrappers = drec.get("wrappers", ())
        for nested in wrappers:
            yield ("nested", dref[1], f"{dref[2]}.{nested}")
        if wrappers or drec.get("nested"):
            return
        for name, _guard in drec.get("calls", ()):
            yield from self._wrappers(self.resolve_dotted(dref[1], name), depth + 1)

    # -- per-file facts ----------------------------------------------------------------
    def facts(self, path: str, names: dict[str, Any] | None = None) -> dict[str, Any]:
        """What checking ``path`` needs to know from the rest of the project: the regions
        other files make of its functions, and what its names are (``names``: those facts
        from an earlier analysis, for a file none of whose reads changed)."""
        out = self.region_facts(path)
        out.update(self.name_facts(path) if names is None else names)
        return out

    def _local_callers(self, path: str, reached: dict[str, str]) -> dict[str, list[str]]:
        """The functions of ``path`` that only regions of ``path`` call, with those callers:
        the file's own walk sees every compiled call of them (what ``self`` is known to hold
        there: :func:`torchlint.analysis.regions.entry_decisions`)."""
        if self._callers is None:
            self._callers = {}
            for spath, by_qual in self.edges.items():
                for squal, targets in by_qual.items():
                    for target in targets:
                        self._callers.setdefault((target[1], target[2]), set()).add((spath, squal))
        out = {}
        for qual in reached:
            callers = self._callers.get((path, qual), set())
            if callers and all(cpath == path for cpath, _ in callers):
                out[qual] = sorted(q for _, q in callers)
        return out

    def region_facts(self, path: str) -> dict[str, Any]:
        """``roots`` and ``reached``: the file's functions that are regions."""
        self.analyze()
        path = os.path.abspath(path)
        out: dict[str, Any] = {}
        roots, reached = [], {}
        if self._by_path is None:
            self._by_path = {}
            for (rpath, qual), root in self.regions.items():
                self._by_path.setdefault(rpath, []).append((qual, root))
        for qual, (root_path, root_qual) in self._by_path.get(path, ()):
            if (root_path, root_qual) == (path, qual):
                roots.append(qual)
            else:
                reached[qual] = root_qual if root_path == path else f"{root_qual} in {self._display(root_path)}"
        if roots:
            out["roots"] = sorted(roots)
        if reached:
            out["reached"] = dict(sorted(reached.items()))
            local = self._local_callers(path, reached)
            if local:
                out["callers"] = local
        if not self.loss_roots:  # (the engine takes every module's forward for a root)
            classes = self.summary(path).get("classes", {})
            losses = [c for c in classes if self.is_module(path, c) and self.is_loss(path, c)]
            if losses:
                out["loss_classes"] = sorted(losses)
        params = self.param_facts(path)
        if params:
            out["params"] = params
        computed = self.computed_facts(path)
        if computed:
            out["computed"] = computed
        unpassed = self.unpassed_facts(path)
        if unpassed:
            out["unpassed"] = unpassed
        handed = self.handed_facts(path)
        if handed:
            out["handed"] = handed
        kept = self.kept_constant_facts(path)
        if kept:
            out["kept"] = kept
        passed = self.passed_tensor_facts(path)
        if passed:
            out["passed_tensors"] = passed
        if roots or reached:
            dynamic = self.dynamic_names(path)
            if dynamic:
                out["dynamic_ops"] = dynamic
            calls = self.installed_calls(path)
            if calls:
                out["installed_calls"] = calls
        out.update(self.call_facts(path, [q for q, _ in self._by_path.get(path, ())]))
        out.update(self.sparse_facts(path, [q for q, _ in self._by_path.get(path, ())]))
        uninit = self.uninit_facts().get(path)
        if uninit:
            out["uninit"] = uninit
        return out

    def _made_runs(self) -> frozenset[tuple[str, str]]:
        """The property getters the regions read on objects they made (``Dist(x).mean``,
        ``d = Dist(x); d.mean``). Dynamo gives up the reading frame at a break inside one and
        compiles no frame of the getter: a made object's call there is no site of its own
        (one inside a made object's method is, where that method's frame runs compiled)."""
        found = self._memo.get(("made runs",))
        if found is None:
            runs: set[tuple[str, str]] = set()
            for path, qual in list(self.regions):
                rec = self.record(("meth" if "." in qual else "fn", path, qual)) or {}
                owner = qual.split(".")[0] if "." in qual else None
                made = rec.get("made", {})
                for obj, attr, guard in rec.get("reads_on", ()):
                    if obj not in made or attr.startswith("__") or not self._runs(path, guard):
                        continue
                    runs.update((r[1], r[2]) for r in self._made_read_runs(path, owner, made[obj], attr))
            found = self._memo[("made runs",)] = frozenset(runs)
        return cast("frozenset[tuple[str, str]]", found)

    def call_facts(self, path: str, quals: list[str]) -> dict[str, Any]:
        """For the file's regions ``quals``: ``calls``, the functions each calls (to tell which
        of them break, through what they call), and ``made_calls``, the calls of a method on
        an object the region made (``solver = Solver(...); solver.integrate(t)``), each
        ``[qualname, line, column, end line, end column, method, [[method, constructor] for
        each class it may be]]`` (a function as ``[path, qualname]``, the constructor None
        where the class has none): where the method breaks, dynamo cannot rebuild the object
        to resume inside it, and the caller breaks there too (:mod:`torchlint.static.rebuild`)."""
        calls: dict[str, list[list[str]]] = {}
        made_calls: list[list[Any]] = []
        on_made = self._made_runs()
        for qual in sorted(quals):
            targets = {(t[1], t[2]) for t in self.edges.get(path, {}).get(qual, ()) if t[0] != "nested"}
            if targets:
                calls[qual] = [list(t) for t in sorted(targets)]
            rec = self.record(("meth" if "." in qual else "fn", path, qual)) or {}
            owner = qual.split(".")[0] if "." in qual else None
            start = self.summary(path).get("lines", {}).get(qual)
            if (path, qual) in on_made:
                start = None  # (a made object's property: the break shows inside only)
            for method, makers, line, col, end_line, end_col, guard in rec.get("on_made", ()) if start else ():
                if not self._runs(path, guard):
                    continue
                line, end_line = start + line, start + end_line  # (counted from the `def`)
                pairs = sorted(
                    {pair for maker in makers for pair in self._method_and_init(path, maker, method, owner)},
                    key=lambda pair: (pair[0], pair[1] or ("", "")),
                )
                if pairs:
                    runs = [[list(run), list(init) if init else None] for run, init in pairs]
                    made_calls.append([qual, line, col, end_line, end_col, method, runs])
        out: dict[str, Any] = {}
        if calls:
            out["calls"] = calls
        if made_calls:
            out["made_calls"] = made_calls
        return out

    def uninit_facts(self) -> dict[str, list[list[Any]]]:
        """``uninit``, by file: the ``super().__init__(...)`` calls in the constructors of the
        modules a region makes, each ``[qualname, line, column, end line, end column, causes]``.

        Where the region runs the constructor outside its graph, dynamo compiles that
        constructor as a frame of its own and stops at the call, the module not yet initialized
        (GB0119), in each constructor up the module's bases. It does so when the constructor
        breaks inside (a cause ``["init", constructor]``), or when the region is given up
        whole because a method it calls on an object it made breaks (TL021's calls: a cause
        ``["run", method, constructor]`` for each, see :mod:`torchlint.static.rebuild`)."""
        found = self._memo.get(("uninit",))
        if found is not None:
            return cast("dict[str, list[list[Any]]]", found)
        self.analyze()
        sites: dict[tuple[str, str], list[Any]] = {}
        for path, qual in self.regions:
            rec = self.record(("meth" if "." in qual else "fn", path, qual)) or {}
            owner = qual.split(".")[0] if "." in qual else None
            made = []
            kept = _kept(rec)
            for name, guard in rec.get("calls", ()):
                cls = self.resolve_dotted(path, name) if self._runs(path, guard) and name not in kept else None
                if cls is not None and cls[0] == "cls" and self.is_module(cls[1], cls[2]):
                    made.append(cls)
            if not made:
                continue
            runs = [
                ["run", list(run), list(init) if init else None]
                for method, makers, *_, guard in rec.get("on_made", ())
                if self._runs(path, guard)
                for maker in makers
                for run, init in self._method_and_init(path, maker, method, owner)
            ]
            runs += self._loop_causes(("meth" if "." in qual else "fn", path, qual), rec)
            for cls in made:
                init = self.find_method(cls[1], cls[2], "__init__")
                causes = [["init", [init[1], init[2]], None], *runs] if init is not None else runs
                self._uninit_sites(init, causes, sites)
        out: dict[str, list[list[Any]]] = {}
        for (path, qual), (line, col, end_line, end_col, causes) in sorted(sites.items()):
            out.setdefault(path, []).append([qual, line, col, end_line, end_col, causes])
        self._memo[("uninit",)] = out
        return out

    def _uninit_sites(self, init: Ref | None, causes: list[Any], sites: dict[tuple[str, str], list[Any]]) -> None:
        """The ``super().__init__()`` sites of constructor ``init``, up its bases, each with
        ``causes``; and those of the modules each of these constructors makes (`self.norm =
        Norm(...)`): a constructor dynamo compiles on its own runs them outside its graph too."""
        todo = [init]
        seen: set[tuple[str, str]] = set()
        while todo:
            init = todo.pop()
            while init is not None and (init[1], init[2]) not in seen:
                seen.add((init[1], init[2]))
                owner = init[2].split(".")[0]
                irec = self.record(init) or {}
                start = self.summary(init[1]).get("lines", {}).get(init[2])
                span = irec.get("super_init")
                if not self.is_module(init[1], owner) or not span or not start:
                    break
                where = [start + span[0], span[1], start + span[2], span[3]]
                site = sites.setdefault((init[1], init[2]), [*where, []])
                site[4].extend(c for c in causes if c not in site[4])
                for name, guard in irec.get("calls", ()):
                    cls = self.resolve_dotted(init[1], name) if self._runs(init[1], guard) else None
                    if cls is not None and cls[0] == "cls" and self.is_module(cls[1], cls[2]):
                        todo.append(self.find_method(cls[1], cls[2], "__init__"))
                init = self.find_method(init[1], owner, "__init__", skip_self=True)

    def _loop_causes(self, ref: Ref, rec: dict[str, Any]) -> list[list[Any]]:
        """``[["loop", function, lines, callees]]`` for a region function with loops: where it
        breaks inside one (a finding at ``lines``, or a call there of a function in
        ``callees`` that breaks), dynamo gives up the frame ("graph break in loop") and the
        function runs in Python, constructors and all (:mod:`torchlint.static.rebuild`)."""
        start = self.summary(ref[1]).get("lines", {}).get(ref[2])
        if not rec.get("loops") or not start:
            return []
        in_loops = set(rec.get("loop_calls", ()))
        picked = {**rec, "calls": [c for c in rec.get("calls", ()) if c[0] in in_loops]}
        callees = sorted({(t[1], t[2]) for t in self._edges(ref, picked) if t[0] in ("fn", "meth")})
        lines = [[start + a, start + b] for a, b in rec["loops"]]
        return [["loop", [ref[1], ref[2]], lines, [list(c) for c in callees]]]

    def handed_facts(self, path: str) -> dict[str, dict[str, Any]]:
        """``handed``: for the file's classes, ``"Cls.attr"`` -> what every project class
        whose instance the constructor is handed and keeps in ``self.<attr>`` is
        (:meth:`handed_classes`): ``module`` when each is a module, with what calling it gives
        (``"tensor"``, or ``"tensor-dict"``), ``tensors`` the buffers and parameters each makes
        (``self.arn.permutation``). Read from every project file, as :meth:`param_facts` are."""
        out: dict[str, dict[str, Any]] = {}
        for cname in self.summary(path).get("classes", {}):
            attrs = {a for where, cls in self._lineage(path, cname) for a in self._init_fields(where, cls)}
            for attr in sorted(attrs):
                classes = self.handed_classes(path, cname, attr)
                if not classes:
                    continue
                common = set.intersection(*(set(self.class_tensors(*c)) for c in classes))
                fact: dict[str, Any] = {"tensors": sorted(common)} if common else {}
                if all(self.is_module(*c) for c in classes):
                    # what calling it gives: a dict of tensors where each forward says so
                    # (`-> Dict[str, Tensor]`), else a tensor, as for a submodule made here
                    forwards = [self.find_method(*c, "forward") for c in classes]
                    gives = {(self.record(f) or {}).get("returns") if f else None for f in forwards}
                    fact["module"] = "tensor-dict" if gives == {"tensor-dict"} else "tensor"
                if fact:
                    out[f"{cname}.{attr}"] = fact
        return out

    def _init_fields(self, path: str, cls: str) -> dict[str, Any]:
        """What ``cls``'s own ``__init__`` sets each ``self.<attr>`` to (its kinds)."""
        return self._class(path, cls).get("methods", {}).get("__init__", {}).get("fields", {})

    def param_facts(self, path: str) -> dict[str, dict[str, str]]:
        """``params``: for the file's functions and methods, what their un-annotated
        parameters hold by every call in the project (:mod:`torchlint.analysis.callsites`).
        Read from every project file, so a caller's edit changes the callee's facts."""
        sites = self._call_sites()
        out = {}
        for qual in self._quals(path):
            kinds = sites.param_kinds(path, qual)
            if kinds:
                out[qual] = dict(sorted(kinds.items()))
        return out

    def computed_facts(self, path: str) -> dict[str, list[str]]:
        """``computed``: for the file's functions and methods, the parameters some call in the
        project hands a tensor the caller computed
        (:meth:`~torchlint.analysis.callsites.CallSites.computed_params`)."""
        sites = self._call_sites()
        out = {}
        for qual in self._quals(path):
            names = sites.computed_params(path, qual)
            if names:
                out[qual] = sorted(names)
        return out

    def unpassed_facts(self, path: str) -> dict[str, dict[str, str]]:
        """``unpassed``: for the file's functions and methods, the parameters that hold their
        ``None`` / ``True`` / ``False`` default because no call in the project passes them
        (:meth:`~torchlint.analysis.callsites.CallSites.unpassed`): a test of one is decided
        (``if safe_merge:`` in a method every caller calls without it)."""
        sites = self._call_sites()
        out = {}
        for qual in self._quals(path):
            found = sites.unpassed(path, qual)
            if found:
                out[qual] = found
        return out

    def kept_constant_facts(self, path: str) -> dict[str, dict[str, str]]:
        """``kept``: for the file's classes, ``attr -> "None" | "True" | "False"``: what
        ``self.<attr>`` holds in every instance. The constructor sets it from a parameter that
        holds its constant default (every construction of the class, and of its subclasses
        through ``super().__init__``, leaves it out: :meth:`unpassed_facts`), and nothing else
        sets it: no other method of the class, of its bases or of its subclasses, and no
        ``obj.<attr> = v`` anywhere in the project. snntorch's ``if not self.reset_delay:``
        in a neuron every model builds with the default is decided."""
        sites = self._call_sites()
        out: dict[str, dict[str, str]] = {}
        for cname, cls in self.summary(path).get("classes", {}).items():
            init = cls.get("methods", {}).get("__init__")
            if not init or not init.get("fields"):
                continue
            unpassed = sites.unpassed(path, f"{cname}.__init__")
            kept = {
                attr: unpassed[kind[2:]]
                for attr, kind in init["fields"].items()
                if isinstance(kind, str) and kind.startswith("p:") and kind[2:] in unpassed
            }
            if not kept:
                continue
            family = [(path, cname), *sites.ancestors(path, cname), *self._descendants(path, cname)]
            for fpath, fname in family:
                methods = self.summary(fpath).get("classes", {}).get(fname, {}).get("methods", {})
                for mname, rec in methods.items():
                    if (fpath, fname, mname) != (path, cname, "__init__"):
                        for attr in rec.get("fields", ()):
                            kept.pop(attr, None)
            stored = self._stored_on_others()
            kept = {attr: value for attr, value in kept.items() if attr not in stored}
            if kept:
                out[cname] = kept
        return out

    def passed_tensor_facts(self, path: str) -> dict[str, list[str]]:
        """``passed_tensors``: for the file's classes, the attributes a constructor of the class
        or of a project base keeps as it is handed (``self.lengths = lengths``) where the
        project's calls hand that parameter a tensor (:meth:`CallSites.passed_tensor`), and no
        other method of the class sets: a distribution object made in compiled code with the
        model's tensors reads them back in its properties (``if self.lengths.max() > n:``)."""
        sites = self._call_sites()
        out: dict[str, list[str]] = {}
        for cname in self.summary(path).get("classes", {}):
            held: set[str] = set()
            set_elsewhere: set[str] = set()
            for where, cls in self._lineage(path, cname):
                methods = self._class(where, cls).get("methods", {})
                for attr, kind in (methods.get("__init__") or {}).get("fields", {}).items():
                    if (
                        isinstance(kind, str)
                        and kind.startswith("p:")
                        and sites.passed_tensor(where, f"{cls}.__init__", kind[2:])
                    ):
                        held.add(attr)
                for mname, rec in methods.items():
                    if mname != "__init__":
                        set_elsewhere.update(rec.get("fields", ()))
            kept = sorted(held - set_elsewhere)
            if kept:
                out[cname] = kept
        return out

    def _stored_on_others(self) -> frozenset[str]:
        """Attribute names the project's code sets on an object other than ``self``
        (``net.lif.reset_delay = False``), in any function or at a module's top level."""
        found = self._memo.get(("ostores",))
        if found is None:
            names: set[str] = set()
            for summary in list(self._summaries.values()):
                if not summary:
                    continue
                names.update(summary.get("top", {}).get("ostores", ()))
                for rec in summary.get("functions", {}).values():
                    names.update(rec.get("ostores", ()))
                for cls in summary.get("classes", {}).values():
                    for rec in cls.get("methods", {}).values():
                        names.update(rec.get("ostores", ()))
            found = self._memo[("ostores",)] = frozenset(names)
        return cast("frozenset[str]", found)

    def _quals(self, path: str) -> list[str]:
        """The file's functions and methods, qualified."""
        s = self.summary(path)
        quals = list(s.get("functions", ()))
        for cname, cls in s.get("classes", {}).items():
            quals.extend(f"{cname}.{m}" for m in cls.get("methods", ()))
        return quals

    def name_facts(self, path: str) -> dict[str, Any]:
        """What the file's names are: aliases, loggers, module classes, autograd Functions,
        tensor returns."""
        path = os.path.abspath(path)
        s = self.summary(path)
        out: dict[str, Any] = {}
        aliases: dict[str, str] = {}
        loggers: list[str] = []
        module_classes: set[str] = set()
        autograd_functions: set[str] = set()
        returns: dict[str, str] = {}
        class_tensors: dict[str, list[str]] = {}

        def note(local: str, ref: Ref | None, prefix: str | None) -> None:
            """Facts about a name the file can use: ``prefix`` is what the file resolves it to."""
            if ref is None:
                return
            if self.is_compiling(ref) and ref[0] != "ext":
                aliases[local] = "torch.compiler.is_compiling"
                return
            if self.is_disable(ref) and ref[0] != "ext":
                aliases[local] = "torch.compiler.disable"
                return
            if self.is_logger(ref):
                loggers.append(local)
                return
            q = prefix
            if ref[0] == "ext" and q and not q.startswith("torch.") and self._module_class(ref[1]):
                module_classes.add(q)  # an installed package's module class
            elif ref[0] == "cls" and self.is_module(ref[1], ref[2]):
                module_classes.add(q)  # type: ignore[arg-type]
                held = self.class_tensors(ref[1], ref[2])
                if held and q:
                    class_tensors[q] = held
            elif ref[0] == "cls" and q and self.is_autograd_function(ref[1], ref[2]):
                autograd_functions.add(q)
            elif ref[0] == "fn" and self.return_kind(ref) == "t":
                returns[q] = "tensor"  # type: ignore[index]
            elif ref[0] == "fn" and (self.record(ref) or {}).get("returns") == "tensors":
                returns[q] = "tensors"  # type: ignore[index]  # (a tuple of them: each one unpacked)
            elif ref[0] == "bound" and self._is_tensor_binding(ref):
                returns["=" + q] = "tensor"  # type: ignore[operator]

        table = self._import_map(path)
        bindings = [(local, target) for local, target in table.items() if local != "*"]
        for local, (mod, imported) in bindings:
            ref = self._binding(mod, imported, 0)
            if ref is None:
                continue
            q = self.qualname(ref) if ref[0] != "bound" else f"{self.map.module_of(ref[1])}.{ref[2]}"
            if ref[0] == "ext":
                natural = f"{mod}.{imported}" if imported else mod
                if q != natural or mod.startswith(".") or self._relative(path, local):
                    aliases[local] = q  # type: ignore[assignment]
            elif q:
                aliases[local] = q
            note(local, ref, q)
            if ref[0] == "mod" and q:
                ms = self.summary(ref[1])
                for name in list(ms.get("classes", ())) + list(ms.get("functions", ())) + list(ms.get("bound", ())):
                    note(f"{local}.{name}", self.resolve_name(ref[1], name), f"{q}.{name}")
        for star in cast("list[str]", table.get("*", ())):  # `from m import *`: the modules
            f = self.map.find(star)
            if f is None:
                continue
            ms = self.summary(f)
            for name in list(ms.get("classes", ())) + list(ms.get("functions", ())) + list(ms.get("bound", ())):
                ref = self.resolve_name(f, name)
                if ref is not None:
                    q = self.qualname(ref) if ref[0] != "bound" else f"{self.map.module_of(ref[1])}.{name}"
                    aliases[name] = q  # type: ignore[assignment]
                    note(name, ref, q)
        # the file's own names
        local_modules = sorted(c for c in s.get("classes", ()) if self.is_module(path, c))
        for name in local_modules:  # `self.child = Child()` of a class of this file
            held = self.class_tensors(path, name)
            if held:
                class_tensors[name] = held
        for name in s.get("bound", ()):
            ref = ("bound", path, name)
            if self.is_logger(ref):
                loggers.append(name)
        for name in s.get("classes", {}):
            returns.update(self.held_returns(path, name))
        for name, rec in s.get("functions", {}).items():
            if self.return_kind(("fn", path, name)) == "t":
                returns[name] = "tensor"
            elif rec.get("returns") == "tensors":
                returns[name] = "tensors"
            if self.is_compiling(("fn", path, name)):  # kornia's own `is_compiling()` wrapper
                aliases[name] = "torch.compiler.is_compiling"
            elif self.is_disable(("fn", path, name)):
                aliases[name] = "torch.compiler.disable"
        if aliases:
            out["aliases"] = dict(sorted(aliases.items()))
        if loggers:
            out["loggers"] = sorted(set(loggers))
        if module_classes:
            out["module_classes"] = sorted(module_classes)
        if local_modules:
            out["module_local"] = local_modules
        if autograd_functions:
            out["autograd_functions"] = sorted(autograd_functions)
        if returns:
            out["returns"] = dict(sorted(returns.items()))
        if class_tensors:
            out["class_tensors"] = dict(sorted(class_tensors.items()))
        return out

    def class_tensors(self, path: str, name: str, _seen: set | None = None) -> list[str]:
        """The attributes a project class's ``__init__`` (or a project base's) makes tensors
        (memoized: every file importing the class, and every field read, asks)."""
        key = ("tensors", path, name)
        if _seen is None and key in self._memo:
            return self._memo[key]
        seen = _seen or set()
        if (path, name) in seen or len(seen) > _MAX_DEPTH:
            return []
        seen.add((path, name))
        held = set(self._class(path, name).get("tensors", ()))
        for base in self.bases(path, name):
            if base[0] == "cls":
                held.update(self.class_tensors(base[1], base[2], seen))
        out = sorted(held)
        if _seen is None:
            self._memo[key] = out
        return out

    def _relative(self, path: str, local: str) -> bool:
        key = ("relative", path)
        names = self._memo.get(key)
        if names is None:  # once per file, not once per name (a scan per name is quadratic)
            names = self._memo[key] = {
                name for name, _mod, _imp, level in self.summary(path).get("imports", ()) if level
            }
        return local in names

    def _is_tensor_binding(self, ref: Ref) -> bool:
        callee = self.summary(ref[1]).get("bound", {}).get(ref[2])
        if callee is None:
            return False
        r = self.resolve_dotted(ref[1], callee)
        return (
            r is not None and r[0] == "ext" and r[1].startswith("torch.") and r[1].rsplit(".", 1)[-1] in _TENSOR_MAKERS
        )
