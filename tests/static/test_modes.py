"""Eval and training both: which modes the static pass checks, and the mode each finding holds in."""

from __future__ import annotations

import pytest
from support import run_cli, run_json, write

from torchlint.findings import Finding
from torchlint.merge import merge
from torchlint.rules import all_rules
from torchlint.static.lint import lint_source_modes
from torchlint.static.modes import has_training_loop, reads_mode

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, labels=None):
        y = self.fc(x)
        print(y)
        if self.training:
            y = y * float(y.sum())
        else:
            y = y * y.sum().item()
        if labels is not None:
            return (y - labels).pow(2).mean() * y.max().item()
        return y
"""
# line: 12 print (both), 14 float (train), 16 item (eval), 18 item (train, the loss)
TRAIN_SCRIPT = """
import torch
from model import Net

net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loss = net(torch.randn(2, 4), labels=torch.randn(2, 4))
loss.backward()
opt.step()
"""


def _modes(findings):
    return {(f["line"], f["rule"]): f.get("mode") for f in findings}


def test_a_project_that_trains_is_checked_in_both_modes_and_each_finding_labelled(project):
    write(project, "pyproject.toml", "[tool.torchlint]\n")
    write(project, "model.py", MODEL)
    write(project, "train.py", TRAIN_SCRIPT)
    # only the model is given: the training loop in another file of the project decides
    _, report = run_json(["check", "model.py", "--no-dynamic", "--no-cache"])
    assert _modes(report["findings"]) == {
        (12, "TL004"): None,
        (14, "TL002"): "train",
        (16, "TL001"): "eval",
        (18, "TL001"): "train",
    }


def test_a_project_without_a_training_loop_is_checked_in_eval(project):
    write(project, "pyproject.toml", "[tool.torchlint]\n")
    write(project, "model.py", MODEL)
    _, report = run_json(["check", "model.py", "--no-dynamic", "--no-cache"])
    assert _modes(report["findings"]) == {(12, "TL004"): None, (16, "TL001"): None}


@pytest.mark.parametrize(
    "how, expected",
    [
        (["--module-mode", "train"], {(12, "TL004"): None, (14, "TL002"): None, (18, "TL001"): None}),
        (["--module-mode", "eval"], {(12, "TL004"): None, (16, "TL001"): None}),
        (
            ["--module-mode", "both"],
            {(12, "TL004"): None, (14, "TL002"): "train", (16, "TL001"): "eval", (18, "TL001"): "train"},
        ),
    ],
)
def test_the_setting_keeps_one_mode_or_both(project, how, expected):
    write(project, "pyproject.toml", "[tool.torchlint]\n")
    write(project, "model.py", MODEL)
    write(project, "train.py", TRAIN_SCRIPT)
    _, report = run_json(["check", "model.py", "--no-dynamic", "--no-cache", *how])
    assert _modes(report["findings"]) == expected
    # the same from the config
    write(project, "pyproject.toml", f'[tool.torchlint]\nmodule-mode = "{how[1]}"\n')
    _, report = run_json(["check", "model.py", "--no-dynamic", "--no-cache"])
    assert _modes(report["findings"]) == expected


def test_a_bad_module_mode_in_the_config_is_a_usage_error(project):
    write(project, "pyproject.toml", '[tool.torchlint]\nmodule-mode = "training"\n')
    write(project, "model.py", MODEL)
    result = run_cli(["check", "model.py", "--no-dynamic"])
    assert result.exit_code == 2
    assert "module-mode" in result.stderr and "training" in result.stderr


def test_text_output_says_training_only_and_eval_only(project):
    write(project, "pyproject.toml", '[tool.torchlint]\nmodule-mode = "both"\n')
    write(project, "model.py", MODEL)
    out = run_cli(["check", "model.py", "--no-dynamic", "--no-cache"]).stdout
    lines = [line for line in out.splitlines() if line.startswith("model.py:")]
    assert [("training only" in line, "eval only" in line) for line in lines] == [
        (False, False),
        (True, False),
        (False, True),
        (True, False),
    ]


def test_training_loops_are_told_from_look_alikes():
    assert has_training_loop("loss.backward()\n")
    assert has_training_loop("optimizer.step()\n")
    assert has_training_loop("self.optim.step(closure)\n")
    assert has_training_loop("class M(L.LightningModule):\n    def training_step(self, batch, i):\n        pass\n")
    assert not has_training_loop("# loss.backward()\n")
    assert not has_training_loop("scheduler.step()\nx = model(y)\n")
    assert not has_training_loop("import torch\ny = torch.compile(model)(x)\n")
    assert reads_mode("if self.training:\n    pass\n")
    assert reads_mode("if labels is not None:\n    pass\n")
    assert not reads_mode("training_args = 1\nlabels = []\n")


def _break(line: int, modes: tuple[str, ...]) -> Finding:
    f = Finding(None, "graph-break", "model.py", line, 1, line, 2, "graph break", "", source="dynamic")
    f.seen_in(modes)
    return f


def test_a_finding_of_one_mode_is_confirmed_only_by_a_break_seen_in_that_mode():
    found = lint_source_modes(MODEL.lstrip("\n"), "model.py", [r for r in all_rules() if r.severity == "error"])
    item_train = next(f for f in found if f.line == 18 and f.rule == "TL001")
    item_eval = next(f for f in found if f.line == 16)
    assert (item_train.mode, item_eval.mode) == ("train", "eval")
    merged = merge([item_train, item_eval], [_break(18, ("eval",)), _break(16, ("eval",))])
    by_line = {f.line: f.source for f in merged if f.rule}
    assert by_line == {18: "static", 16: "both"}  # an eval run never reaches the loss
    merged = merge([item_train], [_break(18, ("train",))])
    assert [(f.source, f.mode) for f in merged] == [("both", "train")]
    # a break seen in both kinds of run: no label; seen only in training: "train"
    both = _break(18, ("eval",))
    both.seen_in(("train",))
    assert both.mode is None and both.to_dict().get("mode") is None
    assert _break(18, ("train",)).to_dict()["mode"] == "train"


@pytest.mark.dynamo
def test_the_training_only_breaks_are_where_dynamo_breaks_in_training_alone():
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import observe_source

    code = MODEL.lstrip("\n").split("        if labels is not None:")[0] + "        return y\n"
    found = lint_source_modes(code, "model.py", [r for r in all_rules() if r.severity == "error"])
    assert {f.mode for f in found} == {None, "train", "eval"}
    inputs = ["f32[2,4]"]
    in_eval, path = observe_source(code, "Net", inputs, train=False)
    in_train, path_t = observe_source(code, "Net", inputs, train=True)
    eval_lines, train_lines = in_eval.break_lines(path), in_train.break_lines(path_t)
    for f in found:
        if f.mode == "train":
            assert f.line in train_lines - eval_lines, f
        elif f.mode == "eval":
            assert f.line in eval_lines - train_lines, f
        else:
            assert f.line in eval_lines & train_lines, f


LOSSES = """
import torch
from torch import nn


