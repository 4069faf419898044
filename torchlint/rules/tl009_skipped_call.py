"""TL009 skipped-call: calls dynamo will not trace (time, random, warnings, logging, I/O...)."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import libcst as cst

from torchlint import matrix
from torchlint.rules.base import Rule


@lru_cache(maxsize=1)
def skipped_calls() -> dict:
    """The data file of calls dynamo does not trace (verified by the tests on the installed
    torch; which of them break on each measured torch version is in the matrix)."""
    text = resources.files("torchlint").joinpath("data/skipped_calls.json").read_text("utf-8")
    return json.loads(text)


class SkippedCall(Rule):
    code = "TL009"
    name = "skipped-call"
    summary = "calls dynamo will not trace: `time.*`, `random.*`, `warnings.warn`, `logging`, ..."
    message = "dynamo cannot trace `{name}` and splits the graph around it; move the call out of the compiled region"
    suggestion = (
        "Call it before or after the compiled function (e.g. time in the training loop), use a "
        "torch equivalent (`torch.rand` for `random.random`), or guard it with "
        "`if not torch.compiler.is_compiling():`."
    )
    gb_codes = ("GB0007", "GB0008", "GB0059", "GB0156", "GB0291", "GB4198", "GB6215", "GB4841",
                "GB9193")  # GB9193: time.* from torch 2.15 on
    fix_applicability = "safe"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        data = skipped_calls()
        self.calls = data["calls"]
        version = matrix.active_version()  # the torch the static pass reports for, if set
        breaking = matrix.skipped_calls(version) if version else None
        if breaking is not None:
            self.calls = {name: entry for name, entry in self.calls.items() if name in breaking}
        self.logger_methods = set(data["logger_methods"])
        self.deepcopy = set(data["deepcopy"])
        self.loggers = {
            name for name, qual in ctx.imports.bound_calls.items() if qual == "logging.getLogger"
        }

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual in self.calls:
            self.report(node, message=self.message.format(name=qual))
        elif qual in self.deepcopy and node.args:
            arg = node.args[0].value
            if self.ctx.kind(arg) in ("tensor", "module") or (
                isinstance(arg, cst.Name) and arg.value == "self"
            ):
                self.report(node, message="`copy.deepcopy` of a tensor or module cannot be traced and "
                            "splits the graph; clone tensors with `t.clone()` and copy modules outside "
                            "the compiled region")
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in self.logger_methods:
            receiver = node.func.value
            is_logger = (isinstance(receiver, cst.Name) and receiver.value in self.loggers) or (
                isinstance(receiver, cst.Call) and self.resolve(receiver.func) == "logging.getLogger"
            )
            if is_logger:
                self.report(node, message="logger calls cannot be traced and split the graph; log "
                            "outside the compiled region or add the method to "
                            "`torch._dynamo.config.ignore_logging_functions`")
