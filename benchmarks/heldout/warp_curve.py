# dynamo: target=warp inputs=f32[8]
import numpy as np
import torch


@torch.compile
def warp(x):
    knots = np.interp(x.detach().numpy(), [0.0, 0.5, 1.0], [0.0, 0.8, 1.0])
    return x + torch.from_numpy(knots).to(x.dtype)
