"""The generated knowledge (``torchlint/data/knowledge-<version>.json``, written by
``benchmarks/knowledge.py``): read for the right torch without importing it, used by TL009 and
TL008, and proven again here by running its examples through dynamo on the installed torch."""

from __future__ import annotations

import warnings

import pytest
from rule_cases import Case, needs_torch, static_and_dynamo_tests

from torchlint import knowledge, matrix

D = {"inputs": ["f32[2,8]"]}

CASES = {
    "stdlib_calls_dynamo_skips": Case(
        """
        import inspect
        import io
        import json
        import os
        import sys
        import traceback
        import warnings

        import torch
        from torch import nn

        def describe(t):
            return t

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                src = inspect.getsource(describe)  # error: TL009
                stack = traceback.format_stack()  # error: TL009
                pid = os.getpid()  # error: TL009
                os.environ["STEP"] = "1"  # error: TL009
                size = sys.getsizeof(y)  # error: TL009
                text = json.dumps({"n": 1})  # error: TL009
                buf = io.BytesIO()  # error: TL009
                torch.save(y, buf)  # error: TL009
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # error: TL009
                    y = y + 1
                return y * 2, src, stack, pid, size, text
        """,
        D,
    ),
    "stdlib_calls_dynamo_traces_stay_silent": Case(
        """
        import os
        import warnings

        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                home = os.environ.get("HOME")
                where = os.path.join("a", "b")
                with warnings.catch_warnings():
                    y = y + 1
                return y * 2, home, where
        """,
        D,
    ),
    "numpy_draws_without_a_size_and_numpy_generators": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                if np.random.rand() < 0.5:  # error: TL009
                    y = y * 2
                scale = np.random.uniform(0.5, 1.5)  # error: TL009
                rng = np.random.default_rng(0)  # error: TL009
                noise = rng.standard_normal(8)  # error: TL009
                return y * scale + torch.from_numpy(noise).float()
        """,
        D,
    ),
    "numpy_draws_given_a_size_stay_silent": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                a = torch.from_numpy(np.random.rand(8)).float()
                b = torch.from_numpy(np.random.normal(0.0, 1.0, size=8)).float()
                c = torch.from_numpy(np.random.randint(0, 3, (8,))).float()
                return y + a + b + c
        """,
        D,
    ),
    "measured_tensor_methods": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                off = y.storage_offset()  # error: TL009
                close = y.allclose(x)  # error: TL009
                return y * 2, off, close
        """,
        D,
    ),
    "traced_tensor_methods_stay_silent": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                flags = (y.is_contiguous(), y.is_floating_point(), y.is_complex(), y.dim(), y.stride())
                return y * 2, flags
        """,
        D,
    ),
    "measured_context_manager_dynamo_cannot_enter": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                with torch.random.fork_rng():  # error: TL013
                    y = y + torch.rand_like(y)
                return y * 2
        """,
        D,
    ),
    "measured_attention_backend_context": Case(
        """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 24)

            def forward(self, x):
                q, k, v = self.proj(x).chunk(3, dim=-1)
                with torch.backends.cuda.sdp_kernel(enable_math=True):  # error: TL013
                    out = F.scaled_dot_product_attention(q, k, v)
                with torch.autocast("cpu", enabled=False):
                    out = out * 2
                return out
        """,
        {"target": "Net", "inputs": ["f32[2,4,8]"]},
    ),
    "measured_numpy_functions": Case(
        """
        import numpy as np
        import torch
        from torch import nn

        def quadrature(n):
            nodes, weights = np.polynomial.legendre.leggauss(n)  # error: TL009
            return torch.as_tensor(nodes), torch.as_tensor(weights)

        def grid(n):
            return torch.as_tensor(np.linspace(0.0, 1.0, n) * np.sqrt(2.0))

        class Net(nn.Module):
            def forward(self, x):
                nodes, weights = quadrature(4)
                return x * nodes.float() * weights.float() + grid(4).float()
        """,
        {"target": "Net", "inputs": ["f32[2,4]"]},
    ),
    "measured_random_draws_given_a_generator": Case(
        """
        import torch
        from torch import nn

        SEEDED = torch.Generator().manual_seed(0)

        class Noisy(nn.Module):
            def forward(self, x, generator=None):
                a = torch.randn(x.shape, generator=generator)
                b = torch.rand(x.shape, generator=None)
                c = torch.randn(x.shape, generator=SEEDED)  # error: TL009
                d = torch.empty_like(x).uniform_(generator=SEEDED)  # error: TL009
                g = torch.Generator()  # error: TL009
                return x + a + b + c + d, g
        """,
        {"target": "Noisy", "inputs": ["f32[2,4]"]},
    ),
    "measured_redirect_dynamo_cannot_enter": Case(
        """
        import contextlib
        import io

        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                sink = io.StringIO
                with contextlib.redirect_stdout(sink()):  # error: TL013
                    y = y + 1
                return y * 2
        """,
        D,
    ),
    "context_managers_dynamo_enters_stay_silent": Case(
        """
        import contextlib

        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                with contextlib.ExitStack(), contextlib.suppress(KeyError), torch.no_grad():
                    y = y + 1
                with torch.profiler.record_function("block"), contextlib.nullcontext():
                    y = y * 3
                return y * 2
        """,
        D,
    ),
    "measured_tensor_attribute_read_in_training": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                op = type(y.grad_fn).__name__  # error: TL009
                return y.sum() * len(op)
        """,
        {**D, "train": True},
    ),
    "tensor_attributes_traced_stay_silent": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                flags = (y.requires_grad, y.is_leaf, y.shape, y.dtype, y.ndim)
                return y.sum() * len(flags)
        """,
        {**D, "train": True},
    ),
    "measured_heapq_selection": Case(
        """
        import heapq

        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                y = torch.relu(x)
                top = heapq.nlargest(1, [y.shape[0], y.shape[1]])  # error: TL009
                return y * top[0]
        """,
        D,
    ),
    "measured_dynamic_shape_and_data_dependent_ops": Case(
        """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                pairs = torch.combinations(y[0])  # error: TL008
                hot = F.one_hot(y.argmax(-1))  # error: TL008
                c = y.cov()  # error: TL008
                return y * 2, pairs, hot, c
        """,
        D,
    ),
    "measured_ops_called_with_what_fixes_their_size_stay_silent": Case(
        """
        import torch.nn.functional as F
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                y = self.proj(x)
                hot = F.one_hot(y.argmax(-1), 8)
                hot2 = F.one_hot(y.argmax(-1), num_classes=8)
                return y * 2, hot, hot2
        """,
        D,
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)


# --------------------------------------------------------------------------- which file


def test_a_knowledge_file_ships_for_the_ci_torch():
    assert "2.13" in knowledge.measured()
    data = knowledge.load("2.13")
    assert data["torch"].startswith("2.13")
    assert knowledge.skipped_calls(data) and knowledge.dynamic_shape_functions(data)


def test_the_nearest_measured_version_is_read(monkeypatch):
    monkeypatch.setattr(knowledge, "measured", lambda: {"2.13": "a", "2.15": "b"})
    assert knowledge.version_for("2.12") == "2.13"  # older than all: the oldest
    assert knowledge.version_for("2.14") == "2.13"  # between: the newest not newer
    assert knowledge.version_for("2.15") == "2.15"
    assert knowledge.version_for("2.20") == "2.15"
    assert knowledge.version_for(None) == "2.15"  # no torch at all: the newest


def test_the_reported_version_wins_over_the_installed_torch(monkeypatch):
    monkeypatch.setattr(knowledge, "measured", lambda: {"2.13": "a", "2.15": "b"})
    monkeypatch.setattr(matrix, "installed_torch", lambda: None)
    matrix.use_version("2.15")
    try:
        assert knowledge.current_version() == "2.15"
    finally:
        matrix.use_version(None)
    assert knowledge.current_version() == "2.15"  # no torch installed: the newest measured
    monkeypatch.setattr(matrix, "installed_torch", lambda: "2.14.1+cpu")
    assert knowledge.current_version() == "2.13"


def test_static_pass_reads_knowledge_without_torch(tmp_path):
    """Reading the data never imports torch (the static pass runs where torch is absent)."""
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['torch'] = None\nfrom torchlint import knowledge\n"
        "assert knowledge.skipped_calls(knowledge.load('2.13'))\nprint('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# --------------------------------------------------------------------------- proven by dynamo


def _installed_data():
    installed = matrix.installed_torch()
    key = matrix.minor(installed) if installed else None
    if key not in knowledge.measured():
        pytest.skip(f"no knowledge measured for torch {installed}")
    return knowledge.load(key)


def _module(entries: dict) -> tuple[str, list[str]]:
    imports = {i for e in entries.values() for i in e.get("imports", [])} | {"import io", "import torch"}
    names = sorted(entries)
    body = [f"    {entries[n]['example']}" for n in names]
    head = "\n".join(sorted(imports)) + "\n\n\ndef helper(t):\n    return t\n\n\ndef f(x):\n    buf = io.BytesIO()\n"
    return head + "    x = x + 1\n" + "\n".join(body) + "\n    return x * 2\n", names


def _break_lines(code: str, requires_grad: bool = False) -> set[int]:
    import torch

    from torchlint.dynamic.observe import observe_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inputs = [torch.randn(4, requires_grad=True)] if requires_grad else ["f32[4]"]
        obs, path = observe_source(code, "f", inputs, train=requires_grad)
    return obs.break_lines(path)


def _first_line(code: str) -> int:
    return code.splitlines().index("    x = x + 1") + 2


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_every_call_measured_breaking_breaks_dynamo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples may write files
    data = _installed_data()
    breaking = {n: e for n, e in data["calls"].items() if e["verdict"] == "breaks"}
    every = sorted(breaking)
    alone_needed = []
    for start in range(0, len(every), 50):  # (a function each 50: after each break dynamo compiles the rest again)
        code, names = _module({n: breaking[n] for n in every[start : start + 50]})
        lines = _break_lines(code)
        first = _first_line(code)
        alone_needed += [n for i, n in enumerate(names) if first + i not in lines]
    wrong = []
    for name in alone_needed:  # a break can hide the next line's (dynamo resumes after it)
        one, _ = _module({name: breaking[name]})
        if _first_line(one) not in _break_lines(one):
            wrong.append(name)
    assert not wrong, f"measured breaking, traced here: {wrong} (re-run benchmarks/knowledge.py)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_decorators_measured_breaking_break_dynamo_when_applied_and_not_when_made(tmp_path, monkeypatch):
    """`functools.lru_cache(maxsize=8)` is traced; applying what it makes breaks (each alone)."""
    monkeypatch.chdir(tmp_path)
    data = _installed_data()
    breaking = knowledge.breaking_decorators(data)
    assert "functools.lru_cache" in breaking
    wrong = []
    for name, entry in sorted(breaking.items()):
        made = dict(entry, example=entry["example"].removesuffix("(helper)"))
        for case, breaks in ((entry, True), (made, False)):
            one, _ = _module({name: case})
            if (_first_line(one) in _break_lines(one)) != breaks:
                wrong.append((name, case["example"]))
    assert not wrong, f"measured otherwise: {wrong} (re-run benchmarks/knowledge.py)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_generator_consumers_break_at_their_call_as_measured():
    """`all(<generator that breaks>)` breaks at the `all(` line too; `max(...)` only inside."""
    data = _installed_data()
    measured = data.get("generator_consumers", {})
    assert measured["all"]["verdict"] == "breaks" and measured["max"]["verdict"] == "traced"
    wrong = []
    for name, entry in sorted(measured.items()):
        one, _ = _module({name: entry})
        at_call = one.splitlines().index(f"    s = {name}(") + 1
        if (at_call in _break_lines(one)) != (entry["verdict"] == "breaks"):
            wrong.append(name)
    assert not wrong, f"measured otherwise: {wrong} (re-run benchmarks/knowledge.py)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_random_draws_given_a_generator_break_as_measured():
    """Each draw measured with `generator=GEN`, and what is done with a generator, breaks at
    its line (each alone: after a break dynamo compiles the rest again)."""
    measured = _installed_data().get("random_generators", {})
    assert {"torch.Generator", "torch.randn", "Tensor.uniform_"} <= set(measured)
    head = "import torch\n\nGEN = torch.Generator().manual_seed(0)\n\n\ndef f(x):\n    x = x + 1\n"
    wrong = []
    for name, entry in sorted(measured.items()):
        code = head + f"    y = {entry['example']}\n    return x * 2, y\n"
        if (8 in _break_lines(code)) != (entry["verdict"] == "breaks"):
            wrong.append(name)
    assert not wrong, f"measured otherwise: {wrong} (re-run benchmarks/knowledge.py --only randoms)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_numpy_on_numbers_folds_or_breaks_as_measured():
    """numpy of an int read from a shape, and of a float computed from one, used as a size
    and as a number: folded to a constant, or a break at its line, as measured."""
    measured = _installed_data().get("numpy_on_numbers", {})
    assert measured["numpy.sqrt"]["int"]["verdict"] == "traced"
    assert measured["numpy.ceil"]["int"]["verdict"] == "breaks"
    assert measured["numpy.ceil"]["float"]["verdict"] == "traced"
    head = "import numpy as np\nimport torch\n\n\ndef f(x):\n    n = x.shape[-1]\n    h = n / 3\n"
    wrong = []
    for name, entry in sorted(measured.items()):
        for kind in ("int", "float"):
            if kind not in entry:
                continue
            code = head + f"    v = {entry[kind]['example']}\n    return x.new_zeros(int(v)) + float(v)\n"
            if bool(_break_lines(code) & {8, 9}) != (entry[kind]["verdict"] == "breaks"):
                wrong.append(f"{name} ({kind})")
    assert not wrong, f"measured otherwise: {wrong} (re-run benchmarks/knowledge.py --only numbers)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_numpy_draws_break_only_without_a_size(tmp_path, monkeypatch):
    """A draw measured to break for the Python number it returns (``unless_sized``) is traced
    when its sized example asks for an array, each alone; and TL009 reads that example as
    sized and the measured one as not."""
    import libcst as cst

    from torchlint.rules.tl009_skipped_call import _sized

    monkeypatch.chdir(tmp_path)
    data = _installed_data()
    sized = {n: e for n, e in data["calls"].items() if e.get("unless_sized")}
    assert {"numpy.random.rand", "numpy.random.normal", "numpy.random.randint"} <= set(sized)
    wrong = []
    for name, entry in sorted(sized.items()):
        one, _ = _module({name: dict(entry, example=entry["sized_example"])})
        if _first_line(one) in _break_lines(one):
            wrong.append(name)
        assert _sized(cst.parse_expression(entry["sized_example"]), entry), name
        assert not _sized(cst.parse_expression(entry["example"]), entry), name
    assert not wrong, f"sized draws breaking here: {wrong} (re-run benchmarks/knowledge.py)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_methods_of_what_a_breaking_numpy_call_makes_break(tmp_path, monkeypatch):
    """``makes``: the numpy object a breaking call returns (``default_rng()``: a Generator),
    whose methods break in compiled code too (what TL009 flags on it)."""
    monkeypatch.chdir(tmp_path)
    data = _installed_data()
    makers = {n: e for n, e in data["calls"].items() if e.get("makes")}
    assert "numpy.random.default_rng" in makers
    import importlib

    wrong = []
    for name, entry in sorted(makers.items()):
        ns = {"numpy": importlib.import_module("numpy")}
        made = eval(entry["example"], ns)
        method = next(m for m in sorted(dir(made)) if not m.startswith("_") and _runs_bare(made, m))
        code = (
            "\n".join(sorted({*entry["imports"], "import torch"}))
            + f"\n\n\ndef f(x):\n    x = x + 1\n    made = {entry['example']}\n    x = x * 2\n"
            + f"    made.{method}()\n    return x * 3\n"
        )
        line = code.splitlines().index(f"    made.{method}()") + 1
        if line not in _break_lines(code):
            wrong.append(f"{name}: {method}")
    assert not wrong, f"methods of the objects these make traced here: {wrong}"


def _runs_bare(obj: object, method: str) -> bool:
    """Whether ``obj.method()`` runs with no arguments (a method, not an attribute)."""
    try:
        fn = getattr(obj, method)
        if not callable(fn):
            return False
        fn()
    except Exception:  # noqa: BLE001 - needs arguments (or cffi): not the one to try
        return False
    return True


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_calls_measured_traced_compile_whole(tmp_path, monkeypatch):
    """The traced calls of the modules whose breaks TL009 reports (each alone: the examples
    of unrelated modules are not meant to run together)."""
    monkeypatch.chdir(tmp_path)
    data = _installed_data()
    modules = ("os", "sys", "inspect", "traceback", "json", "io", "warnings", "time")
    traced = {n: e for n, e in data["calls"].items() if e["verdict"] == "traced" and n.split(".")[0] in modules}
    assert "os.path.join" in traced and "warnings.catch_warnings" in traced
    wrong = []
    for name in sorted(traced):
        one, _ = _module({name: traced[name]})
        if _first_line(one) in _break_lines(one):
            wrong.append(name)
    assert not wrong, f"measured traced, breaking here: {wrong} (re-run benchmarks/knowledge.py)"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("family", ["dynamic_shape_ops", "data_dependent_ops"])
def test_every_measured_op_breaks_dynamo(family):
    data = _installed_data()
    entries = {**data[family]["functions"], **{f"Tensor.{k}": v for k, v in data[family]["methods"].items()}}
    assert entries
    wrong = []
    for name, entry in sorted(entries.items()):
        code = (
            "import torch\nimport torch.nn.functional\n\n\ndef f(x):\n    x = x.abs()\n"
            f"    y = {entry['example']}\n    return x * 2, y\n"
        )
        if 7 not in _break_lines(code):
            wrong.append(name)
    assert not wrong, f"measured breaking, traced here: {wrong}"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_every_tensor_method_measured_breaking_breaks_dynamo():
    data = _installed_data()
    breaking = {n: e for n, e in data["tensor_methods"].items() if e["verdict"] == "breaks"}
    assert breaking
    wrong = []
    for name, entry in sorted(breaking.items()):
        example = entry["example"]
        call = "y" + example[example.rindex(f".{name}(") :]  # on the receiver the entry was measured on
        make = entry.get("receiver", "y = x.clone()")
        code = (
            f"import torch\n\n\ndef helper(t):\n    return t\n\n\ndef f(x):\n    {make}\n    {call}\n    return x * 2\n"
        )
        if 10 not in _break_lines(code, bool(entry.get("requires_grad"))):
            wrong.append(name)
    assert not wrong, f"measured breaking, traced here: {wrong}"


@needs_torch
@pytest.mark.dynamo
@pytest.mark.filterwarnings("ignore")
def test_every_context_manager_measured_breaking_breaks_dynamo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = _installed_data()
    breaking = {n: e for n, e in data["context_managers"].items() if e["verdict"] == "breaks"}
    assert "threading.Lock" in breaking and "torch.random.fork_rng" in breaking
    assert data["context_managers"]["torch.no_grad"]["verdict"] == "traced"
    wrong = []
    for name, entry in sorted(breaking.items()):
        imports = "\n".join(sorted({*entry["imports"], "import torch"}))
        block = f"    with {entry['example']}:\n        x = x * 2\n"
        code = f"{imports}\n\n\ndef f(x):\n    x = x + 1\n{block}    return x\n"
        if _first_line(code) not in _break_lines(code):
            wrong.append(name)
    assert not wrong, f"measured breaking, traced here: {wrong} (re-run benchmarks/knowledge.py)"


# --------------------------------------------------------------------------- skipped packages

SKIPPED_PACKAGE_MODEL = """
import torch
from sklearn.metrics import f1_score
from torch import nn
from tqdm import tqdm
from tqdm_extra import tqdm as calm

