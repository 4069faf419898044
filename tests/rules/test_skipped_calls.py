"""Every call in ``torchlint/data/skipped_calls.json`` really breaks dynamo on the installed torch.

TL009 reads that file, so an entry torch learns to trace must leave it, or be listed in the
torch matrix (torchlint/data/torch_matrix.json) as traced on the versions that trace it: on
a measured torch, an entry must break exactly where the matrix says it does. All examples
run in one compiled function, one per line (dynamo resumes after each skipped call); an
entry whose line did not break there is run again alone before the test gives its verdict.
"""

from __future__ import annotations

import warnings

import pytest

from torchlint import matrix
from torchlint.rules.tl009_skipped_call import skipped_calls

pytestmark = pytest.mark.dynamo
pytest.importorskip("torch", reason="torch is not installed: skipped calls not checked against dynamo")

CALLS = skipped_calls()["calls"]
WITH_EXAMPLE = sorted(name for name, entry in CALLS.items() if entry.get("example"))


def _module(names: list[str], extra: str = "") -> str:
    imports = {CALLS[n]["imports"] for n in names if CALLS[n]["imports"]} | {"import torch"}
    body = [f"    {CALLS[n]['example']}" for n in names] + ([f"    {extra}"] if extra else [])
    return "\n".join(sorted(imports)) + "\n\n\ndef f(x):\n    x = x + 1\n" + "\n".join(body) + "\n    return x * 2\n"


def _break_lines(code: str) -> set[int]:
    from torchlint.dynamic.observe import observe_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, path = observe_source(code, "f", ["f32[4]"])
    return obs.break_lines(path)


_TOGETHER: dict[str, bool] = {}


def _breaks_together(name: str) -> bool:
    if not _TOGETHER:
        code = _module(WITH_EXAMPLE)
        lines = _break_lines(code)
        first = code.splitlines().index("    x = x + 1") + 2
        for i, n in enumerate(WITH_EXAMPLE):
            _TOGETHER[n] = first + i in lines
    return _TOGETHER[name]


def _breaking_here():
    """The entries the matrix says break on the installed torch (None: not a measured version)."""
    installed = matrix.installed_torch()
    key = matrix.minor(installed) if installed else None
    return matrix.skipped_calls(key) if key in matrix.versions() else None


@pytest.mark.dynamo
@pytest.mark.parametrize("name", WITH_EXAMPLE)
def test_skipped_call_breaks_dynamo(name):
    expected = _breaking_here()
    if expected is not None and name not in expected:
        code = _module([name])
        line = code.splitlines().index("    x = x + 1") + 2
        assert line not in _break_lines(code), (
            f"{name} breaks on torch {matrix.installed_torch()}, the matrix says it is traced: re-measure"
        )
        return
    if _breaks_together(name):
        return
    code = _module([name])
    line = code.splitlines().index("    x = x + 1") + 2
    assert line in _break_lines(code), f"{name} no longer breaks dynamo: remove it from skipped_calls.json"


@pytest.mark.dynamo
def test_random_randint_is_traced():
    code = "import random\n\nimport torch\n\n\ndef f(x):\n    k = random.randint(1, 3)\n    return x * k\n"
    assert _break_lines(code) == set()
    assert "random.randint" not in CALLS


def test_every_entry_is_a_dotted_name_with_imports():
    for name, entry in CALLS.items():
        assert "." in name and set(entry) >= {"example", "imports"}, name


def test_numpy_unsupported_is_what_the_installed_torch_lacks():
    """The numpy functions TL009 flags are exactly those with no torch._numpy counterpart."""
    import numpy as np
    from torch._dynamo.variables.misc import get_np_to_tnp_map

    supported = get_np_to_tnp_map()
    lacking = sorted(
        n
        for n in dir(np)
        if not n.startswith("_")
        and callable(getattr(np, n))
        and not isinstance(getattr(np, n), type)
        and getattr(np, n) not in supported
    )
    assert skipped_calls()["numpy_unsupported"]["names"] == lacking


@pytest.mark.dynamo
@pytest.mark.parametrize(
    "call", ["np.interp(0.5, [0.0, 1.0], [0.0, 2.0])", "np.digitize(x.numpy(), [0.0])", "np.nanmean(x.numpy())"]
)
def test_unsupported_numpy_call_breaks(call):
    code = f"import numpy as np\nimport torch\n\n\ndef f(x):\n    x = x + 1\n    v = {call}\n    return x * 2\n"
    assert 7 in _break_lines(code)
