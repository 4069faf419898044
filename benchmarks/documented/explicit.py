"""Breaks asked for: dynamo's own graph_break, functions and modules excluded from compiling."""

import torch
import torch._dynamo
from torch import nn
from torch._dynamo import graph_break


class CallsGraphBreak(nn.Module):
    def forward(self, x):
        y = x * 2
        torch._dynamo.graph_break()
        return y + 1


class CallsDisabledMethod(nn.Module):
    @torch.compiler.disable
    def eager_part(self, x):
        return x.sin()

    def forward(self, x):
        y = self.eager_part(x)
        return y * 2


class CallsDisabledFunction(nn.Module):
    def forward(self, x):
        def helper(t):
            return t.cos()

        eager = torch.compiler.disable(helper)
        return eager(x) + 1


class DisabledSubmodule(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.compiler.disable(nn.Linear(16, 16))

    def forward(self, x):
        return self.inner(x).relu()


class DynamoDisable(nn.Module):
    def forward(self, x):
        def helper(t):
            return t.tanh()

        return torch._dynamo.disable(helper)(x) * 3


class CompilingGuard(nn.Module):
    def forward(self, x):
        if torch.compiler.is_compiling():
            return x * 2
        return x


class AllowInGraph(nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x) * 2


class DynamoCompilingGuard(nn.Module):
    def forward(self, x):
        if not torch._dynamo.is_compiling():
            x = x.clone()
        return x.sum(1)


@torch.compiler.disable
def _eager_sin(t):
    return t.sin()


@torch.compiler.disable(recursive=False)
def _eager_cos(t):
    return t.cos()


def _plain(t):
    return t.cos()


class _EagerChild(nn.Module):
    @torch.compiler.disable
    def forward(self, t):
        return t.tanh()


_eager_plain = torch.compiler.disable(_plain)


class DisabledSubmoduleHere(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(16, 16)

    def forward(self, x):
        y = x * 2
        return torch.compiler.disable(self.inner)(y) * 2


class DisabledModuleFunctionHere(nn.Module):
    def forward(self, x):
        y = x * 2
        return _eager_sin(y) + 1


class DisabledNonRecursiveHere(nn.Module):
    def forward(self, x):
        y = x * 2
        return _eager_cos(y) + 1


class DisabledAlias(nn.Module):
    def forward(self, x):
        y = x * 2
        return _eager_plain(y) * 3


class DisabledAttribute(nn.Module):
    def __init__(self):
        super().__init__()
        self.fn = torch.compiler.disable(_plain)

    def forward(self, x):
        y = x * 2
        return self.fn(y) * 3


class DisabledLambdaHere(nn.Module):
    def forward(self, x):
        y = x * 2
        return torch._dynamo.disable(lambda t: t - 1)(y) * 3


class DisabledStaticMethod(nn.Module):
    @staticmethod
    @torch.compiler.disable
    def eager(t):
        return t.exp()

    def forward(self, x):
        y = x * 2
        return self.eager(y) + 1


class GraphBreakImported(nn.Module):
    def forward(self, x):
        y = x * 2
        graph_break()
        return y + 1


class ConfigPatchBlock(nn.Module):
    def forward(self, x):
        y = x * 2
        with torch._dynamo.config.patch(capture_scalar_outputs=True):
            y = y + 1
        return y


class JitIgnoreMethod(nn.Module):
    @torch.jit.ignore
    def helper(self, t):
        return t + 2

    def forward(self, x):
        y = x * 2
        return self.helper(y) + 1


class JitUnusedMethod(nn.Module):
    @torch.jit.unused
    def helper(self, t):
        return t + 2

    def forward(self, x):
        y = x * 2
        return self.helper(y) + 1


class DisableOnForwardOfChildHere(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = nn.Linear(16, 16)
        self.child.forward = torch.compiler.disable(self.child.forward)

    def forward(self, x):
        y = x * 2
        return self.child(y) + 1


class DisabledChildForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _EagerChild()

    def forward(self, x):
        y = x * 2
        return self.child(y) + 1


class DisabledClassDecorator(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = torch.compiler.disable(_EagerChild())

    def forward(self, x):
        y = x * 2
        return self.child(y) + 1


class GraphBreakWithMessageHere(nn.Module):
    def forward(self, x):
        y = x * 2
        torch._dynamo.graph_break(msg="split here")
        return y + 1
