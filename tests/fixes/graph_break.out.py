"""Explicit graph breaks left in after debugging."""
import torch
import torch._dynamo as dynamo


def layer(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = x @ w
    # Split here while bisecting a numerics issue.
    h = torch.relu(h)
    if h.shape[0] > 2:
        pass
    return h * 2


compiled_layer = torch.compile(layer)


def build():
    return layer


def example_inputs():
    return [(torch.randn(4, 3), torch.randn(3, 5))]
