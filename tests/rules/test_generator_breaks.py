"""TL021 at a generator's consumer: a break inside the generator expression that `all()`,
`any()`, `sum()` or `set()` consumes breaks the graph at the consumer's call too (dynamo cannot
rebuild the generator it made to resume inside it). Which consumers do so is measured per torch
version (`benchmarks/knowledge.py`, `generator_consumers`): `max()`, `tuple()` and a list
comprehension break only inside, and a generator with no break inside breaks nowhere."""

from rule_cases import Case, static_and_dynamo_tests

NET = {"target": "Net", "inputs": ["f32[2,3]", "f32[2,3]"]}

CASES = {
    "all_of_a_breaking_generator": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, y):
                if all(  # error: TL021
                    torch.equal(a, b) for a, b in zip(x, y)  # error: TL016
                ):
                    x = x + 1
                return x * 2
        """,
        NET,
    ),
    "sum_of_a_breaking_generator": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, y):
                total = sum(  # error: TL021
                    v.sum().item() for v in x  # error: TL001
                )
                return y * total
        """,
        NET,
    ),
    "max_and_a_list_break_only_inside": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, y):
                top = max(
                    v.sum().item() for v in x  # error: TL001
                )
                return y * top
        """,
        NET,
    ),
    "any_of_a_list_comprehension": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, y):
                hit = any([
                    v.sum().item() > 0 for v in x  # error: TL001
                ])
                return y * hit
        """,
        NET,
    ),
    "generators_with_no_break_inside": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, y):
                n = sum(v.numel() for v in x)
                ok = all(
                    d > 0 for d in y.shape
                )
                return x * n, ok
        """,
        NET,
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
