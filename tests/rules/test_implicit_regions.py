"""Code dynamo traces without a call in the source: a module's own ``__setattr__`` (run by
``self.x = v`` in ``forward``) and a tensor subclass's ``__torch_function__`` (run by every
torch operation on a tensor made with ``as_subclass``): both are regions."""

from rule_cases import Case, static_and_dynamo_tests

D = {"inputs": ["f32[2,8]"]}

CASES = {
    "module_setattr_run_by_forward": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def __setattr__(self, name, value):
                if name == "last":
                    print("set", name)  # error: TL004
                super().__setattr__(name, value)

            def forward(self, x):
                y = self.proj(x)
                self.last = 1
                return y * 2
        """,
        D,
    ),
    "setattr_never_run_by_forward_stays_silent": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def __setattr__(self, name, value):
                if name == "last":
                    print("set", name)
                super().__setattr__(name, value)

            def forward(self, x):
                return self.proj(x) * 2
        """,
        D,
    ),
    "tensor_subclass_torch_function": Case(
        """
        import torch
        from torch import nn

        class Tagged(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                print("op", func.__name__)  # error: TL004
                return super().__torch_function__(func, types, args, kwargs or {})

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x).as_subclass(Tagged)
                return y * 2
        """,
        D,
    ),
    "subclass_only_tested_stays_silent": Case(
        """
        import torch
        from torch import nn

        class Tagged(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                print("op", func.__name__)
                return super().__torch_function__(func, types, args, kwargs or {})

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                if isinstance(x, Tagged):
                    y = y + 1
                return y * 2
        """,
        D,
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
