__all__ = ["is_torchdynamo_compiling"]


def is_torchdynamo_compiling():
    try:
        import torch

        return torch.compiler.is_compiling()
    except Exception:
        return False
