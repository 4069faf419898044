"""TL009 skipped-call, TL010 autograd-in-region, TL011 explicit-graph-break."""

import textwrap

from rule_cases import Case, static_and_dynamo_tests

D = {}

#: an autograd Function handed `mask` twice; a copy, and two different tensors, are fine
TWICE = """
import torch
from torch import nn

class Scaled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gate, mask, x):
        return x * gate * mask

    @staticmethod
    def backward(ctx, grad):
        return None, None, grad

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        x = self.proj(x)
        mask = (x > 0).float()
        y = Scaled.apply(mask, mask, x)  # error: TL010
        z = Scaled.apply(mask, mask.clone(), y)
        return Scaled.apply(mask, x, z)
"""

CASES = {
    "torchscript_type_check": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(16, 16)

            @torch.jit.unused
            def scale(self, h):
                return h * 2

            @torch.jit.ignore
            def shift(self, h):
                return h + 1

            def forward(self, x, skip):
                h = self.shift(self.scale(self.lin(x)))
                if skip is not None and torch.jit.isinstance(skip, torch.Tensor):  # error: TL009
                    h = h + skip
                return h
        """,
        {"target": "Net", "inputs": ["f32[2,16]", "f32[2,16]"]},
    ),
    # ---------------------------------------------------------------- TL009 skipped-call
    "time_random_warnings_datetime": Case(
        """
        import datetime
        import random
        import warnings
        from time import perf_counter

        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                t0 = perf_counter()  # error: TL009
                if random.random() < 0.5:  # error: TL009
                    x = x + 1
                warnings.warn("slow path")  # error: TL009
                self.stamp = datetime.datetime.now()  # error: TL009
                torch.manual_seed(0)  # error: TL009
                return x * 2, t0
        """,
        D,
    ),
    "logger_and_deepcopy": Case(
        """
        import copy
        import logging

        from torch import nn

        log = logging.getLogger(__name__)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(16, 16)
                self.cfg = {"scale": 2.0}

            def forward(self, x):
                log.info("forward")  # error: TL009
                twin = copy.deepcopy(self.proj)  # error: TL009
                cfg = copy.deepcopy(self.cfg)
                return twin(x) * cfg["scale"]
        """,
        D,
    ),
    "traced_lookalikes": Case(
        """
        import random
        import time

        import torch
        from torch import nn

        log_name = "net"

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.seed = random.random()
                self.built = time.time()

            def forward(self, x):
                k = random.randint(1, 3)
                noise = torch.rand(()) * torch.randn_like(x)
                return x * k + noise

        def train(model, data):
            start = time.time()
            for x in data:
                model(x)
            return time.time() - start
        """,
        D,
    ),
    "decorators_applied_in_forward": Case(
        """
        import functools

        import torch
        from torch import nn

        @functools.lru_cache(maxsize=None)
        def table(n):
            return n * 2

        class Net(nn.Module):
            @torch.no_grad()
            def forward(self, x):
                @functools.lru_cache(maxsize=8)  # error: TL009
                def factor(n):
                    return n * 2

                @functools.wraps(factor)
                def scaled(n):
                    return factor(n) + table(n)

                return x * scaled(3)
        """,
        D,
    ),
    "decorators_applied_by_hand": Case(
        """
        import functools

        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                def factor(n):
                    return n * 2

                cached = functools.cache(factor)  # error: TL009
                once = functools.lru_cache(maxsize=1)(factor)  # error: TL009
                return x * cached(3) * once(2)
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL010 autograd-in-region
    "backward_and_grad_in_forward": Case(
        """
        import torch
        from torch import nn

        class SelfTrain(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(16, 1)

            def forward(self, x):
                with torch.enable_grad():
                    loss = self.net(x).pow(2).mean()
                    loss.backward()  # error: TL010
                    (g,) = torch.autograd.grad(self.net(x).sum(), self.net.bias)  # error: TL010
                return loss.detach(), g
        """,
        D,
    ),
    "autograd_outside_regions": Case(
        """
        import torch
        from torch import nn

        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        class Net(nn.Module):
            def forward(self, x):
                return Square.apply(x)

        def step(model, x, opt):
            loss = model(x).sum()
            loss.backward()
            opt.step()
        """,
        D,
    ),
    # the same lines twice: dynamo breaks where gradients are on (training), not in eval
    "autograd_function_given_one_tensor_twice": Case(TWICE, {**D, "train": True}),
    "autograd_function_given_one_tensor_twice_in_eval": Case(TWICE.replace("  # error: TL010", ""), D),
    # ---------------------------------------------------------------- TL011 explicit-graph-break
    "explicit_breaks_and_disabled_calls": Case(
        """
        import torch
        import torch._dynamo as dynamo
        from torch import nn
        from torch.compiler import disable

        @disable
        def check(h):
            return torch.nan_to_num(h)

        def _clip(h):
            return h.clamp(-1, 1)

        clip = torch.compiler.disable(_clip)

        class Net(nn.Module):
            @torch._dynamo.disable(recursive=False)
            def debug(self, h):
                return h * 1

            def forward(self, x):
                x = x + 1
                dynamo.graph_break()  # error: TL011
                x = check(x)  # error: TL011
                x = self.debug(x)  # error: TL011
                x = clip(x)  # error: TL011
                return x * 2
        """,
        D,
    ),
    "disabled_function_called_outside": Case(
        """
        import torch
        from torch import nn

        @torch.compiler.disable
        def summarize(h):
            print(h.mean().item())

        class Net(nn.Module):
            def forward(self, x):
                return x * 2

        def evaluate(model, x):
            summarize(model(x))
        """,
        D,
    ),
}

