"""What real models break on (TL002 numpy/random values, TL008 mask parameters, TL009 C stdlib,
numpy and library loggers, TL013 locks, TL014 requires_grad, TL015 sorting), and the
look-alikes that must stay quiet: dtypes, devices, ``torch.Size``, sizes from shapes, flags,
config attributes, local ``requires_grad_``, constant numpy, sorting shapes."""

import libcst as cst
from rule_cases import Case, findings, static_and_dynamo_tests

from torchlint.analysis.names import ImportTable
from torchlint.analysis.tensors import HOST_DATA, TENSOR, TensorScope

D = {"inputs": ["f32[8,8]"]}
FN = {"target": "f", "inputs": ["f32[4,8]"]}

CASES = {
    # ---------------------------------------------------------------- TL002 host data
    "numpy_number": Case(
        """
        import numpy as np
        import torch

        @torch.compile
        def f(h):
            s = float(np.mean(h.detach().numpy()))  # error: TL002
            return h * s
        """,
        FN,
    ),
    "numpy_count_as_slice_bound": Case(
        """
        import numpy as np
        import torch

        @torch.compile
        def f(x):
            n = np.count_nonzero(x.detach().numpy() > 0)
            return x.flatten()[:n]  # error: TL002
        """,
        FN,
    ),
    "random_int_from_method_reaches_slice": Case(
        """
        import random

        import torch
        from torch import nn

        class Net(nn.Module):
            def _span(self):
                return random.randint(2, 5)

            def forward(self, x):
                return x[:, : self._span()]  # error: TL002
        """,
        D,
    ),
    "random_int_as_size": Case(
        """
        import random

        import torch

        @torch.compile
        def f(x):
            k = random.randrange(1, 4)
            return x.narrow(1, 0, k)  # error: TL002
        """,
        FN,
    ),
    "int_of_parameter_used_as_tensor": Case(
        """
        import torch

        @torch.compile
        def f(x, steps):
            for _ in range(int(steps)):  # error: TL002
                x = x * 0.5
            return x + steps.float()
        """,
        {"target": "f", "inputs": ["f32[4]", "i64[]:2..3"]},
    ),
    "tensor_assertion": Case(
        """
        import torch

        @torch.compile
        def f(x):
            torch._check_tensor_all_with(ValueError, (x > -1e9).all(), lambda: "overflow")  # error: TL002
            return x + 1
        """,
        FN,
    ),
    "lookalike_numpy_constants_and_random_scale": Case(
        """
        import random

        import numpy as np
        import torch

        @torch.compile
        def f(x):
            root = float(np.sqrt(2.0))
            a = x.detach().numpy()
            if a.shape[0] > 2:
                x = x + 1
            jitter = random.uniform(0.9, 1.1)
            k = random.randint(1, 3)
            return x * root * jitter * k
        """,
        FN,
    ),
    "lookalike_count_parameter": Case(
        """
        import torch

        @torch.compile
        def f(x, steps):
            for _ in range(int(steps)):
                x = x * 0.5
            return x
        """,
        None,
    ),
    # ---------------------------------------------------------------- TL008 mask parameters
    "mask_parameter_by_name": Case(
        """
        import torch

        @torch.compile
        def f(diff, valid):
            return diff[valid].mean()  # error: TL008
        """,
        {"target": "f", "inputs": ["f32[8]", "bool[8]"]},
    ),
    "mask_parameter_by_use": Case(
        """
        import torch

        @torch.compile
        def f(x, sel):
            rest = x.masked_fill(~sel, 0.0)
            return x[sel].sum() + rest.sum()  # error: TL008
        """,
        {"target": "f", "inputs": ["f32[8]", "bool[8]"]},
    ),
    "lookalike_index_parameter": Case(
        """
        import torch

        @torch.compile
        def f(x, idx):
            return x[idx].sum()
        """,
        {"target": "f", "inputs": ["f32[8]", "i64[3]:0..8"]},
    ),
    # ---------------------------------------------------------------- TL009 wider table
    "c_stdlib_and_importlib": Case(
        """
        import importlib
        import zlib

        import torch

        @torch.compile
        def f(x):
            key = zlib.crc32(b"cache")  # error: TL009
            return x * (key % 3)
        """,
        FN,
    ),
    "import_module": Case(
        """
        import importlib

        import torch

        @torch.compile
        def f(x):
            F = importlib.import_module("torch.nn.functional")  # error: TL009
            return F.relu(x)
        """,
        FN,
    ),
    "unsupported_numpy": Case(
        """
        import numpy as np
        import torch

        @torch.compile
        def f(x):
            ramp = np.interp(0.25, [0.0, 1.0], [1.0, 3.0])  # error: TL009
            return x * ramp
        """,
        FN,
    ),
    "library_logger_warning_once": Case(
        """
        import torch
        from torch import nn
        from .utils import logging

        logger = logging.get_logger(__name__)

        class Net(nn.Module):
            def forward(self, x):
                logger.warning_once("eager attention")  # error: TL009
                return x * 2
        """,
        None,
    ),
    "copy_of_tensor_and_deepcopy_of_list": Case(
        """
        import copy

        import torch

        @torch.compile
        def f(x):
            y = copy.copy(x)  # error: TL009
            return y + 1
        """,
        FN,
    ),
    "deepcopy_of_tensor_list": Case(
        """
        import copy

        import torch

        @torch.compile
        def f(x):
            pair = copy.deepcopy([x, x * 2])  # error: TL009
            return pair[0] + pair[1]
        """,
        FN,
    ),
    "lookalike_find_spec_and_deepcopy_of_config": Case(
        """
        import copy
        import importlib.util

        import torch

        CFG = {"scale": 2}

        @torch.compile
        def f(x):
            cfg = copy.deepcopy(CFG)
            if importlib.util.find_spec("numpy") is not None:
                x = x + 1
            return x * cfg["scale"]
        """,
        FN,
    ),
    # ---------------------------------------------------------------- TL013 locks
    "module_lock": Case(
        """
        import threading

        import torch

        _LOCK = threading.RLock()

        @torch.compile
        def f(x):
            with _LOCK:  # error: TL013
                y = x * 2
            return y + 1
        """,
        FN,
    ),
    "self_lock": Case(
        """
        import threading

        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self._guard = threading.Lock()

            def forward(self, x):
                with self._guard:  # error: TL013
                    y = x + 1
                return y
        """,
        D,
    ),
    "lookalike_context_managers": Case(
        """
        import contextlib
        import warnings

        import torch

        @torch.compile
        def f(x):
            with contextlib.nullcontext(), warnings.catch_warnings():
                y = x * 2
            with torch.no_grad():
                y = y + 1
            return y
        """,
        FN,
    ),
    # ---------------------------------------------------------------- TL014 requires_grad
    "freeze_parameters_in_forward": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(8, 8)

            def forward(self, x):
                for p in self.a.parameters():
                    p.requires_grad_(False)  # error: TL014
                return self.a(x)
        """,
        D,
    ),
    "factory_with_requires_grad": Case(
        """
        import torch

        @torch.compile
        def f(x):
            aux = torch.zeros(1, requires_grad=True)  # error: TL014
            return x * 2 + aux
        """,
        FN,
    ),
    "requires_grad_attribute": Case(
        """
        import torch

        @torch.compile
        def f(x):
            y = x * 2
            y.requires_grad = True  # error: TL014
            return y + 1
        """,
        {"target": "f", "inputs": ["f32[4,8]"], "train": True},
    ),  # traced under no_grad from torch 2.15
    "requires_grad_on_local_with_grad_on": Case(
        """
        import torch

        @torch.compile
        def f(x):
            y = torch.zeros_like(x)
            y.requires_grad_(True)  # error: TL014
            return (y * 2).sum() + x.sum()
        """,
        {"target": "f", "inputs": ["f32[4,8]"], "train": True},
    ),
    "lookalike_requires_grad_on_local_in_eval": Case(
        """
        import torch

        @torch.compile
        def f(x):
            y = torch.zeros_like(x).requires_grad_()
            return (y * 2).sum() + x.sum()
        """,
        {"target": "f", "inputs": ["f32[4,8]"]},
    ),
    "requires_grad_under_enable_grad_in_eval": Case(
        """
        import torch
        from torch import nn

        class Energy(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(8, 1)

            def forward(self, x):
                with torch.enable_grad():
                    x = x.clone().requires_grad_()  # error: TL014
                    e = self.lin(torch.tanh(x)).sum()
                (force,) = torch.autograd.grad(e, x)  # error: TL010
                return -force
        """,
        {"target": "Energy", "inputs": ["f32[4,8]"]},
    ),
    "lookalike_enable_grad_without_requires_grad": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(8, 8)

            def forward(self, x):
                with torch.enable_grad():
                    h = self.lin(x) * 2
                noise = torch.randn_like(h).requires_grad_()
                return h + noise
        """,
        {"target": "Net", "inputs": ["f32[4,8]"]},
    ),
    "lookalike_requires_grad_off_on_local_with_grad_on": Case(
        """
        import torch

        @torch.compile
        def f(x):
            noise = torch.randn_like(x)
            noise.requires_grad_(False)
            return (x * 2 + noise).sum()
        """,
        {"target": "f", "inputs": ["f32[4,8]"], "train": True},
    ),
    "lookalike_requires_grad_read": Case(
        """
        import torch

        @torch.compile
        def f(x):
            y = x.detach().clone()
            return y * 2 if x.requires_grad else y
        """,
        {"target": "f", "inputs": ["f32[4,8]"], "train": True},
    ),
    # ---------------------------------------------------------------- TL015 sorting
    "sorted_by_tensor_key": Case(
        """
        import torch

        @torch.compile
        def f(x):
            rows = list(x.unbind(0))
            rows = sorted(rows, key=lambda r: r.abs().sum())  # error: TL015
            return torch.stack(rows)
        """,
        FN,
    ),
    "sorted_tensor_values": Case(
        """
        import torch

        @torch.compile
        def f(x):
            a, b = x[0].sum(), x[1].sum()
            lo = sorted([a, b])  # error: TL015
            return lo[0]
        """,
        FN,
    ),
    "max_with_tensor_key": Case(
        """
        import torch

        @torch.compile
        def f(x):
            rows = list(x.unbind(0))
            return max(rows, key=lambda r: r.mean())  # error: TL015
        """,
        FN,
    ),
    "lookalike_sorting_shapes_and_names": Case(
        """
        import torch

        @torch.compile
        def f(x):
            dims = sorted(x.shape)
            names = sorted(["b", "a"], key=lambda s: s.lower())
            top = max(x[0].sum(), x[1].sum())
            return x * dims[0] * len(names) + top
        """,
        FN,
    ),
    "lookalike_isinstance_proves_a_number": Case(
        """
        import numbers
        from typing import Union

        import torch

        def to_rgba(image: torch.Tensor, alpha: Union[float, torch.Tensor]) -> torch.Tensor:
            if isinstance(alpha, float):
                a = torch.full_like(image[:, :1], fill_value=float(alpha))
            else:
                a = alpha
            return torch.cat([image, a], dim=1)

        def gamma_of(x: torch.Tensor, gamma: Union[float, torch.Tensor]) -> torch.Tensor:
            if isinstance(gamma, (int, float)) and x.ndim > 0:
                if 0.0 <= gamma <= 10.0:
                    return x**gamma
            if isinstance(gamma, numbers.Number) or gamma > 0:  # error: TL005
                return x * 2
            return x

        @torch.compile
        def f(x):
            y = to_rgba(x, 0.5)
            return gamma_of(y, torch.tensor(0.5)) + gamma_of(y, 0.7)
        """,
        FN,
    ),
    "lookalike_isinstance_before_a_truth_test_in_an_and": Case(
        """
        import torch

        def keep(x, default):
            if not isinstance(default, (torch.Tensor, list)) or (isinstance(default, list) and default):
                raise ValueError("a state is a tensor or an empty list")
            return x

        @torch.compile
        def f(x):
            y = x * 2
            z = keep(x, x.sum()) + keep(x, []).sum()
            if isinstance(y, list) or y.sum() > 0:  # error: TL005
                return z * 2
            return z
        """,
        FN,
    ),
    "a_parenthesized_test_over_lines_is_reported_where_it_opens": Case(
        """
        import torch

        @torch.compile
        def f(x):
            y = x * 2
            if (  # error: TL005
                (y < 0).any()
                or (y > 100).any()
            ):
                return y + 1
            return y
        """,
        FN,
    ),
    "a_name_rebound_in_an_if_without_else_may_still_be_a_tensor": Case(
        """
        import torch

        @torch.compile
        def f(x, clip=False):
            y = x.sum()
            if clip:
                y = 0.0
            if y > 0:  # error: TL005
                return x * 2
            return x
        """,
        FN,
    ),
    "tensors_gathered_by_tuple_of_a_generator": Case(
        """
        from typing import Dict

        import torch

        KEYS = ("a", "b")

        def dispatch(x: torch.Tensor, params: Dict[str, torch.Tensor], neutral):
            factors = tuple(params[k] for k in KEYS)
            for idx in range(2):
                if (factors[idx] != neutral[idx]).any():  # error: TL005
                    x = x * factors[idx]
            return x

        @torch.compile
        def f(x):
            return dispatch(x, {"a": x.mean(), "b": x.sum()}, (0.0, 1.0))
        """,
        FN,
    ),
    "tensors_of_a_list_comprehension": Case(
        """
        import torch

        @torch.compile
        def f(x):
            rows = [r * 2 for r in x.unbind(0)]
            if rows[0].sum() > 0:  # error: TL005
                x = x + 1
            names = [str(i) for i in range(3)]
            if names[0] == "0":
                x = x * 2
            return x
        """,
        FN,
    ),
    "a_tensor_only_method_on_an_unknown_value": Case(
        """
        import torch

        def rms(t):
            return t.pow(2).mean().sqrt()

        def initial_step(y0, f0, norm):
            scale = 1e-3 + torch.abs(y0) * 1e-3
            d0 = norm(y0 / scale).abs()
            d1 = norm(f0 / scale).abs()
            if d0 < 1e-5 or d1 < 1e-5:  # error: TL005
                return torch.tensor(1e-6)
            return 0.01 * d0 / d1

        @torch.compile
        def f(x):
            return x * initial_step(x, x * 2, rms)
        """,
        FN,
    ),
    "lookalike_tensors_sorted_by_a_size_key": Case(
        """
        import torch

        @torch.compile
        def f(x):
            parts = [x[:2], x[2:]]
            parts = sorted(parts, key=lambda t: t.shape[0])
            seqs = [x[:1], x[:3]]
            seqs.sort(key=len)
            return torch.cat(parts) + seqs[0].sum()
        """,
        FN,
    ),
    "sorted_by_a_torch_function_key": Case(
        """
        import torch

        @torch.compile
        def f(x):
            rows = list(x.unbind(0))
            rows = sorted(rows, key=torch.norm)  # error: TL015
            return rows[0] * 2
        """,
        FN,
    ),
    # ---------------------------------------------------------------- tensor look-alikes
    "lookalike_dtype_device_size": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rows = nn.Embedding(16, 8)

            def positions(self, shape: torch.Size, device: torch.device, dtype: torch.dtype):
                height, width = shape[-2:]
                return self.rows(torch.arange(width, device=device)).to(dtype)

            def forward(self, x):
                input_dtype = x.dtype
                if input_dtype == torch.float32:
                    x = x * 1.0
                if torch.is_autocast_enabled():
                    x = x.float()
                return x + self.positions(x.shape, x.device, x.dtype)
        """,
        D,
    ),
    "lookalike_flags_config_none_len": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.config = {"dropout": 0.1}
                self.lin = nn.Linear(8, 8)

            def forward(self, x, mask=None, output_hidden=False, shape=None):
                h = self.lin(x)
                if self.training and self.config["dropout"] > 0:
                    h = h * 0.9
                if mask is not None:
                    h = h * mask
                for _ in range(len(h.shape)):
                    h = h + 0
                if output_hidden:
                    return h, x
                return h
        """,
        D,
    ),
    "dispatched_class_is_not_reported": Case(
        """
        import torch
        from torch import nn
        from .integrations import use_experts_implementation

        @use_experts_implementation
        class Experts(nn.Module):
            def forward(self, x, index):
                hit = index.nonzero()
                return x[hit]
        """,
        None,
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)


