# dynamo: target=cached_norm inputs=f32[4,8]
import threading

import torch

_CACHE = {}
_CACHE_LOCK = threading.Lock()


@torch.compile
def cached_norm(x):
    with _CACHE_LOCK:
        _CACHE["last"] = x.shape
    return x / x.norm()
