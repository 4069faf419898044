"""Which branches the static pass checks: the ones dynamo traces under its assumptions.

By default a module is taken to run in eval mode (as the dynamic pass runs targets), with no
``labels`` to compute a loss from, on float32 tensors (as modules are built): code under
``if self.training:``, ``if labels is not None:`` and ``if x.dtype == torch.float16:`` is not
traced, so nothing there is reported (unless a script of the project compiles the model and
calls ``.backward()``: it trains the compiled model). ``--train`` /
``train = true`` and ``--half`` / ``half = true`` check that code too. The dynamo tests check
the assumption itself: the branch dynamo does not trace in eval mode does not break.
"""

from __future__ import annotations

import json

import pytest
from support import run_cli, write

TRAINING = """
import numpy as np
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.layerdrop = 0.1

    def _noise(self, x):
        return x + x.std().item()

    def _plan(self, n):
        plan = np.zeros(n)
        if not self.training:
            return plan
        return np.random.permutation(n)

    def forward(self, x):
        if self.training and self.layerdrop > 0.0:
            p = torch.rand([])
            if p < self.layerdrop:
                return x
        if self.training:
            self._noise(x)
        self._plan(4)
        y = self.fc(x) if not self.training else self.fc(x) * x.max().item()
        if (x > 0).all() and self.training:
            y = y + 1
        return y
"""
# line -> rule of what breaks in training, and what still breaks in eval
IN_TRAINING = {13: "TL001", 19: "TL009", 24: "TL005", 29: "TL001", 30: "TL005"}
IN_EVAL = {30: "TL005"}


def findings(folder, *extra):
    result = run_cli(
        ["check", ".", "--no-dynamic", "--no-cache", "--format", "json", "--exit-zero", *extra], cwd=folder
    )
    assert result.exit_code == 0, result.output
    return {(f["path"], f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]}


def at(name, table):
    return {(name, line, rule) for line, rule in table.items()}


def test_training_only_code_is_not_checked_in_eval_mode(tmp_path):
    write(tmp_path, "enc.py", TRAINING)
    # `(x > 0).all() and self.training` still reads the tensor first, in eval mode too
    assert findings(tmp_path) == at("enc.py", IN_EVAL)


def test_train_checks_training_only_code_from_the_command_line_and_the_config(tmp_path):
    write(tmp_path, "enc.py", TRAINING)
    assert findings(tmp_path, "--train") == at("enc.py", IN_TRAINING)
    write(tmp_path, "pyproject.toml", "[tool.torchlint]\ntrain = true\n")
    assert findings(tmp_path) == at("enc.py", IN_TRAINING)


def test_a_script_that_compiles_and_calls_backward_trains_the_model(tmp_path):
    """A module is in training mode until eval(): a training loop over a compiled model runs
    its training-only code, so the project is checked as with --train."""
    write(tmp_path, "enc.py", TRAINING)
    write(
        tmp_path,
        "train.py",
        """
        import torch

        from enc import Encoder

        model = torch.compile(Encoder())
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            loss = model(torch.randn(4, 8)).sum()
            loss.backward()  # trains the compiled model
            opt.step()
    """,
    )
    assert findings(tmp_path) == at("enc.py", IN_TRAINING)
    # a comment that mentions backward, or no compile call, is no training script
    write(tmp_path, "train.py", "import torch\n# loss.backward() happens elsewhere\nm = torch.compile(f)\n")
    assert findings(tmp_path) == at("enc.py", IN_EVAL)