class PairLoss(nn.Module):
    def forward(self, emb, labels):
        pos = emb[labels > 0]
        return pos.pow(2).mean()


class ClipLoss(nn.Module):
    def forward(self, pred, target):
        print("clip")
        return (pred - target).abs().mean()
"""
# line: 7 boolean-mask index (a loss no model calls: training only), 13 print (a loss the
# model's forward calls: both modes)
SCORER = """
from torch import nn
from losses import ClipLoss


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.crit = ClipLoss() if True else None

    def forward(self, x, target):
        return self.crit(self.fc(x), target)
"""


def test_a_loss_no_model_calls_holds_in_training_when_the_project_trains(project):
    write(project, "pyproject.toml", "[tool.torchlint]\n")
    write(project, "losses.py", LOSSES)
    write(project, "scorer.py", SCORER)
    _, report = run_json(["check", "losses.py", "--no-dynamic", "--no-cache"])
    assert _modes(report["findings"]) == {(7, "TL008"): None, (13, "TL004"): None}  # eval alone: every forward
    write(project, "train.py", TRAIN_SCRIPT)
    for given in (["losses.py"], ["."]):
        _, report = run_json(["check", *given, "--no-dynamic", "--no-cache"])
        found = {(f["line"], f["rule"]): f.get("mode") for f in report["findings"] if f["path"] == "losses.py"}
        assert found == {(7, "TL008"): "train", (13, "TL004"): None}


def test_an_autograd_function_handed_one_tensor_twice_is_checked_in_training(project):
    # the file reads no mode, and its Function comes from another file: TL010 still checks it
    write(project, "pyproject.toml", "[tool.torchlint]\n")
    write(
        project,
        "ops.py",
        "import torch\n\n\nclass Gate(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, g, m, x):\n        return x * g * m\n\n    @staticmethod\n"
        "    def backward(ctx, grad):\n        return None, None, grad\n",
    )
    write(
        project,
        "net.py",
        "from torch import nn\n\nfrom ops import Gate\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        m = (x > 0).float()\n        return Gate.apply(m, m, x)\n",
    )
    write(project, "train.py", TRAIN_SCRIPT.replace("from model import Net", "from net import Net"))
    _, report = run_json(["check", ".", "--no-dynamic", "--no-cache"])
    assert _modes(report["findings"]) == {(9, "TL010"): "train"}
    assert reads_mode("Gate.apply(m, m, x)") and not reads_mode("model.apply(init)")
