"""The one base class every rule derives from, and the registry that finds them.

A rule is a small class: a code and ``visit_<Node>`` / ``leave_<Node>`` methods; its
kebab-case name, one-line message that says what to do, suggestion, the PyTorch GB codes it
corresponds to and its fix's safety are read from its page (:mod:`torchlint.pages`). The
engine calls the methods while it walks a compiled region. Rules never
print: they call :meth:`Rule.report` and the engine collects the findings.

:class:`FileContext` is what a rule sees of the file being checked: its imports, the
tensor-ness of expressions in the current scope, the compiled region being walked. The
engine (:mod:`torchlint.static.engine`) fills it in as it walks; this module is all a rule
author needs to read.

Subclasses register themselves; ``torchlint.rules.all_rules()`` imports every module of the
package, so adding a rule is adding one module and its page in ``docs/rules/``.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, ClassVar

import libcst as cst

from torchlint.analysis.regions import ModuleIndex, Region, resolve_callee
from torchlint.analysis.tensors import TensorScope, register_functions, register_records
from torchlint.pages import RuleFacts, rule_facts

REGISTRY: dict[str, type[Rule]] = {}
# The class attributes set from the rule's page.
_FROM_PAGE = tuple(f.name for f in dataclasses.fields(RuleFacts))

# Class decorators that replace the class's `forward` at run time with an implementation the
# config picks (transformers' `@use_experts_implementation` swaps a per-expert Python loop for
# batched kernels by default): the code written in the class is not what is compiled, so
# nothing in it is reported.
DISPATCHED_CLASS_DECORATORS = frozenset({"use_experts_implementation"})


def _dispatched(owner) -> bool:
    for dec in getattr(getattr(owner, "node", None), "decorators", ()):
        target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        name = target.attr.value if isinstance(target, cst.Attribute) else getattr(target, "value", None)
        if name in DISPATCHED_CLASS_DECORATORS:
            return True
    return False


class Rule:
    """A rule module declares the code and the logic; its words come from its page
    (``docs/rules/TLnnn-name.md``, see :mod:`torchlint.pages`), set on the class when it is
    defined, so a message, a GB code or a fix's safety has one home."""

    code: ClassVar[str]
    # From the page:
    #: kebab-case, the page's file name
    name: ClassVar[str]
    #: one line for `torchlint rules`
    summary: ClassVar[str]
    #: the finding's message: what is wrong and what to do
    message: ClassVar[str]
    #: the fix in words
    suggestion: ClassVar[str]
    #: graph-break codes of the installed torch's registry this rule predicts
    gb_codes: ClassVar[tuple[str, ...]] = ()
    #: "safe", "unsafe" or None when the rule has no automatic fix
    fix_applicability: ClassVar[str | None] = None
    #: "error" for graph breaks, "warning" for performance warnings (TL1xx)
    severity: ClassVar[str] = "error"

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is None:
            return  # an abstract helper base
        if code in REGISTRY and REGISTRY[code] is not cls:
            raise RuntimeError(f"rule code {code} is used by both {REGISTRY[code].__name__} and {cls.__name__}")
        declared = sorted(set(cls.__dict__) & set(_FROM_PAGE))
        if declared:
            raise RuntimeError(
                f"rule {code} ({cls.__name__}) declares {', '.join(declared)}: "
                "a rule's words are in its page, docs/rules/"
            )
        facts = rule_facts(code)
        if facts is None:
            raise RuntimeError(f"rule {code} ({cls.__name__}) has no page docs/rules/{code}-<name>.md")
        for attr in _FROM_PAGE:
            setattr(cls, attr, getattr(facts, attr))
        REGISTRY[code] = cls

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def report(self, node: cst.CSTNode, message: str | None = None, suggestion: str | None = None) -> None:
        region = getattr(self.ctx, "region", None)
        if region is not None and region.owner is not None and _dispatched(region.owner):
            return
        self.ctx.report(self, node, message or self.message, suggestion or self.suggestion)

    # Helpers most rules need.
    def resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.ctx.resolve(expr)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.ctx.is_tensor(expr)

    def kept_submodule(self, func: cst.BaseExpression) -> tuple[str, str] | None:
        """For a call of ``self.<attr>`` in a method whose class made ``self.<attr>`` in
        ``__init__`` (``nn.GRU(...)``, ``torch.jit.script(...)``, ``torch.compiler.disable(...)``):
        (attr, the callee that made it), else None."""
        region = self.ctx.region
        owner = region.owner if region is not None else None
        if (
            owner is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and func.attr.value in owner.submodules
        ):
            for arm in reversed(self.ctx.switched):  # under `if self.kind == "lstm":`
                if func.attr.value in arm:
                    return func.attr.value, arm[func.attr.value]
            return func.attr.value, owner.submodules[func.attr.value]
        return None


class FileContext:
    """What rules see of the file being checked: names, tensor-ness, the current region.

    ``on_report(rule, node)``, when set, is told of every report as it is made, while the
    scope is still the one the rule saw (the fixes plan their edits there)."""

    def __init__(
        self,
        path: str,
        module: cst.Module,
        index: ModuleIndex,
        regions: dict[cst.FunctionDef, Region],
        on_report: Callable[[Rule, cst.CSTNode], None] | None = None,
    ):
        self.path = path
        self.module = module
        self.index = index
        self.imports = index.imports
        register_functions(index.imports, index.functions)  # calls of same-file helpers are followed
        register_records(index.imports, module)  # and the fields of its dataclasses and namedtuples
        self.regions = regions
        self.region: Region | None = None
        self.scope: TensorScope | None = None
        #: the submodules the ``if`` arms being walked decide (``if self.kind == "lstm":``:
        #: ``self.net`` is what ``__init__`` made under ``kind == "lstm"``), innermost last
        self.switched: list[dict[str, str]] = []
        self.on_report = on_report
        #: (rule, node, message, suggestion, region) of each report, in walk order
        self.reports: list[tuple] = []

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        if self.scope is not None:
            return self.scope.resolve(expr)
        return self.imports.resolve(expr)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.scope is not None and self.scope.is_tensor(expr)

    def kind(self, expr: cst.BaseExpression) -> str | None:
        return self.scope.kind(expr) if self.scope is not None else None

    def callee(self, call: cst.Call) -> cst.FunctionDef | None:
        """The same-file function a call reaches, if any."""
        owner = self.region.owner if self.region is not None else None
        found = resolve_callee(call, owner, self.index)
        return found[0] if found is not None else None

    def report(self, rule: Rule, node: cst.CSTNode, message: str, suggestion: str) -> None:
        assert self.region is not None
        self.reports.append((rule, node, message, suggestion, self.region))
        if self.on_report is not None:
            self.on_report(rule, node)
