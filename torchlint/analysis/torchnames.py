"""The torch names that decide what is compiled, kept apart from libcst so that the
project-wide analysis (which reads summaries, not trees) can use them on a warm run."""

from __future__ import annotations

#: parameters that carry training targets: given, the model computes a loss (the convention of
#: transformers and of most training loops); inference passes none
LABEL_PARAMS = frozenset({"labels", "label"})
COMPILE_CALLS = frozenset({"torch.compile", "torch.compiler.compile", "torch._dynamo.optimize"})
DISABLE_DECORATORS = frozenset({"torch.compiler.disable", "torch._dynamo.disable"})
#: calls that turn a module into a TorchScript module, which runs in the TorchScript runtime:
#: dynamo cannot trace calling one (a scripted or traced *function* it inlines)
#: ``torch.autograd.Function``: ``Cls.apply(...)`` of a subclass runs its ``forward``, traced
AUTOGRAD_FUNCTION = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
JIT_MODULE_MAKERS = frozenset(
    {
        "torch.jit.script",
        "torch.jit.trace",
        "torch.jit.trace_module",
        "torch.jit.freeze",
        "torch.jit.optimize_for_inference",
    }
)
#: decorators that make a function an operator dynamo calls without tracing its body (the
#: graph holds the operator; its fake kernel gives the output's shape), and without a break
OPAQUE_DECORATORS = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op"})
IS_COMPILING = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._dynamo.is_compiling",
        "torch._utils.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
    }
)
#: calls dynamo reads as False while it traces (it neither scripts nor traces with the JIT):
#: `if not torch.jit.is_scripting():` is live, its other arm dead
NOT_WHILE_COMPILING = frozenset({"torch.jit.is_scripting", "torch.jit.is_tracing", "torch._C._get_tracing_state"})
MODULE_BASES = frozenset(
    {
        "torch.nn.Module",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "pytorch_lightning.LightningModule",
    }
)
NOT_MODULES = frozenset({"torch.nn.Parameter", "torch.nn.Buffer"})


def is_module_class_name(qualname: str | None) -> bool:
    """``torch.nn.Module`` itself, or a visible subclass of it from ``torch.nn``."""
    if qualname is None:
        return False
    if qualname in MODULE_BASES:
        return True
    if qualname in NOT_MODULES:
        return False
    if qualname.startswith("torch.nn."):
        last = qualname.rsplit(".", 1)[-1]
        rest = qualname[len("torch.nn.") :]
        # (private bases count: `torch.nn.modules.loss._Loss`, `...conv._ConvNd`)
        return last.lstrip("_")[:1].isupper() and not rest.startswith(("functional.", "init.", "utils."))
    return False


def library_op(qual: str) -> str | None:
    """The operator ``"ns::op"`` a call of ``torch.ops.ns.op`` or ``torch.ops.ns.op.<overload>``
    runs, else None."""
    parts = qual.split(".")
    if len(parts) not in (4, 5) or parts[:2] != ["torch", "ops"]:
        return None
    return f"{parts[2]}::{parts[3]}"


def op_callee(op: str) -> str:
    """How code calls the operator ``"ns::op"``: ``torch.ops.ns.op``."""
    return "torch.ops." + op.replace("::", ".")


#: torch's functions that make a sparse tensor, and the tensor methods that do: dynamo cannot
#: wrap a sparse tensor ("Attempted to wrap sparse Tensor"), so each use of one in compiled code
#: splits the graph
SPARSE_MAKERS = frozenset(
    f"torch.sparse_{layout}_tensor" for layout in ("coo", "csr", "csc", "bsr", "bsc", "compressed")
)
SPARSE_METHODS = frozenset(
    {"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc"}
)
#: torch's functions whose (first) operand is a sparse tensor by their contract
#: (``torch.sparse.mm(adj, x)``): called in compiled code, they use one
SPARSE_OPERAND_FUNCTIONS = frozenset(
    {
        "torch.sparse.mm",
        "torch.sparse.addmm",
        "torch.sparse.sum",
        "torch.sparse.softmax",
        "torch.sparse.log_softmax",
        "torch.sparse.sampled_addmm",
        "torch.spmm",
        "torch.smm",
        "torch.hspmm",
        "torch.sspaddmm",
    }
)