def _scope(code: str) -> TensorScope:
    module = cst.parse_module(code)
    scope = TensorScope(ImportTable.from_module(module))
    scope.bind_params(module.body[-1], set(), all_tensors=True)
    return scope


def test_annotations_and_metadata_names_are_not_tensors():
    scope = _scope(
        "import torch\ndef f(x, shape: torch.Size, size, out_dtype, device, flag: bool, h: torch.Tensor): pass\n"
    )
    assert scope.lookup("x") == TENSOR and scope.lookup("h") == TENSOR
    for name in ("shape", "size", "out_dtype", "device", "flag"):
        assert scope.lookup(name) is None, name


def test_numpy_of_literals_is_not_host_data_but_of_values_is():
    scope = _scope("import numpy as np\ndef f(x): pass\n")
    assert scope.kind(cst.parse_expression("np.sqrt(2.0)")) is None
    assert scope.kind(cst.parse_expression("np.mean(x.numpy())")) == HOST_DATA
    assert not scope.is_tensor(cst.parse_expression("np.mean(x.numpy())"))


def test_guessed_parameter_with_tensor_use_counts_as_data():
    scope = _scope("import torch\ndef f(x, n):\n    return x * n.float()\n")
    assert scope.is_tensor_value(cst.parse_expression("n"))
    scope = _scope("def f(x, n):\n    return x * n\n")
    assert not scope.is_tensor_value(cst.parse_expression("n"))


def test_dispatch_decorator_silences_only_that_class():
    code = """
        import torch
        from torch import nn
        from .integrations import use_experts_implementation

        @use_experts_implementation
        class Experts(nn.Module):
            def forward(self, x):
                return x.nonzero()

        class Plain(nn.Module):
            def forward(self, x):
                return x.nonzero()
        """
    assert [f.region for f in findings(code)] == ["Plain.forward"]
