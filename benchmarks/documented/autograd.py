"""Autograd machinery inside the compiled region (these cases run in training)."""

import torch
from torch import nn


class BackwardInForward(nn.Module):
    TRAIN = True

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(16))

    def forward(self, x):
        loss = (x * self.w).sum()
        loss.backward(retain_graph=True)
        return loss


class AutogradGrad(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = (x**2).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        return g


class HookInForward(nn.Module):
    TRAIN = True

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(16, 16)

    def forward(self, x):
        self.layer.register_forward_hook(lambda m, i, o: None)
        return self.layer(x)


class TensorHookInForward(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = x * 2
        y.register_hook(lambda g: g * 0.5)
        return y.sum()


class NoGradBlock(nn.Module):
    TRAIN = True

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(16, 16)

    def forward(self, x):
        with torch.no_grad():
            ref = self.layer(x)
        return self.layer(x) - ref


class DetachTarget(nn.Module):
    TRAIN = True

    def forward(self, x):
        target = x.detach() * 2
        return ((x - target) ** 2).mean()


class EnableGradBlock(nn.Module):
    TRAIN = True

    def forward(self, x):
        with torch.enable_grad():
            y = x * 3
        return y.sum()


class CheckpointedBlock(nn.Module):
    TRAIN = True

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(16, 16)

    def forward(self, x):
        from torch.utils.checkpoint import checkpoint

        return checkpoint(self.layer, x, use_reentrant=False).sum()


class RequiresGradToggle(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = x.detach().requires_grad_(True)
        return (y * x).sum()


class RetainGradHere(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = x * 2
        y.retain_grad()
        return y.sum()


class GradAttrHere(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = x * 2
        g = x.grad
        return y.sum() if g is None else (y * g).sum()


class JacobianCall(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = x * 2
        j = torch.autograd.functional.jacobian(lambda t: t.sin(), y[0])
        return j.sum()


class GradFnAccess(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = x * 2
        name = type(y.grad_fn).__name__
        return y.sum() * len(name)


class BackwardOfIntermediate(nn.Module):
    TRAIN = True

    def forward(self, x):
        y = (x * 2).sum()
        torch.autograd.backward(y, retain_graph=True)
        return y


class CustomFunctionWithPrint(nn.Module):
    TRAIN = True

    class _Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            print("forward of double")
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def forward(self, x):
        y = x + 1
        return self._Double.apply(y).sum()
