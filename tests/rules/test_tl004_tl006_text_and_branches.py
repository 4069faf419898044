"""TL004 tensor-to-string, TL005 data-dependent-branch, TL006 python-indexing-loop."""

from rule_cases import Case, static_and_dynamo_tests

D = {}

CASES = {
    # ---------------------------------------------------------------- TL004 tensor-to-string
    "print_str_repr_percent": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                h = torch.relu(x)
                print("step")  # error: TL004
                self.a = str(h.sum())  # error: TL004
                self.b = repr(h)  # error: TL004
                self.c = "%.3f" % h.mean()  # error: TL004
                return h * 2
        """,
        D,
    ),
    "print_in_helper_function": Case("""
        import torch as T

        def log_stats(h):
            print("mean", h.mean())  # error: TL004

        @T.compile(fullgraph=False)
        def step(x):
            h = T.tanh(x)
            log_stats(h)
            return h
        """),
    "strings_of_shapes_and_guarded_print": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, name="net"):
                super().__init__()
                self.name = name
                print("built", name)

            def forward(self, x):
                tag = str(x.shape) + str(self.name) + "%d rows" % x.shape[0]
                self.label = f"sum {x.sum()}"
                if not torch.compiler.is_compiling():
                    print("eager only", x.norm())
                return x * len(tag)
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL005 data-dependent-branch
    "truth_of_a_flag_and_a_tensor": Case(
        """
        import torch
        from torch import nn

        class Tagger(nn.Module):
            def __init__(self, batch_first=False):
                super().__init__()
                self.batch_first = batch_first

            def forward(self, x):
                mask = x > 0
                first = not self.batch_first and mask[0].all()
                first_bf = self.batch_first and mask[:, 0].all()
                if not first and not first_bf:  # error: TL005
                    return x * 2
                return x
        """,
        {"inputs": ["f32[3,2]"]},
    ),
    "truth_of_a_flag_and_a_size": Case(
        """
        import torch
        from torch import nn

        class Tagger(nn.Module):
            def __init__(self, batch_first=False):
                super().__init__()
                self.batch_first = batch_first

            def forward(self, x):
                long = not self.batch_first and x.shape[0] > 2
                if not long:
                    return x * 2
                return x
        """,
        {"inputs": ["f32[3,2]"]},
    ),
    "if_while_ternary_on_tensors": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.threshold = 0.5

            def forward(self, x):
                if x.sum() > 0:  # error: TL005
                    x = x * 2
                while x.norm() > 10:  # error: TL005
                    x = x / 2
                scale = 2.0 if x.max() > self.threshold else 1.0  # error: TL005
                if not (x > 0).all() and self.training:  # error: TL005
                    x = x.abs()
                return x * scale
        """,
        D,
    ),
    # (a name unpacked from a call it was passed to keeps its kind: `prepare` hands it back)
    "branch_on_an_element_of_a_list_of_tensor_dicts": Case(
        """
        from typing import Dict, List, Optional

        import torch
        from torch import Tensor, nn

        def prepare(x, targets):
            return x * 2, targets

        class Net(nn.Module):
            def forward(self, x: Tensor, targets: Optional[List[Dict[str, Tensor]]] = None) -> Tensor:
                x, targets = prepare(x, targets)
                if targets is not None:
                    for target in targets:
                        boxes = target["boxes"]
                        if (boxes[:, 2:] <= boxes[:, :2]).any():  # error: TL005
                            x = x + 1
                    names = ["boxes"] * len(targets)
                    for name in names:
                        if name:
                            x = x * 2
                return x

        net = Net()

        def run(x):
            return net(x, [{"boxes": x}])
        """,
        {"target": "run", "inputs": ["f32[3,4]"]},
    ),
    "max_and_min_with_a_tensor_key": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                scores = x.mean(0)
                best = max(range(x.shape[1]), key=lambda i: scores[i])  # error: TL015
                widest = max(range(3), key=lambda i: [3, 1, 2][i])
                return x[:, best] * widest
        """,
        D,
    ),
    "sorted_pairs_that_hold_tensors": Case(
        """
        from typing import Dict

        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                parts: Dict[str, torch.Tensor] = {}
                parts["b"] = x * 2
                parts["a"] = x + 1
                for _, v in sorted(parts.items()):  # error: TL015
                    x = x + v
                named = {"b": x, "a": x - 1}
                for _, v in sorted(zip(["b", "a"], [x, x * 3])):  # error: TL015
                    x = x + v
                for k in sorted(named):
                    x = x + named[k]
                for _, v in sorted(named.items(), key=lambda kv: kv[0]):
                    x = x + v
                for _, n in sorted(zip(["h", "w"], x.shape)):
                    x = x * n
                for _, n in sorted({"b": 1, "a": 2}.items()):
                    x = x + n
                return x
        """,
        D,
    ),
    "branch_in_submodule_called_from_forward": Case(
        """
        import torch.nn as nn

        class Gate(nn.Module):
            def forward(self, h):
                if h.mean() > 0:  # error: TL005
                    return h
                return -h

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.gate = Gate()

            def forward(self, x):
                return self.gate(x * 2)
        """,
        D,
    ),
    "branches_on_shapes_none_and_flags": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, use_bias=True):
                super().__init__()
                self.use_bias = use_bias
                self.proj = nn.Linear(16, 16)

            def forward(self, x, mask=None):
                if x.shape[0] > 1:
                    x = x * 2
                if mask is None:
                    mask = torch.ones_like(x, dtype=torch.bool)
                if self.training and self.use_bias:
                    x = x + 1
                if x.dim() == 2 and x.dtype == torch.float32 and not x.requires_grad:
                    x = self.proj(x)
                if len(x) > 2 and isinstance(x, torch.Tensor):
                    x = x - 1
                return x.masked_fill(~mask, 0.0)
        """,
        D,
    ),
    "optional_flags_are_not_tensors": Case("""
        import torch
        from torch import nn

        class Layer(nn.Module):
            def forward(self, x, attn_mask=None, output_attentions=None, use_cache=False):
                if attn_mask is not None:
                    x = x + attn_mask
                if output_attentions or use_cache:
                    return x, x.softmax(-1)
                return x
        """),
    "tensor_branch_in_training_loop": Case("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x * 2

        def fit(model, data, opt):
            best = None
            for x in data:
                loss = model(x).mean()
                if best is None or loss < best:
                    best = loss
                while loss > 1:
                    loss = loss / 2
        """),
    # ---------------------------------------------------------------- TL006 python-indexing-loop
    "rows_of_a_matrix_in_a_loop": Case(
        """
        import torch
        from torch import nn

        class Chain(nn.Module):
            def __init__(self):
                super().__init__()
                self.transitions = nn.Parameter(torch.randn(5, 5))

            def forward(self, x):
                tags = (x.abs() * 10).long() % 5
                seq_length, batch_size = tags.shape
                score = torch.zeros(batch_size)
                for i in range(1, seq_length):
                    score = score + self.transitions[tags[i - 1], tags[i]]
                return score
        """,
        {"inputs": ["f32[4,3]"]},
    ),
    "gather_by_loop": Case(
        """
        import torch
        from torch import nn

        class Picker(nn.Module):
            def forward(self, logits, labels):
                out = []
                for i in range(logits.shape[0]):
                    out.append(logits[i, labels[i]])  # error: TL006
                return torch.stack(out)
        """,
        {"inputs": "f32[4,8];i64[4]:0..8"},
    ),
    "iterate_index_tensor": Case(
        """
        import torch
        from torch import nn

        class Sum(nn.Module):
            def forward(self, x, idx):
                total = torch.zeros(x.shape[1])
                for j in idx:
                    total = total + x[j]  # error: TL006
                return total
        """,
        {"inputs": "f32[8,16];i64[4]:0..8"},
    ),
    "loops_with_python_indices": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([nn.Linear(16, 16) for _ in range(2)])

            def forward(self, x):
                rows = [x[i] * 2 for i in range(x.shape[0])]
                cols = torch.stack([x[:, j] for j in range(3)])
                for i, block in enumerate(self.blocks):
                    x = block(x) + i
                return x + torch.stack(rows) + cols.sum()
        """,
        D,
    ),
}