CASES["submodule_with_a_disabled_forward"] = Case(
    """
    import torch
    from torch import nn

    class Eager(nn.Module):
        @torch.compiler.disable
        def forward(self, t):
            return t.tanh()

    class Plain(nn.Module):
        def forward(self, t):
            return t.tanh()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.eager = Eager()
            self.plain = Plain()

        def forward(self, x):
            y = self.plain(x * 2)
            return self.eager(y) + 1  # error: TL011
    """,
    {"target": "Net"},
)
CASES["torchscript_modules_called"] = Case(
    """
    import torch
    from torch import nn

    class Scale(nn.Module):
        def forward(self, t):
            return t * 3

    SCRIPTED = torch.jit.script(Scale())

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.jit.script(nn.LayerNorm(16))
            self.proj = torch.jit.trace(nn.Linear(16, 16), torch.randn(2, 16))

        def forward(self, x):
            y = self.norm(x)  # error: TL009
            y = self.proj(y)  # error: TL009
            return SCRIPTED(y) + 1  # error: TL009
    """,
    {"target": "Net"},
)
CASES["torchscript_functions_called"] = Case(
    """
    import torch
    from torch import nn

    def gelu_tanh(t):
        return 0.5 * t * (1 + torch.tanh(0.79788456 * (t + 0.044715 * t**3)))

    def square(t):
        return t * t

    @torch.jit.script
    def cube(t):
        return t * t * t

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.jit.script(gelu_tanh)
            self.sq = torch.jit.trace(square, torch.randn(2, 16))
            self.norm = nn.LayerNorm(16)

        def forward(self, x):
            return cube(self.sq(self.act(self.norm(x))))
    """,
    {"target": "Net"},
)
CASES["child_forward_disabled_in_init"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.child = nn.Linear(16, 16)
            self.child.forward = torch.compiler.disable(self.child.forward)
            self.other = nn.Linear(16, 16)
            self.other.forward = self.other.forward

        def forward(self, x):
            y = self.other(x * 2)
            return self.child(y) + 1  # error: TL011
    """,
    {"target": "Net"},
)
CASES["torch_function_dynamo_cannot_trace_with_tensors"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            y = x * 2
            j = torch.autograd.functional.jacobian(lambda t: t.sin(), y[0])  # error: TL009
            return j.sum()
    """,
    {**D, "train": True},
)
CASES["retain_grad_in_training"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            y.retain_grad()  # error: TL009
            return y.sum()
    """,
    {"inputs": ["f32[2,8]"], "train": True},
)

# peft's `if self.merged: self.unmerge()`, whose `unmerge` opens with `if not self.merged:
# warnings.warn(...); return`: every compiled call sees the flag set, so the warning never runs.
# Where one call does not (called bare, or after a method that may clear the flag), it does.
_UNMERGE = """
import warnings

import torch
from torch import nn

class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(8, 8)
        self.delta = nn.Parameter(torch.zeros(8, 8))
        self.merged = {merged}

    def reset(self):
        self.merged = False

    def unmerged_weight(self):
        '''The base weight without the delta.'''
        if not self.merged:
            warnings.warn("already unmerged"){mark}
            return self.base.weight
        return self.base.weight - self.delta

    def project(self, x, w):
        if not self.merged:
            return x @ w.t()
        v = self.unmerged_weight()
        return x @ (w + v).t()

    def forward(self, x):
{forward}
"""


def _unmerge_case(forward: str, merged: bool, mark: bool) -> Case:
    body = textwrap.indent(textwrap.dedent(forward).strip(), " " * 8)
    text = _UNMERGE.format(merged=merged, mark="  # error: TL009" if mark else "", forward=body)
    return Case(text, {"inputs": ["f32[2,8]"]})


CASES["method_opening_test_decided_by_its_guarded_calls"] = _unmerge_case(
    """
    if self.merged:
        w = self.unmerged_weight()
    else:
        w = self.base.weight
    return self.project(x, w)
    """,
    merged=True,
    mark=False,
)
CASES["method_opening_test_after_a_call_that_may_clear_the_flag"] = _unmerge_case(
    """
    if self.merged:
        self.reset()
        w = self.unmerged_weight()
    else:
        w = self.base.weight
    return x @ w.t()
    """,
    merged=True,
    mark=True,
)
CASES["method_opening_test_with_one_unguarded_call"] = _unmerge_case(
    """
    if self.merged:
        x = x @ self.unmerged_weight()
    return x @ self.unmerged_weight().t()
    """,
    merged=False,
    mark=True,
)

# a number read from torch's state (torchkbnufft's `int(torch.get_num_threads())`): the function
# is put in the graph and returns no tensor, so dynamo breaks; a flag it folds stays silent
CASES["torch_state_read_in_forward"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            n = int(torch.get_num_threads())  # error: TL009
            if torch.is_grad_enabled():
                x = x * 2
            return self.proj(x) * n
    """,
    {"inputs": ["f32[2,8]"]},
)

