"""The one base class every rule derives from, and the registry that finds them.

A rule is a small class: a code, a kebab-case name, a one-line message that says what to
do, a suggestion, the PyTorch GB codes it corresponds to, and ``visit_<Node>`` /
``leave_<Node>`` methods that the engine calls while it walks a compiled region. Rules never
print: they call :meth:`Rule.report` and the engine collects the findings.

Subclasses register themselves; ``torchlint.rules.all_rules()`` imports every module of the
package, so adding a rule is adding one module (and its page in ``rules/``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Dict, Optional, Tuple, Type

import libcst as cst

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.findings import Fix
    from torchlint.static.engine import FileContext

REGISTRY: Dict[str, Type["Rule"]] = {}

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
    code: ClassVar[str]
    name: ClassVar[str]
    #: one line for `torchlint rules`
    summary: ClassVar[str]
    #: the finding's message: what is wrong and what to do
    message: ClassVar[str]
    #: the fix in words
    suggestion: ClassVar[str]
    #: graph-break codes of the installed torch's registry this rule predicts
    gb_codes: ClassVar[Tuple[str, ...]] = ()
    #: "safe", "unsafe" or None when the rule has no automatic fix
    fix_applicability: ClassVar[Optional[str]] = None
    #: "error" for graph breaks, "warning" for performance warnings (TL1xx)
    severity: ClassVar[str] = "error"

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is None:
            return  # an abstract helper base
        if code in REGISTRY and REGISTRY[code] is not cls:
            raise RuntimeError(f"rule code {code} is used by both {REGISTRY[code].__name__} and {cls.__name__}")
        REGISTRY[code] = cls

    def __init__(self, ctx: "FileContext") -> None:
        self.ctx = ctx

    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        suggestion: Optional[str] = None,
        fix: Optional["Fix"] = None,
    ) -> None:
        region = getattr(self.ctx, "region", None)
        if region is not None and region.owner is not None and _dispatched(region.owner):
            return
        self.ctx.report(self, node, message or self.message, suggestion or self.suggestion, fix)

    # Helpers most rules need.
    def resolve(self, expr: cst.BaseExpression) -> Optional[str]:
        return self.ctx.resolve(expr)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.ctx.is_tensor(expr)
