"""What un-annotated parameters hold, told from every call that reaches them in the project.

A root's parameters are taken for tensors (the compiled model's inputs), and so are those of
a function reached from another file (its callers are not read where it is checked). Many
are not: ``forward(self, i, j)`` of a block always called as ``self.block(x, x.shape[0], n)``,
a helper whose ``embed_dim`` is an int at every caller. Over the files' summaries (the calls
each function makes, with a coarse kind per argument: :mod:`torchlint.analysis.sites`), a
parameter is

* an ``"int"`` when every call passes an int (a literal, a length, a size read from a shape,
  an int parameter of the caller, arithmetic of those);
* a ``"value"`` when every call passes some Python value that is no tensor;
* a ``"tensor"`` when some call passes a tensor (evidence, not a guess);

and nothing is said otherwise. Only where every call is seen: a function or class also read
as a value (``ATTENTION = {"eager": Attn}``, ``map(f, xs)``), a module constructed other than
as ``self.<attr> = Cls(...)`` (a model the user builds, a layer in a ``ModuleList``), a
``self.<attr>`` holding it used other than called, a class with subclasses, a decorated
function, a method called on some other value (``obj.helper(x)``), or a function with no
caller in the project keeps what the rules assume today. A public function that callers
outside the project call with tensors, but the project only with ints, is read as taking
ints: what the project shows is all there is to go on.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Protocol, cast

from torchlint.analysis.sites import (
    CLASS_OBJECT,
    ITEM,
    MADE_PREFIX,
    META_NAME,
    RETURN,
    UNLISTED_HEADS,
    common_methods,
    evaluate,
    join,
)

if TYPE_CHECKING:
    from torchlint.analysis.summary import Summary

#: a function, method, class or module of the project (as :mod:`torchlint.analysis.project` names them)
Ref = tuple[str, ...]


class Project(Protocol):
    """What this module reads of :class:`torchlint.analysis.project.Project` (which builds it:
    a protocol here keeps the import one way)."""

    def summary(self, path: str) -> Summary: ...

    def bases(self, path: str, name: str) -> list[Ref]: ...

    def resolve_name(self, path: str, name: str, depth: int = 0) -> Ref | None: ...

    def resolve_dotted(self, path: str, dotted: str, depth: int = 0) -> Ref | None: ...

    #: (path, qualname) of each region -> (path, qualname) of the root that reaches it
    regions: dict[tuple[str, str], tuple[str, str]]

    def find_method(
        self, path: str, cls: str, method: str, skip_self: bool = False, _seen: set | None = None
    ) -> Ref | None: ...

    def record(self, ref: Ref) -> dict[str, Any] | None: ...

    def call_kind(self, path: str, owner: str | None, name: str, through_params: bool = False) -> str: ...

    def subclasses(self) -> dict[tuple[str, str], list[tuple[str, str]]]: ...

    def class_tensors(self, path: str, name: str, _seen: set | None = None) -> list[str]: ...

    def made_classes(self, path: str, callee: str, owner: str | None = None, sites: Any = None) -> list[Ref]: ...

    def handed_classes(self, path: str, owner: str, attr: str, sites: Any = None) -> list[tuple[str, str]]: ...

    def kept_class_objects(self, path: str, owner: str, attr: str, sites: Any = None) -> list[tuple[str, str]]: ...

    def is_module(self, path: str, name: str) -> bool: ...

    def is_autograd_function(self, path: str, name: str) -> bool: ...

    def callee_ref(self, path: str, owner: str | None, name: str) -> Ref | None: ...


#: decorators that leave a function's parameters as its callers pass them
#: decorators that keep the function's signature: its calls still bind its parameters
_PLAIN_DECORATORS = (
    "staticmethod",
    "classmethod",
    "autocast",
    "custom_fwd",
    "custom_bwd",
    "no_grad",
    "enable_grad",
    "inference_mode",
    "beartype",
    "typechecked",
    "jaxtyped",
)
_NAMES = {"i": "int", "n": "value", "t": "tensor"}
#: how many callers up an object passed on from parameter to parameter is followed
_MAX_HOPS = 4
#: where a call's kinds are read: (path, owning class or None, qualname or None)
Where = tuple[str, "str | None", "str | None"]


def argument(sig: list[str], pos: list, kw: dict, name: str) -> Any:
    """What a call passes as parameter ``name`` (by name, or at its place before any
    ``*args``), None where it does not say."""
    arg = kw.get(name)
    at = sig.index(name) if name in sig else -1
    if arg is None and 0 <= at < len(pos) and "*" not in pos[: at + 1]:
        arg = pos[at]
    return arg


class CallSites:
    """Every call in the project's summaries, by the function or method it reaches."""

    def __init__(self, project: Project, paths: list[str]) -> None:
        self.p = project
        self.sites: dict[tuple[str, str], list[tuple[Where, list, dict]]] = {}
        self.escaped: set[tuple[str, str]] = set()  # functions, methods, classes read as values
        self.loose: set[tuple[str, str]] = set()  # classes made other than as `self.<attr> = Cls(...)`
        self.other_calls: set[str] = set()  # methods called on values not followed
        #: attr -> (class, (owner path, owner)) for each `self.<attr> = Cls(...)`
        self.held: dict[str, list[tuple[tuple[str, str], tuple[str, str]]]] = {}
        self.held_by: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        self.escaped_attrs: set[tuple[str, str, str]] = set()
        #: `Fn.apply(...)` of each autograd Function of the project: its `forward`'s calls,
        #: which bind `ctx` first (read for the sparse values handed in, not for kinds)
        self.applied: dict[tuple[str, str], list[tuple[Where, list, dict]]] = {}
        self.children = project.subclasses()
        self._memo: dict[Any, Any] = {}
        records: list[tuple[Where, dict[str, Any]]] = []
        for path in paths:
            s = self.p.summary(path)
            for name, rec in s.get("functions", {}).items():
                records.append(((path, None, name), rec))
            for cname, cls in s.get("classes", {}).items():
                for mname, rec in cls.get("methods", {}).items():
                    records.append(((path, cname, f"{cname}.{mname}"), rec))
            if s.get("top"):
                records.append(((path, None, None), s["top"]))
        for where, rec in records:  # first where instances are kept, then every call
            self._reads(where, rec)
        #: `self.<attr>.<method>(...)` and `self.<attr>(...)` calls, resolved once every
        #: constructor call is in: (where, owner, attr, method or "", positional, keywords)
        self._on_kept: list[tuple[Where, str, str, str, list, dict]] = []
        #: `p.method(...)` and `p(...)` calls on a parameter `p` of the calling function,
        #: resolved through what its callers pass: (where, p, method or "", positional, keywords)
        self._on_param: list[tuple[Where, str, str, list, dict]] = []
        for where, rec in records:
            for entry in rec.get("sites", ()):
                callee, pos = entry[0], entry[1]
                kw = entry[2] if len(entry) > 2 else {}
                self._site(where, callee, pos, kw, entry[3] if len(entry) > 3 else None)
        common = common_methods()
        for where, owner, attr, method, pos, kw in self._on_kept:
            classes = list(self.p.handed_classes(where[0], owner, attr, self))
            if method:
                classes.extend(self._held_classes(where[0], owner, attr))
            targets = []
            for cls in classes:
                name = method or ("forward" if self.p.is_module(*cls) else "__call__")
                targets.append(self.p.find_method(cls[0], cls[1], name))
            if method:  # `self.semiring.sum(x)` of a class kept as an object
                for cls in self.p.kept_class_objects(where[0], owner, attr, self):
                    targets.append(self.class_method(cls, method))
            for target in targets:
                if target is not None:
                    self._add(target, where, pos, kw)
            if method and method not in common and (not targets or None in targets):
                self.other_calls.add(method)  # (on what else, not known)
        for where, param, method, pos, kw in self._on_param:
            targets = []
            for cls in sorted(self.param_classes(where[0], cast(str, where[2]), param)):
                name = method or ("forward" if self.p.is_module(*cls) else "__call__")
                targets.append(self.p.find_method(cls[0], cls[1], name))
            if method:  # `semiring.sum(x)` of a class passed as an object
                for cls in sorted(self.param_class_objects(where[0], cast(str, where[2]), param)):
                    targets.append(self.class_method(cls, method))
            for target in targets:
                if target is not None:
                    self._add(target, where, pos, kw)
            if method and (not targets or None in targets):
                self.other_calls.add(method)

    def _reads(self, where: Where, rec: dict[str, Any]) -> None:
        path, owner, _ = where
        self.other_calls.update(rec.get("ocalls", ()))
        for name in rec.get("loads", ()):
            ref = self.p.resolve_name(path, name)
            if ref is not None and ref[0] in ("fn", "cls"):
                self.escaped.add((ref[1], ref[2]))
        if owner is None:
            return
        for attr in rec.get("esc", ()):
            self.escaped_attrs.add((path, owner, attr))
            self.escaped.add((path, f"{owner}.{attr}"))  # `cb = self.helper`
        for entry in rec.get("sites", ()):
            if len(entry) > 3:
                ref = self.p.resolve_dotted(path, entry[0])
                if ref is not None and ref[0] == "cls":
                    self.held.setdefault(entry[3], []).append(((ref[1], ref[2]), (path, owner)))
                    self.held_by.setdefault((ref[1], ref[2]), []).append((path, owner, entry[3]))

    def _add(self, ref: Ref, where: Where, pos: list, kw: dict) -> None:
        self.sites.setdefault((ref[1], ref[2]), []).append((where, pos, kw))

    def _site(self, where: Where, callee: str, pos: list, kw: dict, attr: str | None) -> None:
        path, owner, _ = where
        if callee.startswith(MADE_PREFIX):  # a method of an instance the caller made
            maker, _, method = callee[len(MADE_PREFIX) :].rpartition(".")
            targets = [self.p.find_method(c[1], c[2], method) for c in self.p.made_classes(path, maker, owner, self)]
            for target in targets:
                if target is not None:
                    self._add(target, where, pos, kw)
            if not targets or None in targets:
                self.other_calls.add(method)
            return
        if callee.endswith("()"):  # an instance of each class a factory function returns
            for cls in self.p.made_classes(path, callee):
                init = self.p.find_method(cls[1], cls[2], "__init__")
                if init is not None:
                    self._add(init, where, pos, kw)
                self.loose.add((cls[1], cls[2]))
            return
        head, _, rest = callee.partition(".")
        if head in ("self", "cls") and owner is not None:
            if not rest or rest.count(".") > 1:
                return
            if "." in rest:  # `self.table.lookup(x)`: a method of an object kept
                attr, _, method = rest.partition(".")
                self._on_kept.append((where, owner, attr, method, pos, kw))
                return
            for cls_path, cls_name in self._held_classes(path, owner, rest):
                fwd = self.p.find_method(cls_path, cls_name, "forward")
                if fwd is not None:
                    self._add(fwd, where, pos, kw)
            target = self.p.find_method(path, owner, rest)
            if target is not None:
                self._add(target, where, pos, kw)
            else:  # `self.bm(t0, t1)`: an object kept, called
                self._on_kept.append((where, owner, rest, "", pos, kw))
            for sub_path, sub in self._descendants(path, owner):  # an override it may reach
                if rest in self.p.summary(sub_path).get("classes", {}).get(sub, {}).get("methods", {}):
                    self._add(("meth", sub_path, f"{sub}.{rest}"), where, pos, kw)
            return
        if head == "super()" and owner is not None:
            if rest and "." not in rest:
                target = self.p.find_method(path, owner, rest, skip_self=True)
                if target is not None:
                    self._add(target, where, pos, kw)
            return
        if "." not in rest and head in self._params(where):  # `term.vf(t, y)`: what callers pass
            self._on_param.append((where, head, rest, pos, kw))
            return
        if callee.endswith(".apply"):  # `Spike.apply(x)` of an autograd Function: its forward
            fn = self.p.resolve_dotted(path, callee[: -len(".apply")])
            if fn is not None and fn[0] == "cls" and self.p.is_autograd_function(fn[1], fn[2]):
                forward = self.p.find_method(fn[1], fn[2], "forward")
                if forward is not None:
                    self.applied.setdefault((forward[1], forward[2]), []).append((where, ["?", *pos], kw))
        ref = self.p.resolve_dotted(path, callee)
        if ref is None or ref[0] in ("ext", "mod", "bound"):
            if rest and ref is None:
                self.other_calls.add(callee.rsplit(".", 1)[-1])
            return
        if ref[0] == "fn":
            self._add(ref, where, pos, kw)
        elif ref[0] == "cls":
            init = self.p.find_method(ref[1], ref[2], "__init__")
            if init is not None:
                self._add(init, where, pos, kw)
            if attr is None or owner is None:
                self.loose.add((ref[1], ref[2]))  # an instance made here goes where it is not followed
        else:  # `Cls.method(obj, ...)`: bound as the caller wrote it
            self.escaped.add((ref[1], ref[2]))

    def _params(self, where: Where) -> set[str]:
        """The parameters of the function ``where`` (``self`` and ``cls`` aside)."""
        path, owner, qual = where
        if qual is None:
            return set()
        rec = self.p.record(("meth", path, qual) if owner is not None else ("fn", path, qual)) or {}
        return (set(rec.get("sig", ())) | set(rec.get("kwonly", ()))) - {"self", "cls"}

    def _held_classes(self, path: str, owner: str, attr: str) -> list[tuple[str, str]]:
        """The project classes whose instance ``owner`` (or a base of it) keeps in ``self.<attr>``."""
        holders = self.held.get(attr)
        if not holders:
            return []
        mine = {(path, owner)} | self.ancestors(path, owner)
        return [cls for cls, holder in holders if holder in mine]

    def ancestors(self, path: str, cls: str) -> set[tuple[str, str]]:
        """The project classes ``cls`` derives from, up its bases (memoized)."""
        key = ("anc", path, cls)
        if key not in self._memo:
            out: set[tuple[str, str]] = set()
            todo = [(path, cls)]
            while todo and len(out) < 64:
                p, c = todo.pop()
                for base in self.p.bases(p, c):
                    if base[0] == "cls" and (base[1], base[2]) not in out:
                        out.add((base[1], base[2]))
                        todo.append((base[1], base[2]))
            self._memo[key] = out
        return self._memo[key]

    def _descendants(self, path: str, cls: str) -> set[tuple[str, str]]:
        out: set[tuple[str, str]] = set()
        todo = [(path, cls)]
        while todo and len(out) < 256:
            for child in self.children.get(todo.pop(), ()):
                if child not in out:
                    out.add(child)
                    todo.append(child)
        return out

    # -- whether every call is seen ------------------------------------------------------
    def all_seen(self, path: str, qual: str) -> bool:
        key = ("seen", path, qual)
        if key not in self._memo:
            self._memo[key] = "y" if self._all_seen(path, qual) else ""
        return bool(self._memo[key])

    def _all_seen(self, path: str, qual: str) -> bool:
        if (path, qual) in self.escaped or not self.sites.get((path, qual)):
            return False
        cls, _, method = qual.rpartition(".")
        if (method or qual) in UNLISTED_HEADS:
            return False
        rec = self.p.record(("meth", path, qual) if cls else ("fn", path, qual)) or {}
        if any(d.split(".")[-1] not in _PLAIN_DECORATORS for d in rec.get("decorators", ())):
            return False
        if not cls:
            return True
        family = [(path, cls), *self._descendants(path, cls)]
        if any(c in self.escaped for c in family):
            return False  # the class is read as a value: anything may be done with it
        if method == "__init__":
            return True  # (every `Cls(...)` is a site, a subclass's too)
        if method == "forward":
            for c in family:
                if c in self.loose:
                    return False
                for hpath, howner, attr in self.held_by.get(c, ()):
                    owners = {(hpath, howner)} | self.ancestors(hpath, howner) | self._descendants(hpath, howner)
                    if any((o[0], o[1], attr) in self.escaped_attrs for o in owners):
                        return False
            return True
        return not (method in self.other_calls or method in common_methods() or method.startswith("__"))

    # -- kinds ---------------------------------------------------------------------------
    def param_kinds(self, path: str, qual: str) -> dict[str, str]:
        """``param -> "int" | "value" | "tensor"`` for the parameters of the function or
        method ``qual`` of ``path`` that every call seen agrees on."""
        if not self.sites.get((path, qual)):
            return {}
        seen = self.all_seen(path, qual)
        rec = self.p.record(("meth", path, qual) if "." in qual else ("fn", path, qual)) or {}
        out = {}
        annotated = set(rec.get("annotated", ()))
        for name in list(rec.get("sig", ())) + list(rec.get("kwonly", ())):
            kind = self.param_kind(path, qual, name)
            if kind == "t" or (seen and name not in annotated and kind in _NAMES):
                # a tensor passed is evidence, whatever the annotation says (`timestep: int`
                # handed a 0-d tensor by a loop over `scheduler.timesteps`) and whether or not
                # every call is seen; what else the calls pass counts only when all are
                out[name] = _NAMES[kind]
        return out

    def passed_tensor(self, path: str, qual: str, name: str, depth: int = 0) -> bool:
        """Whether the calls of ``qual`` hand its parameter ``name`` a tensor: one call passes
        one (a tensor, a compiled root's input: a parameter of it with no default, or a
        parameter of the caller so handed one in turn) and none passes a number. What a
        helper returns counts only where it returns a tensor whatever it is passed (a
        ``default(val, d)`` handed a flag somewhere and a tensor elsewhere says nothing)."""
        key = ("passed", path, qual, name)
        found = self._memo.get(key)
        if found is not None:
            return found == "y"
        self._memo[key] = ""  # (a cycle hands nothing)
        rec, sig = self.bound(path, qual)
        out = False
        for where, pos, kw in self.sites.get((path, qual), ()):
            arg = argument(sig, pos, kw, name)
            if arg is None:
                continue
            kind = self._strict_kind(arg, where, depth)
            if kind in ("i", "n"):
                out = False
                break
            out = out or kind == "t"
        self._memo[key] = "y" if out else ""
        return out

    def _strict_kind(self, arg: Any, where: Where, depth: int) -> str:
        """A site's kind as :meth:`passed_tensor` reads it: parameters through their own
        callers, helpers' returns by what they return whatever they are passed."""
        path, owner, qual = where

        def atom(name: str) -> str:
            if name.startswith("p:"):
                if self._root_input(where, name):
                    return "t"
                if qual is None or depth >= _MAX_HOPS:
                    return "?"
                return "t" if self.passed_tensor(path, qual, name[2:], depth + 1) else "?"
            return self.field_kind(path, owner, name[2:])

        return evaluate(arg, atom, lambda callee: self.p.call_kind(path, owner, callee, False))

    def _root_input(self, where: Where, arg: str) -> bool:
        """``arg`` is ``p:NAME`` of a compiled root's parameter that has no default and no
        annotation (``forward(self, x, lengths)``), taken for a tensor as the root's are."""
        path, _, qual = where
        if not arg.startswith("p:") or qual is None or self.p.regions.get((path, qual)) != (path, qual):
            return False
        rec, sig = self.bound(path, qual)
        name = arg[2:]
        return name in sig and name not in rec.get("defaults", {}) and name not in rec.get("annotated", ())

    def param_kind(self, path: str, qual: str, name: str) -> str:
        key = ("param", path, qual, name)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = ""  # (a cycle says nothing more)
        out = self._param_kind(path, qual, name)
        if out != "t" and not self.all_seen(path, qual):
            out = "?"  # (some call passes a tensor: that holds with calls unseen too)
        self._memo[key] = out
        return out

    def bound(self, path: str, qual: str) -> tuple[dict[str, Any], list[str]]:
        """The record of ``qual`` and its positional parameters as a call fills them (a
        method's ``self`` or ``cls`` bound already, a static method's not)."""
        rec = self.p.record(("meth", path, qual) if "." in qual else ("fn", path, qual)) or {}
        sig = list(rec.get("sig", ()))
        if "." in qual and "staticmethod" not in [d.split(".")[-1] for d in rec.get("decorators", ())] and sig:
            sig = sig[1:]
        return rec, sig

    def _param_kind(self, path: str, qual: str, name: str) -> str:
        rec, sig = self.bound(path, qual)
        defaults = rec.get("defaults", {})
        kinds = []
        for where, pos, kw in self.sites.get((path, qual), ()):
            if name in kw:
                kinds.append(self.resolve(kw[name], where))
                continue
            at = sig.index(name) if name in sig else -1
            if "*" in pos[: at + 1] if at >= 0 else "*" in pos:
                kinds.append("?")
            elif 0 <= at < len(pos):
                kinds.append(self.resolve(pos[at], where))
            elif "**" in kw:
                kinds.append("?")
            else:
                kinds.append(defaults.get(name, "?"))
        return join(kinds) or "?"

    def unpassed(self, path: str, qual: str) -> dict[str, str]:
        """``param -> "None" | "True" | "False"``: the parameters of ``qual`` whose default is
        that constant and that every call leaves out or hands on from a parameter of its own
        that holds the same (``self.merge(safe_merge=safe_merge)``), where every call is seen
        (none hands on ``*args`` or ``**kwargs``): in the function they hold their default."""
        key = ("unpassed", path, qual)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = {}  # (a cycle of calls hands nothing known)
        sites = self.sites.get((path, qual))
        out: dict[str, str] = {}
        if sites and self.all_seen(path, qual):
            rec, sig = self.bound(path, qual)
            for name, value in rec.get("consts", {}).items():
                if all(self._leaves(where, pos, kw, sig, name, value) for where, pos, kw in sites):
                    out[name] = value
        self._memo[key] = out
        return out

    def _leaves(self, where: Where, pos: list, kw: dict, sig: list[str], name: str, value: str) -> bool:
        """Whether a call leaves parameter ``name`` at ``value``: it does not pass it, or passes
        on a parameter of the caller that holds that value."""
        if "**" in kw or "*" in pos:
            return False
        arg = argument(sig, pos, kw, name)
        if arg is None:
            return True
        if isinstance(arg, str) and arg.startswith("p:") and where[2] is not None:
            return self.unpassed(where[0], where[2]).get(arg[2:]) == value
        return False

    def computed_params(self, path: str, qual: str) -> list[str]:
        """The parameters of ``qual`` that some call hands a tensor its caller computed: not
        one of the caller's own parameters passed on as it came (what the compiled function
        was given stays a graph input down the calls; a 0-d one indexes without a break)."""
        key = ("computed", path, qual)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = []  # (a cycle adds nothing)
        rec, sig = self.bound(path, qual)
        out = []
        for name in sig + list(rec.get("kwonly", ())):
            for where, pos, kw in self.sites.get((path, qual), ()):
                arg = argument(sig, pos, kw, name)
                if arg is None:
                    continue
                if isinstance(arg, str) and arg.startswith("p:"):
                    if where[2] is not None and arg[2:] in self.computed_params(where[0], where[2]):
                        out.append(name)
                        break
                elif self.resolve(arg, where) == "t":
                    out.append(name)
                    break
        self._memo[key] = out
        return out

    def param_classes(self, path: str, qual: str, name: str, depth: int = 0) -> set[tuple[str, str]]:
        """The project classes whose instances the calls seen pass as parameter ``name`` of
        ``qual``: ``Cls(...)`` itself, a local made by one, or a parameter of the caller that
        receives one (followed up through its own callers, a few levels)."""
        key = ("classes", path, qual, name)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = set()  # (a cycle adds nothing)
        _, sig = self.bound(path, qual)
        out: set[tuple[str, str]] = set()
        for where, pos, kw in self.sites.get((path, qual), ()):
            arg = argument(sig, pos, kw, name)
            if arg is not None:
                out |= self._classes_of(arg, where, depth)
            elif "**" in kw and where[2] is not None and depth < _MAX_HOPS:
                # `super().__init__(sde=sde, **kwargs)`: what the caller's callers pass by name
                out |= self.param_classes(where[0], where[2], name, depth + 1)
        self._memo[key] = out
        return out

    def param_class_objects(self, path: str, qual: str, name: str, depth: int = 0) -> set[tuple[str, str]]:
        """The project classes passed as objects, not instances, for parameter ``name`` of
        ``qual``: by the calls seen (``Chain(MaxSemiring)``, or a parameter of the caller that
        receives one, followed up through its own callers), and its default (``semiring=
        MaxSemiring``) where a call leaves it out or not every call is seen."""
        key = ("class objects", path, qual, name)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = set()  # (a cycle adds nothing)
        rec, sig = self.bound(path, qual)
        sites = self.sites.get((path, qual), ())
        left_out = not sites or not self.all_seen(path, qual)
        out: set[tuple[str, str]] = set()
        for where, pos, kw in sites:
            arg = argument(sig, pos, kw, name)
            if arg is not None:
                out |= self._class_objects_of(arg, where, depth)
            elif "**" in kw and where[2] is not None and depth < _MAX_HOPS:
                out |= self.param_class_objects(where[0], where[2], name, depth + 1)
            elif "*" not in pos:
                left_out = True
        default = rec.get("class_defaults", {}).get(name)
        if left_out and default is not None:
            ref = self.p.resolve_dotted(path, default)
            if ref is not None and ref[0] == "cls":
                out.add((ref[1], ref[2]))
        self._memo[key] = out
        return out

    def _class_objects_of(self, kind: Any, where: Where, depth: int) -> set[tuple[str, str]]:
        path, owner, qual = where
        if isinstance(kind, list) and kind and kind[0] == "|":
            return {c for k in kind[1:] for c in self._class_objects_of(k, where, depth)}
        if not isinstance(kind, str):
            return set()
        if kind.startswith(CLASS_OBJECT):
            ref = self.p.resolve_dotted(path, kind[len(CLASS_OBJECT) :])
            return {(ref[1], ref[2])} if ref is not None and ref[0] == "cls" else set()
        if kind.startswith("p:") and qual is not None and depth < _MAX_HOPS:
            return self.param_class_objects(path, qual, kind[2:], depth + 1)
        if kind.startswith("s:") and "." not in kind and owner is not None and depth < _MAX_HOPS:
            return set(self.p.kept_class_objects(path, owner, kind[2:], self))
        return set()

    def class_method(self, cls: tuple[str, str], method: str) -> Ref | None:
        """The static or class method ``method`` of ``cls`` (or of a base), called on the
        class itself; None where it is a plain method (called on the class, its first
        argument would be ``self``: what the call binds is not what its kinds say)."""
        found = self.p.find_method(cls[0], cls[1], method)
        rec = self.p.record(found) if found is not None else None
        if rec is None or not {"staticmethod", "classmethod"} & {
            d.rsplit(".", 1)[-1] for d in rec.get("decorators", ())
        }:
            return None
        return found

    def _classes_of(self, kind: Any, where: Where, depth: int) -> set[tuple[str, str]]:
        path, _, qual = where
        if isinstance(kind, list) and len(kind) == 2 and kind[0] == RETURN:
            ref = self.p.callee_ref(path, where[1], kind[1])
            if ref is not None and ref[0] in ("fn", "meth") and depth < _MAX_HOPS:
                # `X = self.control(coeffs)`: the instances the function returns
                ret = (self.p.record(ref) or {}).get("ret")
                owner = ref[2].split(".")[0] if ref[0] == "meth" else None
                return self._classes_of(ret, (ref[1], owner, ref[2]), depth + 1) if ret is not None else set()
            return {(ref[1], ref[2])} if ref is not None and ref[0] == "cls" else set()
        if isinstance(kind, list) and kind and kind[0] == "|":
            return {c for k in kind[1:] for c in self._classes_of(k, where, depth)}
        if isinstance(kind, list) and len(kind) == 3 and kind[0] == "[]" and depth < _MAX_HOPS:
            return self._item_classes(kind[1], kind[2], where, depth)
        if isinstance(kind, str) and kind.startswith("p:") and qual is not None and depth < _MAX_HOPS:
            return self.param_classes(path, qual, kind[2:], depth + 1)
        if isinstance(kind, str) and kind.startswith("s:") and "." not in kind and where[1] is not None:
            # `Layer(ball=self.ball)`: what the caller keeps there, made or handed in
            owner, attr = where[1], kind[2:]
            return set(self._held_classes(path, owner, attr)) | set(self.p.handed_classes(path, owner, attr, self))
        return set()

    def _item_classes(self, made: Any, item: str, where: Where, depth: int) -> set[tuple[str, str]]:
        """The classes of item ``#i`` of the tuple a project function returns
        (``sde, y0, ts, bm = check_contract(...)``: what it returns as its fourth item)."""
        if not (isinstance(made, list) and len(made) == 2 and made[0] == RETURN and isinstance(made[1], str)):
            return set()
        ref = self.p.callee_ref(where[0], where[1], made[1])
        if ref is None or ref[0] not in ("fn", "meth"):
            return set()
        ret = (self.p.record(ref) or {}).get("ret")
        at = int(item[len(ITEM) :])
        if not (isinstance(ret, list) and ret and ret[0] == "()" and at + 1 < len(ret)):
            return set()
        owner = ref[2].split(".")[0] if ref[0] == "meth" else None
        return self._classes_of(ret[at + 1], (ref[1], owner, ref[2]), depth + 1)

    def resolve(self, kind: Any, where: Where) -> str:
        """A site's kind with the caller's parameters and ``self`` attributes resolved."""
        path, owner, _ = where
        atom = functools.partial(self.atom_kind, where)
        return evaluate(kind, atom, lambda callee: self.p.call_kind(path, owner, callee, True))

    def atom_kind(self, where: Where, name: str) -> str:
        """What a ``"p:NAME"`` (a parameter, as every call passes it) or ``"s:ATTR"`` atom
        holds in the function ``where``."""
        path, owner, qual = where
        if name.startswith("p:"):
            return self.param_kind(path, qual, name[2:]) if qual is not None else "?"
        return self.field_kind(path, owner, name[2:])

    def field_kind(self, path: str, owner: str | None, attr: str) -> str:
        """What ``self.<attr>`` holds: what every method of the class, its bases and its
        subclasses sets it to (nothing set, or set from what cannot be told: a size, shape,
        dtype or device by its name, else cannot tell)."""
        if owner is None:
            return "?"
        key = ("field", path, owner, attr)
        found = self._memo.get(key)
        if found is not None:
            return found
        if "." in attr:  # `self.scheduler.timesteps`: as each class kept there sets it
            held, _, inner = attr.partition(".")
            self._memo[key] = ""
            kept = set(self.p.handed_classes(path, owner, held, self)) | set(self._held_classes(path, owner, held))
            out = join([self.field_kind(cpath, cname, inner) for cpath, cname in sorted(kept)]) or "?"
            self._memo[key] = out
            return out
        if attr in self.p.class_tensors(path, owner):  # a buffer or parameter `__init__` made
            self._memo[key] = "t"
            return "t"
        self._memo[key] = ""
        kinds = []
        classes = [(path, owner), *self.ancestors(path, owner), *self._descendants(path, owner)]
        for cpath, cname in classes:
            for mname, rec in self.p.summary(cpath).get("classes", {}).get(cname, {}).get("methods", {}).items():
                sites = rec.get("sites", ())
                if any(e[0] in ("self.register_buffer", "self.register_parameter") for e in sites):
                    kinds.append("?")  # (set by name)
                if attr in rec.get("fields", {}):
                    kinds.append(self.resolve(rec["fields"][attr], (cpath, cname, f"{cname}.{mname}")))
        out = join(kinds) if kinds else "?"
        if out in ("?", "") and META_NAME.search(attr):
            out = "n"  # `self.patch_size`, `self.dtype` set from what no call shows: metadata
        self._memo[key] = out or "?"
        return self._memo[key]
