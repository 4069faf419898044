"""TL001 tensor-item, TL002 tensor-to-python, TL003 tensor-tolist: real code and look-alikes."""

from rule_cases import Case, findings, static_and_dynamo_tests

from torchlint.rules import get_rule

D = {}  # run through dynamo with the default input (one f32[8,16] per forward argument)

CASES = {
    "slice_of_a_tensor_bound_but_not_under_isinstance_int": Case(
        """
        from typing import Union

        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.score = nn.Linear(16, 2)

            def forward(self, hidden, cut, keep: Union[int, torch.Tensor] = 1):
                rows = slice(-keep, None) if isinstance(keep, int) else keep
                n = cut.max()
                return self.score(hidden[rows]), slice(0, n)  # error: TL002
        """,
        {"target": "Head", "inputs": ["f32[8,16]", "f32[8,16]"]},
    ),
    "numpy_of_a_list_but_not_of_shape_math": Case(
        """
        import numpy as np
        import torch

        @torch.compile
        def f(x):
            n = x.shape[0]
            padded = int(np.ceil(n / 3)) * 3
            terms = int(2 * (n + np.floor(np.sqrt(40.0 * n))))
            size = int(np.prod([n, 2]))  # error: TL002
            return x.new_zeros(padded).sum() + x.new_zeros(size).sum() + x.new_zeros(terms).sum()
        """,
        {"target": "f", "inputs": ["f32[8]"]},
    ),
    "numpy_of_names_read_from_shapes": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(16, 16)

            def forward(self, x):
                n = x.shape[-1]
                half = n // 2
                scale = float(np.sqrt(half))
                window = int(np.ceil(np.log2(max(n, 2))))
                third = n / 3
                cells = int(np.ceil(third)) + int(np.floor(n / 4))
                total = x.sum()
                spread = float(np.sqrt(total.detach().numpy()))  # error: TL002
                return self.lin(x) / scale + window + spread + cells
        """,
        {"target": "Net", "inputs": ["f32[2,16]"]},
    ),
    "numpy_that_keeps_an_int_of_a_shape": Case(
        """
        import numpy as np
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                n = x.shape[-1]
                rows = int(np.ceil(n))  # error: TL002
                return x.new_zeros(rows) + x.sum()
        """,
        {"target": "Net", "inputs": ["f32[2,16]"]},
    ),
    "slice_bounds_from_numpy_rows": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        class Windows(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(16, 16)

            def forward(self, x):
                h = self.lin(x)
                n = h.shape[0]
                starts = np.asarray([g.flatten() for g in np.meshgrid([0, n // 2], [0, 1], indexing="ij")]).T
                parts = [h[slice(s, s + 2)] for s, _ in starts]  # error: TL002
                plain = [h[slice(s, s + 2)] for s in (0, n // 2)]
                return torch.cat(parts + plain)
        """,
        {"target": "Windows", "inputs": ["f32[8,16]"]},
    ),
    "tolist_in_loss_on_private_base": Case(
        """
        import torch
        from torch.nn.modules.loss import _Loss

        class Dice(_Loss):
            def forward(self, input, target):
                axes = torch.arange(2, len(input.shape)).tolist()  # error: TL003
                inter = torch.sum(input * target, dim=axes)
                return 1 - inter.mean()
        """,
        {"target": "Dice", "inputs": ["f32[2,3,4,4]", "f32[2,3,4,4]"]},
    ),
    # ---------------------------------------------------------------- TL001 tensor-item
    "item_alias_T": Case(
        """
        import torch as T

        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = T.nn.Linear(16, 16)

            def forward(self, x):
                s = T.sigmoid(self.proj(x)).sum().item()  # error: TL001
                return x * s
        """,
        D,
    ),
    "item_in_helper_method": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def _peak(self, h):
                return h.abs().max().item()  # error: TL001

            def forward(self, x):
                return x / self._peak(x)
        """,
        D,
    ),
    "item_compiled_function_F": Case(
        """
        import torch
        import torch.nn.functional as F

        def loss_value(logits, target):
            return F.cross_entropy(logits, target).item()  # error: TL001

        compiled = torch.compile(loss_value)
        """,
        {"target": "loss_value", "inputs": "f32[4,8];i64[4]:0..8"},
    ),
    "item_outside_regions": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = torch.tensor(2.0).item()

            def forward(self, x):
                if not torch.compiler.is_compiling():
                    self.last = x.mean().item()
                return x * self.scale

        def train(model, batches, opt):
            for x, y in batches:
                loss = (model(x) - y).pow(2).mean()
                loss.backward()
                opt.step()
                print(loss.item())
        """,
        D,
    ),
    "item_in_disabled_helper": Case(
        """
        import torch
        from torch import nn

        @torch.compiler.disable
        def report(h):
            return h.norm().item()

        class Net(nn.Module):
            def forward(self, x):
                norm = report(x)  # error: TL011
                return x * 2, norm
        """,
        D,
    ),
    "item_on_numpy_values_dynamo_holds_as_tensors": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                last = torch.searchsorted(x[0], 0.5)
                n = (10 - last).numpy().item()  # error: TL001
                rows = np.int64(x.shape[0]).item()  # error: TL001
                return x * n * rows
        """,
        D,
    ),
    "item_on_numpy_floats_dynamo_folds": Case(
        """
        import numpy as np
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                scale = np.float32(x.shape[0]).item()
                root = np.sqrt(2.0).item()
                return x * scale * root
        """,
        D,
    ),
    "dict_items_is_not_item": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.weights = {"a": 1.0, "b": 2.0}

            def forward(self, x):
                for _, w in self.weights.items():
                    x = x * w
                return x
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL002 tensor-to-python
    "float_int_bool_of_tensors": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                mean = float(x.mean())  # error: TL002
                top = int(torch.argmax(x))  # error: TL002
                any_pos = bool((x > 0).any())  # error: TL002
                return x * mean + top + any_pos
        """,
        D,
    ),
    "math_of_tensor": Case(
        """
        import math
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                std = math.sqrt(x.var())  # error: TL002
                return x / std
        """,
        D,
    ),
    "range_and_arange_of_tensor_values": Case("""
        import torch

        @torch.compile
        def pad_to_longest(x, lengths):
            longest = torch.arange(lengths.max())  # error: TL002
            for _ in range(lengths.sum()):  # error: TL002
                x = x + 1
            return x, longest
        """),
    "slice_bounds_from_tensor_values": Case(
        """
        from torch import nn

        class Trim(nn.Module):
            def forward(self, x, lengths):
                half = x[:, : x.shape[1] // 2]
                every_other = x[1:-1, ::2]
                return x[:, : lengths.max()], half, every_other  # error: TL002
        """,
        {"inputs": "f32[4,8];i64[4]:1..8"},
    ),
    "index_by_a_reduction_over_every_element": Case(
        """
        import torch
        from torch import nn

        class Pick(nn.Module):
            def forward(self, x, lengths):
                best = x.argmax()
                top = x.flatten()[best] * 2  # error: TL002
                col = x[:, torch.argmin(x.sum(0))]  # error: TL002
                return top + col.sum() + x[lengths.max() - 1].sum()  # error: TL002
        """,
        {"inputs": "f32[4,8];i64[4]:1..4"},
    ),
    "index_by_reductions_that_keep_a_dim": Case(
        """
        import torch
        from torch import nn

        class Pick(nn.Module):
            def forward(self, x):
                rows = x.argmax(dim=1)
                picked = x[torch.arange(x.shape[0]), rows]
                best = x.argmax(dim=1, keepdim=True)
                best = best + 0
                kept = x.gather(1, best)
                return picked + kept.squeeze(1) + x[torch.tensor(1)].sum()
        """,
        D,
    ),
    "index_by_an_item_of_a_flat_tensor_and_offsets_from_one": Case(
        """
        import torch
        from torch import nn

        class Pick(nn.Module):
            def forward(self, x):
                hits = (x[:, 0] > 0).nonzero(as_tuple=True)[0]  # error: TL008
                first = hits[0]
                row = x[first + 1]  # error: TL002
                col = x.select(1, x.sum(0).argmax())  # error: TL002
                band = x.narrow(0, x[:, 1].argmin(), 1)  # error: TL002
                return row + col.sum() + band.sum()
        """,
        {"inputs": "f32[8,16]:0.5..1"},
    ),
    "items_of_rows_and_offsets_from_shapes_are_traced": Case(
        """
        import torch
        from torch import nn

        class Pick(nn.Module):
            def forward(self, x):
                rows = x.argmax(dim=1)
                first = rows[0:2]
                col = x.select(1, x.shape[1] - 1)
                band = x.narrow(0, 2, 3)
                return x[:, first].sum() + col.sum() + band.sum() + x.view(-1)[first].sum()
        """,
        D,
    ),
    "int_parameter_handed_a_computed_0d_tensor": Case(
        """
        import torch
        from torch import nn

        def blend(alphas, out, timestep: int, x):
            alpha = alphas[timestep]  # error: TL002
            return alpha * x + (1 - alpha) * out

        class Denoise(nn.Module):
            def __init__(self):
                super().__init__()
                self.alphas = nn.Buffer(torch.linspace(0.9, 0.1, 3))
                self.net = nn.Linear(16, 16)

            def forward(self, x):
                for t in torch.arange(2, -1, -1):
                    x = blend(self.alphas, self.net(x), t, x)
                return x
        """,
        D,
    ),
    "int_parameters_handed_ints_or_the_inputs_are_traced": Case(
        """
        import torch
        from torch import nn

        class Table(nn.Module):
            def __init__(self):
                super().__init__()
                self.alphas = nn.Buffer(torch.linspace(0.9, 0.1, 8))

            def at(self, x, k: int):
                return self.alphas[k] * x

            def forward(self, x, t):
                return self.at(x, x.shape[0] - 1) + self.at(x, t) + self.alphas[t]
        """,
        {"inputs": ["f32[8,16]", "i64[]:0..7"]},
    ),
    "conversions_of_shapes_and_config": Case(
        """
        import math
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, scale=0.5):
                super().__init__()
                self.scale = scale
                self.dim = 16

            def forward(self, x, mask=None):
                n = int(x.shape[0])
                root = math.sqrt(x.shape[-1])
                pos = torch.arange(x.shape[1])
                for i in range(x.size(0)):
                    x = x + i
                y = x * float(self.scale) * int(self.dim) / root + n + pos
                return y.masked_fill(y > 1e4, float("-inf"))
        """,
        D,
    ),
    "python_numbers_passed_as_arguments": Case(
        """
        import torch

        def rollout(x, steps, k):
            for _ in range(steps):
                x = torch.tanh(x)
            if steps > 2:
                x = x * 2
            return x[:, :k] * float(k)

        fast_rollout = torch.compile(rollout)
        """,
        {"target": "rollout", "inputs": "f32[8,16];3;4"},
    ),
    "float_in_training_loop": Case("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x * 2

        def evaluate(model, x):
            return float(model(x).mean())

        model = torch.compile(Net())
        """),
    # ---------------------------------------------------------------- TL003 tensor-tolist
    "tolist_in_forward_and_helper": Case(
        """
        import torch
        from torch.nn import Module, Linear

        class Decoder(Module):
            def __init__(self):
                super().__init__()
                self.head = Linear(16, 5)

            def ids(self, logits):
                return logits.argmax(-1).tolist()  # error: TL003

            def forward(self, x):
                best = self.ids(self.head(x))
                return torch.tensor(best)
        """,
        D,
    ),
    "tolist_lookalikes": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.sizes = torch.tensor([1, 2]).tolist()
                self.table = np.arange(4).tolist()

            def forward(self, x):
                dims = list(x.shape)
                return x * dims[0] * len(self.table) * self.sizes[1]
        """,
        D,
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)


def test_helper_finding_names_the_root_region():
    (finding,) = findings(CASES["item_in_helper_method"].snippet)
    assert finding.rule == "TL001"
    assert "called from Net.forward" in finding.message
    assert finding.region == "Net._peak"


def test_single_rule_runs_alone():
    found = findings(CASES["float_int_bool_of_tensors"].snippet, [get_rule("TL001")])
    assert found == []
