import torch


def count_positive(x) -> torch.Tensor:
    return (x > 0).sum()


def clamp_to_peak(x):
    return x.clamp(max=x.max().item())  # graph break


def peak(x) -> float:
    return x.max()
