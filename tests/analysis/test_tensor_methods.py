"""The shipped list of torch.Tensor's attribute names is the installed torch's."""

from __future__ import annotations

import json

import pytest
from support import REPO, run_cli, write

from torchlint.analysis.tensors import tensor_method_names


@pytest.mark.dynamo
def test_the_list_is_the_installed_torchs():
    torch = pytest.importorskip("torch")
    data = json.loads((REPO / "torchlint" / "data" / "tensor_methods.json").read_text())
    if data["torch"] != torch.__version__.split("+")[0]:
        pytest.skip(f"the list was made on torch {data['torch']}")
    assert tensor_method_names() == {n for n in dir(torch.Tensor) if not n.startswith("_")}


def test_a_parameter_used_through_a_non_tensor_method_is_no_tensor(tmp_path):
    write(
        tmp_path,
        "attn.py",
        """
        from torch import nn


        class Attention(nn.Module):
            def forward(self, hidden, cache=None):
                if cache is not None and cache.get_seq_length(0) > 0:
                    hidden = hidden * 2
                if hidden.sum() > 0:
                    hidden = hidden + 1
                return hidden
    """,
    )
    out = run_cli(["check", ".", "--no-dynamic", "--no-cache", "--format", "json", "--exit-zero"], cwd=tmp_path)
    assert [(f["line"], f["rule"]) for f in json.loads(out.stdout)["findings"]] == [(8, "TL005")]
