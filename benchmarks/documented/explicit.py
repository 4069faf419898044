"""Breaks asked for: dynamo's own graph_break, functions and modules excluded from compiling."""

import torch
from torch import nn


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