def test_a_helper_in_another_file_called_only_in_training_is_no_region(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(
        tmp_path,
        "pkg/aug.py",
        """
        def jitter(x):
            return x * x.std().item()


        def scale(x):
            return x * x.abs().max().item()
    """,
    )
    write(
        tmp_path,
        "pkg/model.py",
        """
        from torch import nn

        from .aug import jitter, scale


        class Net(nn.Module):
            def forward(self, x):
                if self.training:
                    x = jitter(x)
                if not self.training:
                    return scale(x)
                return x
    """,
    )
    assert findings(tmp_path) == {("pkg/aug.py", 6, "TL001")}
    assert findings(tmp_path, "--train") == {("pkg/aug.py", 2, "TL001"), ("pkg/aug.py", 6, "TL001")}


def test_the_loss_computed_when_labels_are_given_is_training_code(tmp_path):
    write(
        tmp_path,
        "head.py",
        """
        import logging

        from torch import nn

        logger = logging.getLogger(__name__)


        class Head(nn.Module):
            def forward(self, x, labels=None, use_cache=True):
                if labels is not None:
                    if use_cache:
                        logger.warning("use_cache is turned off when labels are given")
                    keep = labels >= 0
                    return x[keep].mean()
                if labels is None and x.sum() > 0:
                    x = x + 1
                return x
    """,
    )
    assert findings(tmp_path) == {("head.py", 15, "TL005")}
    assert findings(tmp_path, "--train") == {
        ("head.py", 12, "TL009"),
        ("head.py", 14, "TL008"),
        ("head.py", 15, "TL005"),
    }


def test_half_precision_only_code_is_checked_with_half(tmp_path):
    write(
        tmp_path,
        "layer.py",
        """
        import torch
        from torch import nn


        class Layer(nn.Module):
            def forward(self, h):
                if h.dtype == torch.float16 and not torch.isfinite(h).all():
                    h = h.clamp(-100, 100)
                if h.dtype in (torch.float16, torch.bfloat16):
                    print(h)
                if h.dtype != torch.bfloat16:
                    return h
                print("bfloat16")
                return h
    """,
    )
    assert findings(tmp_path) == set()
    assert findings(tmp_path, "--half") == {
        ("layer.py", 7, "TL005"),
        ("layer.py", 10, "TL004"),
        ("layer.py", 13, "TL004"),
    }


def test_a_bad_value_for_the_keys_is_a_config_error(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.torchlint]\ntrain = 'yes'\n")
    write(tmp_path, "m.py", "x = 1\n")
    result = run_cli(["check", ".", "--no-dynamic"], cwd=tmp_path)
    assert result.exit_code == 2 and "train: expected true or false" in result.output


@pytest.mark.dynamo
def test_dynamo_traces_what_the_assumptions_say():
    """Ground truth: in eval mode the training-only lines do not break; in training they do
    (the forward and backward run); float32 inputs do not break on the half-precision lines."""
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import break_lines_of_source

    code = TRAINING.lstrip("\n")
    assert break_lines_of_source(code, "Encoder", ["f32[4,8]"]) == set(IN_EVAL)
    # in training, the layer-drop draw (line 24) decides whether the rest runs at all
    trained = break_lines_of_source(code, "Encoder", ["f32[4,8]"], train=True)
    assert 24 in trained and trained <= set(IN_TRAINING)
    half = """
import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, h):
        if h.dtype == torch.float16 and not torch.isfinite(h).all():
            h = h.clamp(-100, 100)
        return h
"""
    assert break_lines_of_source(half.lstrip("\n"), "Layer", ["f32[4,8]"]) == set()
    assert break_lines_of_source(half.lstrip("\n"), "Layer", ["f16[4,8]"]) == {7}


DEPRECATED = """
import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


def deprecate(name):
    warnings.warn(f"`{name}` is deprecated", FutureWarning)


class Block(nn.Module):
    def forward(self, x, scale=None, old=None, odd=None, bad=None):
        if scale is not None:
            logger.warning("Passing `scale` is deprecated and will be ignored.")
        if old is not None:
            warnings.warn("`old` goes away in 2.0", FutureWarning)
        if odd is not None:
            logger.warning(f"`odd`={odd} is not used by " + "this block")
        if bad is not None:
            warnings.warn("`bad` looks wrong", UserWarning)
        if x.dim() > 1:
            deprecate("flat inputs")
        return x * 2
"""


def test_a_warning_about_a_deprecated_use_is_not_checked(tmp_path):
    """The warnings a caller gets for passing what is deprecated (under a test of the
    parameters) run only then: like an error path they are the caller's to change. Any other
    warning in the region is checked, and so is a helper that warns of a deprecation whatever
    it is handed: the library's own code calls it."""
    write(tmp_path, "block.py", DEPRECATED + "\n\nmodel = torch.compile(Block())\n")
    assert findings(tmp_path) == {("block.py", 11, "TL009"), ("block.py", 21, "TL009"), ("block.py", 23, "TL009")}


@pytest.mark.dynamo
def test_dynamo_breaks_on_a_deprecation_warning_only_when_it_is_used():
    pytest.importorskip("torch")
    import torch

    from torchlint.dynamic.observe import break_lines_of_source

    code = DEPRECATED.lstrip("\n")
    x = torch.randn(4, 8)
    assert break_lines_of_source(code, "Block", [x[0]]) == set()
    assert break_lines_of_source(code, "Block", [x[0], 0.5, 1]) == {17, 19}
    assert break_lines_of_source(code, "Block", [x]) == {11}
