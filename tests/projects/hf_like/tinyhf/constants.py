import torch

POSITION_SCALE = torch.ones(8)
