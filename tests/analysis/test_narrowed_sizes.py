"""``if not isinstance(size, (list, tuple)): ... size = size.tolist()``: after the ``if`` the
size is a list on both paths (the other arm is where the ``isinstance`` holds), so the
numbers unpacked from it are Python numbers and branching on their ratio does not break;
the ``.tolist()`` that makes them does. The look-alike keeps the tensor on one path."""

from __future__ import annotations

from support import marked_package_tests, write_package

IMAGE = """import torch


def unpad(tensor, original_size):
    if not isinstance(original_size, (list, tuple)):
        if not isinstance(original_size, torch.Tensor):
            raise TypeError("bad size")
        original_size = original_size.tolist()  # graph break
    h, w = original_size
    ratio = w / h
    if ratio > tensor.shape[2] / tensor.shape[1]:
        return tensor[:, :2]
    return tensor


def keep(tensor, size):
    if isinstance(size, (list, tuple)):
        size = torch.tensor(size)
    h, w = size
    if w / h > 1:  # graph break
        return tensor[:, :2]
    return tensor
"""

MODEL = """from torch import nn

from .image import keep, unpad


class Unpad(nn.Module):
    def forward(self, x):
        sizes = (x.abs().sum(dim=(1, 2))[:2] + 1).long()
        return unpad(x, sizes)


class Keep(nn.Module):
    def forward(self, x):
        sizes = (x.abs().sum(dim=(1, 2))[:2] + 1).long()
        return keep(x, sizes)
"""

ORACLE = [{"path": ".", "module": "npkg.model", "target": name, "inputs": ["f32[2,4,4]"]} for name in ("Unpad", "Keep")]


def make(root):
    files = {"npkg/__init__.py": "", "npkg/image.py": IMAGE, "npkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