# a class of torch that dynamo's trace rules skip, made in the compiled code: botorch's
# quasi-random sampler makes a `SobolEngine` (measured per version by benchmarks/knowledge.py)
CASES["torch_class_dynamo_skips"] = Case(
    """
    import torch
    from torch import nn
    from torch.quasirandom import SobolEngine

    class QMC(nn.Module):
        def forward(self, x):
            engine = SobolEngine(dimension=4, scramble=True, seed=0)  # error: TL009
            samples = engine.draw(2)  # error: TL009
            engine = torch.ones(2, 4)  # bound again: a tensor's method is traced
            return x + samples + engine.add(1)
    """,
    {"inputs": ["f32[2,4]"]},
)

# the same objects kept by the constructor, whose methods `forward` calls: botorch's normal
# quasi-random engine keeps its `SobolEngine`, a noisy layer its numpy generator. The look-alikes:
# a kept `nn.Linear`, a kept plain object's method (a tensor's, held in a list) and a kept
# read-only mapping, whose `get` dynamo models
CASES["skipped_objects_the_constructor_keeps"] = Case(
    """
    import types

    import numpy as np
    import torch
    from torch import nn
    from torch.quasirandom import SobolEngine

    class NoisyQMC(nn.Module):
        def __init__(self, seed=0):
            super().__init__()
            self.engine = SobolEngine(dimension=4, scramble=True, seed=seed)
            self.rng = np.random.default_rng(seed)
            self.proj = nn.Linear(4, 4)
            self.scales = [torch.ones(4)]
            self.table = types.MappingProxyType({"gain": 2.0})

        def forward(self, x):
            y = self.proj(x) * self.table.get("gain")
            samples = self.engine.draw(2)  # error: TL009
            noise = self.rng.normal(size=4)  # error: TL009
            return y + samples + torch.from_numpy(noise).float() + self.scales[0].mul(2)
    """,
    {"inputs": ["f32[2,4]"]},
)

# a sparse tensor: dynamo cannot wrap one ("Attempted to wrap sparse Tensor"), so each
# statement of compiled code that uses one splits the graph: a product with one torch's sparse
# functions take (the adjacency matrix a graph convolution keeps, made in `__init__`), and a
# value made sparse in the region, then used. The look-alikes: a dense product, a test that
# the value is there, and `torch.mm` of dense values
CASES["sparse_tensors_used"] = Case(
    """
    import torch
    from torch import nn

    class GraphConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.adj = torch.eye(4).to_sparse()

        def forward(self, x):
            h = torch.mm(self.lin(x), x.t())
            h = torch.sparse.mm(self.adj, h)  # error: TL009
            return h * 2

    class Pruned(nn.Module):
        def forward(self, x):
            y = x.relu()
            s = y.to_sparse()  # error: TL009
            kept = s if s is not None else y
            back = kept.to_dense()  # error: TL009
            return back + torch.mm(y, y.t())
    """,
    {"inputs": ["f32[4,4]"]},
)

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
