"""TL017 class-in-region, TL018 hook-in-region, TL019 identity-kept, and modules wrapped in
``torch.compiler.disable`` (TL011)."""

import pytest
from rule_cases import Case, assert_dynamo_agrees, needs_torch, static_and_dynamo_tests

D = {"inputs": ["f32[2,8]"]}

CASES = {
    # ---------------------------------------------------------------- TL017 class-in-region
    "class_and_dataclass_in_forward": Case(
        """
        import dataclasses

        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)

                @dataclasses.dataclass  # error: TL017
                class Out:  # error: TL017
                    scale: float = 2.0

                return y * Out().scale
        """,
        D,
    ),
    "classes_at_module_level_and_namedtuples_stay_silent": Case(
        """
        import collections
        import dataclasses

        from torch import nn

        @dataclasses.dataclass
        class Out:
            scale: float = 2.0

        Pair = collections.namedtuple("Pair", "a b")

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                p = Pair(y, y)
                scale = (lambda s: s * 2.0)(Out().scale)
                return p.a * scale
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL018 hook-in-region
    "module_hooks_registered_in_forward": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                self.proj.register_forward_pre_hook(lambda m, i: None)  # error: TL018
                y = self.proj(x)
                self.proj.register_full_backward_hook(lambda m, gi, go: None)  # error: TL018
                torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: o)  # error: TL018
                return y * 2
        """,
        D,
    ),
    "hooks_in_init_stay_silent": Case(
        """
        from torch import nn

        class Recorder:
            def register_forward_hook(self, fn):
                return fn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.proj.register_forward_hook(lambda m, i, o: None)
                self.rec = Recorder()

            def forward(self, x):
                y = self.proj(x)
                return y * 2
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL019 identity-kept
    "identity_stored_or_returned": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                self.last = hash(y)
                return y * 2  # error: TL019

        class Tagged(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                return y * 2, id(y)  # error: TL019
        """,
        {"target": "Net", "inputs": ["f32[2,8]"]},
    ),
    "identity_used_locally_or_of_an_input_stays_silent": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.cache = {}

            def forward(self, x):
                y = self.proj(x)
                seen = {id(y): y}
                self.source = id(x)
                return seen[id(y)] * 2
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL011 disabled modules
    "module_wrapped_in_compiler_disable": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.head = torch.compiler.disable(nn.Linear(8, 8))

            def forward(self, x):
                y = self.head(x)  # error: TL011
                z = torch.compiler.disable(self.proj)(y)  # error: TL011
                return z * 2
        """,
        D,
    ),
    "plain_submodules_stay_silent": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.head = torch.compile(nn.Linear(8, 8))

            def forward(self, x):
                return self.head(self.proj(x)) * 2
        """,
        None,
    ),
}

CASES["hash_of_a_tensor_computed_with"] = Case(
    """
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            h = hash(y)
            return y + (h % 2)  # error: TL019
    """,
    D,
)
CASES["hash_never_computed_with_stays_silent"] = Case(
    """
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            h = hash(y)
            key = id(x)
            return y + (key % 2)
    """,
    D,
)

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)


@needs_torch
@pytest.mark.dynamo
def test_tagged_return_breaks_where_flagged():
    """The second class of the identity case, run through dynamo on its own."""
    assert_dynamo_agrees(CASES["identity_stored_or_returned"].snippet, "Tagged", ["f32[2,8]"])
