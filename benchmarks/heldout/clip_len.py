# dynamo: target=clip inputs=f32[4,16];i64[4]:2..16
import torch


@torch.compile
def clip(x, lengths):
    longest = lengths.max()
    return x[:, :longest]
