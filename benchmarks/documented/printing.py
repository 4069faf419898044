"""Printing, logging and formatting tensors."""

import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


class PrintTensor(nn.Module):
    def forward(self, x):
        y = x * 2
        print(y)
        return y + 1


class PrintFirst(nn.Module):
    def forward(self, x):
        print("shape", x.shape)
        return x.relu()


class StrOfTensor(nn.Module):
    def forward(self, x):
        text = str(x.sum())
        return x, text


class ReprOfTensor(nn.Module):
    def forward(self, x):
        y = x + 1
        text = repr(y)
        return y, text


class PercentFormat(nn.Module):
    def forward(self, x):
        text = "mean=%f" % x.mean()  # noqa: UP031 (the construct under test)
        return x, text


class FormatMethod(nn.Module):
    def forward(self, x):
        text = "{:.3f}".format(x.sum())  # noqa: UP032 (the construct under test)
        return x, text


class LoggerInfo(nn.Module):
    def forward(self, x):
        logger.info("value %s", x.sum())
        return x * 2


class WarningsWarn(nn.Module):
    def forward(self, x):
        y = x.exp()
        warnings.warn("exp may overflow", stacklevel=2)
        return y


class PrintGuarded(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            print(x)
        return x + 1


class FStringOfShape(nn.Module):
    def forward(self, x):
        name = f"batch of {x.shape[0]}"
        return x, name


class StrOfInt(nn.Module):
    def forward(self, x):
        return x, str(x.shape[1])


class StrOfShapeHere(nn.Module):
    def forward(self, x):
        y = x * 2
        tag = str(y.shape)
        return y + len(tag)


class FormatOfTensorHere(nn.Module):
    def forward(self, x):
        y = x * 2
        tag = f"{y.sum()}"
        return y + len(tag)


class ReprOfDtypeHere(nn.Module):
    def forward(self, x):
        y = x * 2
        tag = repr(y.dtype)
        return y + len(tag)
