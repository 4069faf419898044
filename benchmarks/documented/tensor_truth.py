"""Deciding Python control flow on a tensor's value, directly or through a builtin."""

import torch
from torch import nn


class BranchOnMean(nn.Module):
    def forward(self, x):
        if x.mean() > 0:
            return x * 2
        return x - 1


class WhileNormLarge(nn.Module):
    def forward(self, x):
        while x.norm() > 1.0:
            x = x / 2
        return x


class TernaryOnMax(nn.Module):
    def forward(self, x):
        scale = 2.0 if x.max() > 3 else 1.0
        return x * scale


class AnyOverRows(nn.Module):
    def forward(self, x):
        if any(x[:, 0] > 0):
            return x + 1
        return x


class AllOverRows(nn.Module):
    def forward(self, x):
        positive = all(x.abs()[:, 0] >= 0)
        return x if positive else -x


class AnyMethodOrFlag(nn.Module):
    def __init__(self):
        super().__init__()
        self.flag = False

    def forward(self, x):
        if (x > 0).any() or self.flag:
            return x.relu()
        return x


class TensorInList(nn.Module):
    def forward(self, x):
        seen = [x[0, 0], x[1, 0]]
        if x[2, 0] in seen:
            return x
        return x + 1


class IndexOfTensor(nn.Module):
    def forward(self, x):
        firsts = [x[0, 0], x[1, 0], x[2, 0]]
        where = firsts.index(x[1, 0])
        return x[where]


class EqualThenBranch(nn.Module):
    def forward(self, x):
        if torch.equal(x, x.clone()):
            return x * 3
        return x


class BoolOfTensor(nn.Module):
    def forward(self, x):
        keep = bool(x.sum() > 0)
        return x * keep


class AndOfTensors(nn.Module):
    def forward(self, x):
        gate = (x.sum() > 0) and (x.mean() < 10)
        return x if gate else x * 0


class NotOfTensor(nn.Module):
    def forward(self, x):
        if not x.isfinite().all():
            return torch.zeros_like(x)
        return x


class BranchOnShape(nn.Module):
    def forward(self, x):
        if x.shape[0] > 4:
            return x[:4]
        return x


class BranchOnDtype(nn.Module):
    def forward(self, x):
        if x.dtype == torch.float16:
            x = x.float()
        return x * 2


class BranchOnNone(nn.Module):
    def forward(self, x, mask=None):
        if mask is not None:
            x = x * mask
        return x + 1


class WhereInsteadOfBranch(nn.Module):
    def forward(self, x):
        return torch.where(x.mean() > 0, x * 2, x - 1)


class BranchOnRequiresGrad(nn.Module):
    def forward(self, x):
        if x.requires_grad:
            return x * 2
        return x


class BranchOnDim(nn.Module):
    def forward(self, x):
        if x.dim() == 2:
            x = x.unsqueeze(0)
        return x.sum(0)


class AssertOnShape(nn.Module):
    def forward(self, x):
        assert x.shape[-1] == 16, "last dim must be 16"
        return x.relu()


class LenOfTensor(nn.Module):
    def forward(self, x):
        if len(x) > 3:
            return x[:3]
        return x


class AssertAllPositive(nn.Module):
    def forward(self, x):
        y = x * 2
        assert (y.abs() >= 0).all(), "negative"
        return y + 1


class WhileOnTensor(nn.Module):
    def forward(self, x):
        y = x * 2
        while y.abs().sum() > 1:
            y = y / 2
        return y


class BareTensorIf(nn.Module):
    def forward(self, x):
        y = x * 2
        if y[0, 0]:
            return y + 1
        return y


class NotAllBranchHere(nn.Module):
    def forward(self, x):
        y = x * 2
        if not (y > -100).all():
            return y
        return y + 1


class IsNonzeroCall(nn.Module):
    def forward(self, x):
        y = x * 2
        if torch.is_nonzero(y[0, 0] > -100):
            return y + 1
        return y


class MinWithFloat(nn.Module):
    def forward(self, x):
        y = x * 2
        s = min(y.sum(), 1.0)
        return y * s


class OrWithFlagInline(nn.Module):
    def __init__(self):
        super().__init__()
        self.flag = False

    def forward(self, x):
        y = x * 2
        if (y > 0).any() or self.flag:
            return y + 1
        return y


class SumAsTruth(nn.Module):
    def forward(self, x):
        y = x * 2
        if y.abs().sum():
            return y + 1
        return y


class ListOfTensorsContainsHere(nn.Module):
    def forward(self, x):
        y = x * 2
        rows = [y[0, 0], y[1, 0]]
        if y[0, 0] in rows:
            return y + 1
        return y


class IndexOfTensorInListInline(nn.Module):
    def forward(self, x):
        y = x * 2
        rows = [y[0, 0], y[1, 0]]
        return y * rows.index(y[1, 0])


class CountOfTensorInListHere(nn.Module):
    def forward(self, x):
        y = x * 2
        rows = [y[0, 0], y[1, 0]]
        return y * rows.count(y[1, 0])


class AssertWithPlainMessage(nn.Module):
    def forward(self, x):
        y = x * 2
        assert (y > -100).all(), "must be big"
        return y + 1


class AssertFormatMsg(nn.Module):
    def forward(self, x):
        y = x * 2
        assert (y > -100).all(), f"bad {3}"
        return y + 1


class AssertFStringMsg(nn.Module):
    def forward(self, x):
        y = x * 2
        n = 3
        assert (y > -100).all(), f"bad {n}"
        return y + 1


class AssertNoMsg(nn.Module):
    def forward(self, x):
        y = x * 2
        assert (y > -100).all()
        return y + 1


class AssertEitherOrder(nn.Module):
    def forward(self, x):
        d = x.abs() >= 0
        assert d.all() or (~d).all()
        return x + 1


class AssertScalarCompare(nn.Module):
    def forward(self, x):
        t0 = x.sum()
        dt = x.mean()
        assert t0 + dt > t0 - 1000, "underflow"
        return x + 1


class AssertRangeFormatted(nn.Module):
    def forward(self, x):
        t = x.sum()
        assert (t > -1000) & (t < 1000), f"range {1}"
        return x + 1


class AssertShapeFString(nn.Module):
    def forward(self, x):
        assert x.shape[0] == 8, f"bad {x.shape}"
        return x + 1


class AssertIsfiniteFormat(nn.Module):
    def forward(self, x):
        y = x * 2
        assert torch.isfinite(y).all(), f"non-finite values in state: {y}"
        return y + 1


class AllNoneOfOptionals(nn.Module):
    def forward(self, x, mask=None):
        if all(m is None for m in [mask]):
            return x * 2
        return x


class AnyOfShapeTests(nn.Module):
    def forward(self, x):
        rows = list(x.unbind(0))
        if any(r.shape[0] > 4 for r in rows) and all(r.dim() == 1 for r in rows):
            return x * 2
        return x
