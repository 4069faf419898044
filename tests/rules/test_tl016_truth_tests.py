"""TL016 tensor-truth-test: a tensor's truth read outside an ``if``/``while`` condition."""

from rule_cases import Case, static_and_dynamo_tests

D = {"inputs": ["f32[2,8]"]}

CASES = {
    "all_over_zipped_pairs": Case(
        """
        import torch

        def is_increasing(ts):
            return all(a < b for a, b in zip(ts[:-1], ts[1:]))  # error: TL016

        @torch.compile
        def f(x, ts):
            same = all(a == b for a, b in zip(x.shape, (8, 16)))
            if not is_increasing(ts):
                ts = ts.flip(0)
            return x * ts.sum() if same else x
        """,
        {"target": "f", "inputs": ["f32[8,16]", "f32[8]"]},
    ),
    "any_all_over_tensors": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                hit = any(y.flatten() > 0)  # error: TL016
                both = all([y.sum() > 0, y.mean() < 1])  # error: TL016
                each = all(row.sum() > 0 for row in y.unbind(0))  # error: TL016
                return y * 2, hit, both, each
        """,
        D,
    ),
    "or_and_not_as_values": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.force = False

            def forward(self, x):
                y = self.proj(x)
                go = (y > 0).any() or self.force  # error: TL016
                stop = not (y < 0).all()  # error: TL016
                return y * 2, go, stop
        """,
        D,
    ),
    "membership_index_and_equal": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                a = y.sum()
                b = y.mean()
                seen = b in [a, a * 2]  # error: TL016
                where = [a, b].index(b)  # error: TL016
                same = torch.equal(y, x)  # error: TL016
                return y * 2, seen, where, same
        """,
        D,
    ),
    "comprehension_if_on_a_tensor": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                kept = [row for row in y.unbind(0) if row.sum() > 0]  # error: TL016
                return y * 2, kept
        """,
        D,
    ),
    "lookalikes_stay_silent": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.force = False

            def forward(self, x, mask=None):
                y = self.proj(x)
                deep = any([y.dim() > 2, self.force])
                wide = all(s > 1 for s in y.shape)
                go = self.force or y.shape[0] > 1
                plain = mask is None or self.force
                hit = (y > 0).any()
                same = (y == x).all()
                a = y.sum()
                pair = (a, a + 1)
                member = a in pair
                dims = [d for d in range(y.dim()) if d != 0]
                assert y.shape[-1] == 8
                return y * 2, deep, wide, go, plain, hit, same, member, dims
        """,
        D,
    ),
    "a_test_of_if_is_tl005s": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                if (y > 0).any() or y.sum() > 3:  # error: TL005
                    y = y + 1
                return y * 2
        """,
        D,
    ),
}

CASES["index_of_a_computed_tensor_in_a_list_bound_earlier"] = Case(
    """
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            rows = [y[0, 0], y[1, 0]]
            return y * rows.index(y[1, 0])  # error: TL016
    """,
    D,
)
CASES["index_of_an_item_itself_in_a_list"] = Case(
    """
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            y = self.proj(x)
            first, second = y[0, 0], y[1, 0]
            rows = [first, second]
            return y * rows.index(second)  # error: TL016
    """,
    D,
)

CASES["all_any_of_identity_and_sizes_are_python_bools"] = Case(
    """
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x, mask=None):
            y = self.proj(x)
            rows = list(y.unbind(0))
            if all(m is None for m in [mask]):
                y = y * 2
            if any(r.shape[0] > 4 for r in rows) and all(r.dim() == 1 for r in rows):
                y = y + 1
            return y
    """,
    D,
)

# numpy's results on arrays an object keeps are tensors to dynamo: a check of an observation
# space's bounds (`np.any(low != 0) or np.any(high != 255)`, as an RL library's preprocessing
# does) tests their truth, and so does the branch on the value that `or` gives, alone or after
# a Python flag. The look-alike: a branch on a flag alone
CASES["branch_on_numpy_results_joined_by_or"] = Case(
    """
    import numpy as np
    from torch import nn

    class Space:
        def __init__(self):
            self.low = np.zeros(8)
            self.high = np.full(8, 255.0)

    def bounds_wrong(space, normalized=False):
        check = not normalized
        wrong = np.any(space.low != 0) or np.any(space.high != 255)  # error: TL016
        if check and wrong:  # error: TL005
            return True
        if check:
            return False
        return False

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.space = Space()

        def forward(self, x):
            y = self.proj(x)
            if bounds_wrong(self.space):
                y = y * 2
            return y
    """,
    D,
)

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
