"""Code dynamo traces without a call in the source: a module's own ``__setattr__`` (run by
``self.x = v`` in ``forward``) and a tensor subclass's ``__torch_function__`` (run by every
torch operation on a tensor made with ``as_subclass``): both are regions. So is the
``forward`` of a ``torch.autograd.Function`` run by ``Fn.apply(...)`` (or by a module-level
``fn = Fn.apply``)."""

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

CASES["autograd_function_forward_run_by_apply"] = Case(
    """
    import torch
    from torch import nn

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            print("double")  # error: TL004
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    double = Double.apply

    class Twice(Double):
        pass

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            return double(y) + Twice.apply(y)
    """,
    D,
)
CASES["autograd_function_never_applied_stays_silent"] = Case(
    """
    import torch
    from torch import nn

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            print("double")
            return t * 2

    class Apply:
        def apply(self, t):
            print("a plain class's apply")
            return t

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            return y * 2
    """,
    D,
)


CASES["autograd_function_defined_in_the_module_class"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        class _Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                print("double")  # error: TL004
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            return self._Double.apply(y)
    """,
    D,
)

# a function the constructor keeps on the module (neuraloperator's `self.search_fn =
# native_neighbor_search`), an autograd Function's `apply` likewise: what `self.<attr>(...)` runs
CASES["function_kept_on_the_module_runs_where_it_is_called"] = Case(
    """
    import torch
    from torch import nn

    def native_search(x, radius):
        d = torch.cdist(x, x)
        return (d <= radius).nonzero()  # error: TL008

    def logged_search(x, radius):
        print("searching")
        return x

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * t.max().item()  # error: TL001

        @staticmethod
        def backward(ctx, g):
            return g

    class Net(nn.Module):
        def __init__(self, fast=False):
            super().__init__()
            self.search_fn = native_search if not fast else native_search
            self.debug_fn = logged_search
            self.scale_fn = Scale.apply

        def forward(self, x):
            idx = self.search_fn(x, 0.5)
            return self.scale_fn(x) + idx.sum()
    """,
    D,
)

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
