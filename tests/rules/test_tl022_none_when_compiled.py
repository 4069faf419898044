"""TL022 none-when-compiled: a `None` default set only when not compiling, then read."""

from rule_cases import Case, static_and_dynamo_tests

D = {"inputs": ["f32[2,4,8]"]}

CASES = {
    "subscript_of_the_default": Case(
        """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, mask=None):
                h = self.proj(x)
                if mask is None and not torch.compiler.is_compiling():
                    mask = torch.ones(x.shape[0], x.shape[1])
                scale = mask[:, :, None]  # error: TL022
                return h * scale
        """,
        D,
    ),
    "read_in_the_helpers_it_is_handed_to": Case(
        """
        import torch
        from torch import nn

        def blocks(x, size: int):
            if x.shape[1] % size != 0:  # error: TL022
                x = nn.functional.pad(x, (0, size - x.shape[1] % size))
            return x.reshape(x.shape[0], -1, size)

        def local_mask(mask, size: int):
            return blocks(mask, size).sum(-1)

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, mask=None):
                h = self.proj(x)
                if mask is None and not torch.compiler.is_compiling():
                    mask = torch.ones(x.shape[0], x.shape[1])
                return h * self.weight(mask).sum()

            def weight(self, mask):
                return local_mask(mask, 2)
        """,
        D,
    ),
    "read_under_a_test_of_it": Case(
        """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, mask=None):
                h = self.proj(x)
                if mask is None and not torch.compiler.is_compiling():
                    mask = torch.ones(x.shape[0], x.shape[1])
                if mask is not None:
                    h = h * mask[:, :, None]
                scale = mask.sum() if mask is not None else 1.0
                return h * scale
        """,
        D,
    ),
    "set_again_where_compiled_code_runs": Case(
        """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, mask=None):
                h = self.proj(x)
                if mask is None and not torch.compiler.is_compiling():
                    mask = torch.ones(x.shape[0], x.shape[1])
                mask = mask if mask is not None else torch.ones_like(x[..., 0])
                return h * mask[:, :, None]
        """,
        D,
    ),
    "default_set_in_compiled_code": Case(
        """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, mask=None):
                h = self.proj(x)
                if mask is None:
                    mask = torch.ones(x.shape[0], x.shape[1])
                return h * mask[:, :, None]
        """,
        D,
    ),
}


CASES["a_local_set_to_none_first"] = Case(
    """
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            h = self.proj(x)
            weights = None
            if not torch.compiler.is_compiling():
                weights = torch.ones(x.shape[0], x.shape[1])
            return h * weights.unsqueeze(-1)  # error: TL022
    """,
    D,
)
CASES["set_again_on_one_line"] = Case(
    """
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x, mask=None):
            h = self.proj(x)
            if mask is None and not torch.compiler.is_compiling(): mask = torch.ones(x.shape[0], x.shape[1])
            if mask is None: mask = torch.zeros(x.shape[0], x.shape[1])
            return h * mask[:, :, None]
    """,
    D,
)
CASES["set_again_in_a_try"] = Case(
    """
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x, mask=None):
            h = self.proj(x)
            if mask is None and not torch.compiler.is_compiling():
                mask = torch.ones(x.shape[0], x.shape[1])
            try:
                mask = torch.ones(x.shape[0], x.shape[1]) if mask is None else mask
            except RuntimeError:
                pass
            return h * mask[:, :, None]
    """,
    D,
)

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