CASES["formatted_tensor_computed_with"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            h = torch.relu(x)
            tag = f"{h.sum()}"
            return h + len(tag)  # error: TL004
    """,
    D,
)
CASES["formatted_tensor_only_returned_stays_silent"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            h = torch.relu(x)
            text = "{:.3f}".format(h.sum())
            shape = f"{h.shape[0]}"
            return h + len(shape), text
    """,
    D,
)

CASES["formatted_parameter_names_an_attribute_stays_silent"] = Case(
    """
    import torch
    from torch import nn

    class Rope(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("full_inv_freq", torch.ones(8))

        def forward(self, x, layer_type):
            inv_freq = getattr(self, f"{layer_type}_inv_freq")
            return x * inv_freq

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rope = Rope()

        def forward(self, x):
            return self.rope(x, "full")
    """,
    {"target": "Net", "inputs": ["f32[2,8]"]},
)


CASES["formatted_parameter_of_a_root_forward_stays_silent"] = Case(
    """
    import torch
    from torch import nn

    class Rope(nn.Module):  # compiled alone: its parameters are taken for tensors
        def __init__(self):
            super().__init__()
            self.register_buffer("full_inv_freq", torch.ones(8))

        def forward(self, x, layer_type):
            inv_freq = getattr(self, f"{layer_type}_inv_freq")
            return x * len(f"{layer_type}") * inv_freq
    """,
    None,  # a string input: not a spec the oracle takes; the case above runs through dynamo
)