steps = tqdm(range(3))  # (not compiled)


class Net(nn.Module):
    def forward(self, x):
        for i in tqdm(range(2)):
            x = x + i
        for i in calm(range(2)):
            x = x - i
        return x * f1_score([0, 1], [0, 1])


model = torch.compile(Net())
"""


def test_a_call_of_a_package_dynamo_skips_whole_is_tl009(tmp_path):
    """tqdm and sklearn are skipped whole by dynamo's trace rules (measured per torch version,
    `skipped_packages`): any call of theirs in compiled code breaks. A package of another name
    and a call outside the region are not flagged. Nothing is imported."""
    import json

    from support import run_cli, write

    write(tmp_path, "net.py", SKIPPED_PACKAGE_MODEL)
    result = run_cli(["check", "net.py", "--no-dynamic", "--no-cache", "--format", "json", "--exit-zero"], cwd=tmp_path)
    found = {(f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]}
    assert found == {(12, "TL009"), (16, "TL009")}
    assert {"tqdm", "sklearn", "pandas"} <= knowledge.skipped_packages(knowledge.load("2.13"))


@needs_torch
@pytest.mark.dynamo
@pytest.mark.parametrize("package", sorted(knowledge.skipped_packages(knowledge.load("2.13"))))
def test_skipped_packages_break_as_measured(package, tmp_path):
    """A function of each package measured skipped breaks when compiled: the real package
    where it is installed, else a stand-in of that name found first on the path when torch is
    imported (where dynamo's trace rules look packages up). In a child process each."""
    import subprocess
    import sys

    if package not in knowledge.skipped_packages(_installed_data()):
        pytest.skip(f"{package} not measured skipped on this torch")
    site = tmp_path / "site"
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text("def probe(x):\n    return x + 1\n")
    program = f"""
import importlib.util, os, sys
if importlib.util.find_spec({package!r}) is None:
    sys.path.insert(0, {str(site)!r})
import torch
origin = importlib.util.find_spec({package!r}).origin
space = {{}}
exec(compile("def probe(x):\\n    return x + 1\\n", os.path.join(os.path.dirname(origin), "p.py"), "exec"), space)
def f(x):
    return space["probe"](x + 1) * 2
print(torch._dynamo.explain(f)(torch.randn(3)).graph_break_count)
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) >= 1, f"{package}: traced (re-run benchmarks/knowledge.py --only packages)"
