# dynamo: target=masked_l1 inputs=f32[16];f32[16];bool[16]
import torch


@torch.compile
def masked_l1(pred, target, valid):
    diff = (pred - target).abs()
    return diff[valid].mean()
