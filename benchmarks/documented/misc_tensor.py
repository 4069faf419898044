"""Tensor methods and objects dynamo cannot put in a graph, and near neighbours that it can."""

import numpy as np
import torch
from torch import nn


class DataPtr(nn.Module):
    def forward(self, x):
        ptr = x.data_ptr()
        return x + ptr % 2


class NumpyRoundTrip(nn.Module):
    def forward(self, x):
        arr = x.numpy()
        return torch.from_numpy(arr * 2)


class NumpyRandom(nn.Module):
    def forward(self, x):
        noise = np.random.rand(8, 16)
        return x + torch.from_numpy(noise).float()


class ToSparse(nn.Module):
    def forward(self, x):
        s = x.to_sparse()
        return s.to_dense() * 2


class StorageSize(nn.Module):
    def forward(self, x):
        n = x.untyped_storage().size()
        return x + n


class ResizeInPlace(nn.Module):
    def forward(self, x):
        y = x.clone()
        y.resize_(4, 32)
        return y


class SetData(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(8, 16))

    def forward(self, x):
        self.w.data = x.clone()
        return self.w * 2


class CpuCall(nn.Module):
    def forward(self, x):
        return x.cpu() * 2


class ContiguousView(nn.Module):
    def forward(self, x):
        return x.t().contiguous().view(-1)


class NewTensorFromList(nn.Module):
    def forward(self, x):
        return x + torch.tensor([1.0] * 16)


class TensorFromTensorList(nn.Module):
    def forward(self, x):
        return torch.tensor([x[0, 0], x[1, 1]])


class ComplexView(nn.Module):
    def forward(self, x):
        c = torch.view_as_complex(x.reshape(8, 8, 2))
        return torch.view_as_real(c * c).flatten(1)


class TypeCheckOfTensor(nn.Module):
    def forward(self, x):
        if type(x) is torch.Tensor:
            return x + 1
        return x


class StrideQuery(nn.Module):
    def forward(self, x):
        return x * x.stride(0)


class IsContiguousBranch(nn.Module):
    def forward(self, x):
        if not x.is_contiguous():
            x = x.contiguous()
        return x * 2


class IsinstanceOfTensor(nn.Module):
    def forward(self, x):
        y = x * 2
        if isinstance(y, torch.nn.Parameter):
            return y
        return y + 1


class MinOfTensorAndInt(nn.Module):
    def forward(self, x):
        y = x * 2
        n = min(y.shape[0], 4)
        return y[:n]


class AbsOfTensorBuiltin(nn.Module):
    def forward(self, x):
        y = x * 2
        return abs(y) + round(3.7)


class DivmodOfShapeInline(nn.Module):
    def forward(self, x):
        q, r = divmod(x.shape[1], 3)
        return x[:, :q] + r
