"""What a method's compiled calls decide in it, seen over the project.

peft's layers call ``self.unmerge()`` under ``if self.merged:``, and ``unmerge`` opens with
``if not self.merged: warnings.warn(...); return``: that warning never runs where the model is
compiled. They call ``self.merge(adapter_names=names)``, leaving ``safe_merge=False``, while an
API method run outside the model passes ``safe_merge=True``: the NaN check under ``if
safe_merge:`` never runs there either. Only calls from compiled code count, and only where the
file sees all of them: a module in another file that calls the method bare (with the flag
clear) makes the warning run, which dynamo breaks on.
"""

from __future__ import annotations

from support import marked_package_tests, write_package

LAYER = """import warnings

import torch
from torch import nn


class Adapter(nn.Module):
    def __init__(self, merged=True):
        super().__init__()
        self.base = nn.Linear(4, 4)
        self.delta = nn.Parameter(torch.zeros(4, 4))
        self.merged = merged

    def unmerged_weight(self):
        if not self.merged:
            warnings.warn("already unmerged"){mark}
            return self.base.weight
        return self.base.weight - self.delta

    def merged_weight(self, safe_merge=False):
        w = self.base.weight + self.delta
        if safe_merge:
            if not torch.isfinite(w).all():
                raise ValueError("NaNs in the merged weight")
        return w

    def merge_and_check(self):
        return self.merged_weight(safe_merge=True)

    def forward(self, x):
        if self.merged:
            w = self.unmerged_weight()
        else:
            w = self.merged_weight()
        return x @ w.t()
"""

WRAPPER = """from torch import nn

from .layer import Adapter


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.adapter = Adapter(merged=False)

    def forward(self, x):
        return x @ self.adapter.unmerged_weight().t()
"""


def make_alone(root):
    files = {"adapters/__init__.py": "", "adapters/layer.py": LAYER.format(mark="")}
    oracle = [{"path": ".", "module": "adapters.layer", "target": "Adapter", "inputs": ["f32[2,4]"]}]
    return write_package(root, files, oracle)


def make_with_a_bare_call(root):
    files = {  # (a package of another name: the dynamo test imports both in one process)
        "wrapped/__init__.py": "",
        "wrapped/layer.py": LAYER.format(mark="  # graph break"),
        "wrapped/wrapper.py": WRAPPER,
    }
    oracle = [
        {"path": ".", "module": "wrapped.layer", "target": "Adapter", "inputs": ["f32[2,4]"]},
        {"path": ".", "module": "wrapped.wrapper", "target": "Wrapper", "inputs": ["f32[2,4]"]},
    ]
    return write_package(root, files, oracle)


test_guarded_calls_decide_the_method, test_guarded_calls_agree_with_dynamo = marked_package_tests(make_alone)
test_a_bare_call_elsewhere_keeps_the_warning, test_the_bare_call_breaks_in_dynamo = marked_package_tests(
    make_with_a_bare_call
)