CASES["assert_with_a_computed_message_or_an_or"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            y = x * 2
            assert (y > -100).all(), "bad {}".format(3)  # error: TL005
            assert torch.isfinite(y).all(), f"non-finite: {y.shape}"  # error: TL005
            d = y.abs() >= 0
            assert d.all() or (~d).all()  # error: TL005
            assert not torch.isnan(y).any(), "no NaN " "allowed"  # error: TL005
            return y + 1
    """,
    {"inputs": ["f32[2,8]"]},
)


CASES["assert_traced_as_a_runtime_assertion_stays_silent"] = Case(
    """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x, mask=None):
            y = x * 2
            assert (y > -100).all(), "must be big"
            assert (y > -100).all(), "must " "be big"
            assert torch.isfinite(y).all()
            assert (~torch.isnan(y)).all(), "no NaN"
            assert not x.shape[0] > 2, "small batch"
            assert x.shape[0] == 2, f"bad {x.shape}"
            assert mask is None or mask.dim() == 2, f"mask {mask}"
            return y + 1
    """,
    {"inputs": ["f32[2,8]"]},
)


CASES["names_computed_from_parameters_taken_for_tensors_stay_silent"] = Case(
    """
    from torch import nn


    class Crop(nn.Module):
        def forward(self, x, size=None, decoder=None, encoder=None):
            both = decoder == encoder
            if both:
                x = x * 2
            h, w = size if size is not None else x.shape[-2:]
            total = x.sum() == x.mean()
            if total:  # error: TL005
                x = x + 1
            return x[..., :h, :w]
    """,
    {"inputs": "f32[2,4,4]"},
)


# Fields of records (dataclasses, NamedTuples, namedtuples) hold what their annotations say,
# or what a construction in the file passes them; an int field or a config record is no tensor.
CASES["branch_on_tensor_fields_of_records"] = Case(
    """
    import collections
    from dataclasses import dataclass
    from typing import NamedTuple

    import torch
    from torch import Tensor, nn

    @dataclass
    class State:
        t: Tensor
        steps: int

    class Pair(NamedTuple):
        lo: Tensor
        hi: Tensor

    Tableau = collections.namedtuple("Tableau", "alpha beta")
    RK = Tableau(alpha=torch.tensor([0.5, 1.0]), beta=torch.tensor([0.5, 0.5]))

    def advance(state: State) -> State:
        if state.steps > 2:
            return state
        if state.t > 1:  # error: TL005
            return state
        return State(state.t + 0.1, state.steps + 1)

    def combine(x, tableau):
        for a, b in zip(tableau.alpha, tableau.beta):
            if a == 1.0:  # error: TL005
                x = x * b
        return x

    class Net(nn.Module):
        def forward(self, x):
            s = advance(State(x.mean(), 0))
            p = Pair(x.min(), x.max())
            if p.lo < 0:  # error: TL005
                x = x - p.lo
            return combine(x * s.t, RK)
    """,
    {"target": "Net"},
)
CASES["config_records_are_not_tensors"] = Case(
    """
    import collections
    from dataclasses import dataclass

    from torch import nn

    @dataclass
    class Config:
        depth: int
        scale: float = 0.5

    Sizes = collections.namedtuple("Sizes", "hidden heads")
    SIZES = Sizes(hidden=16, heads=2)

    class Net(nn.Module):
        def __init__(self, cfg: Config = Config(2)):
            super().__init__()
            self.cfg = cfg
            self.lin = nn.Linear(SIZES.hidden, SIZES.hidden)

        def forward(self, x):
            cfg = Config(3, 0.25)
            if cfg.depth > 2 and SIZES.heads > 1:
                x = self.lin(x) * cfg.scale
            return x
    """,
    D,
)

# a spiking neuron's optional state, tested the way snntorch does: `tensor == None` is a Python
# False (dynamo folds it), a comparison of the value is not
CASES["equality_with_none_is_not_a_tensor_value"] = Case(
    """
    import torch
    from torch import nn

    class Leaky(nn.Module):
        def __init__(self):
            super().__init__()
            self.init_hidden = False
            self.register_buffer("mem", torch.zeros(4))

        def forward(self, x: torch.Tensor, mem: torch.Tensor | None = None):
            if not mem == None:
                self.mem = mem
            if self.init_hidden and not mem == None:
                raise TypeError("mem given twice")
            spk = (self.mem + x > 1.0).float()
            if mem != None and spk.sum() == 0:  # error: TL005
                spk = spk + 1
            return spk
    """,
    {"target": "Leaky", "inputs": ["f32[4]", "f32[4]"]},
)

# snntorch's neurons: the base class registers a 0-d buffer in a helper its constructor calls
# (inside a try), and a subclass's forward branches on it; an int kept beside it is no tensor
CASES["buffer_a_base_class_registers_in_a_helper"] = Case(
    """
    import torch
    from torch import nn

    class SpikingNeuron(nn.Module):
        reset_dict = {"subtract": 0, "zero": 1}

        def __init__(self, reset_mechanism="subtract"):
            super().__init__()
            self.mode = SpikingNeuron.reset_dict[reset_mechanism]
            try:
                self._reset_mechanism_buffer(reset_mechanism)
            except AttributeError:
                pass

        def _reset_mechanism_buffer(self, reset_mechanism):
            val = torch.as_tensor(SpikingNeuron.reset_dict[reset_mechanism])
            self.register_buffer("reset_mechanism_val", val)

    class Leaky(SpikingNeuron):
        def forward(self, x):
            if self.mode == 0:
                x = x * 0.9
            if self.reset_mechanism_val == 0:  # error: TL005
                return x - 1
            return x
    """,
    {"target": "Leaky", "inputs": ["f32[4]"]},
)

# peft's `self.merge(adapter_names=names)` in `forward`, whose `if safe_merge:` arm tests the
# merged weight for NaNs: no compiled call passes `safe_merge` (an API method called outside
# the model does), so it holds its default where the model runs. Passed by the forward, it runs.
_MERGE = """
import torch
from torch import nn

