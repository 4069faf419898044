import torch
from torch.compiler import disable  # re-exported by the package


def is_compiling():
    return torch.compiler.is_compiling()