class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(8, 8)
        self.delta = nn.Parameter(torch.zeros(8, 8))

    def merged_weight(self, scale=1.0, safe_merge=False):
        w = self.base.weight + scale * self.delta
        if safe_merge:
            if not torch.isfinite(w).all():{mark}
                raise ValueError("NaNs in the merged weight")
        return w

    def merge_and_save(self, path):
        torch.save(self.merged_weight(safe_merge=True), path)

    def forward(self, x):
        return x @ self.merged_weight({args}).t()
"""
CASES["default_every_compiled_call_leaves"] = Case(_MERGE.format(mark="", args="2.0"), {"inputs": ["f32[2,8]"]})
CASES["default_a_compiled_call_passes"] = Case(
    _MERGE.format(mark="  # error: TL005", args="2.0, True"), {"inputs": ["f32[2,8]"]}
)

# gpytorch's `variance = super().variance`, then `if variance.lt(min_variance).any():`: what the
# value is, the pass does not know; `.lt()` is a method only a tensor has, so it is one. An
# object of the file's own class with a method of that name is no tensor.
CASES["tensor_only_method_on_a_value_of_unknown_kind"] = Case(
    """
    import torch
    from torch import nn

    class Interval:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

        def lt(self, value):
            return self.hi < value

    class Base(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(4))

        @property
        def variance(self):
            return self.scale * self.scale

    class Net(Base):
        def __init__(self):
            super().__init__()
            self.interval = Interval(0.0, 1.0)

        def forward(self, x):
            variance = super().variance
            if variance.lt(1e-6).any():  # error: TL005
                variance = variance.clamp_min(1e-6)
            if self.interval.lt(3.0):
                x = x * 2
            return x * variance
    """,
    {"target": "Net", "inputs": ["f32[2,4]"]},
)

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
