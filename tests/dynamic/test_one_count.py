"""One count through every door: a four-file package (a model whose base class is in another
file, a helper with an ``.item()`` and a ``print`` reached from ``forward``, a training script)
gives the same graph-break sites and hits whichever paths are given, with or without the
static pass, through ``torchlint run`` and through ``pytest --torchlint`` beside
``assert_graph_breaks``; its recompiles are told once per cause."""

import json
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.dynamo

FILES = {
    "pyproject.toml": '[tool.torchlint]\n\n[[tool.torchlint.targets]]\ntarget = "pkg/model.py:Model"\n'
    'input-sets = ["f32[8,16]", "f32[8,16]", "f32[4,16]", "f32[4,16]"]\n',
    "pkg/__init__.py": "",
    "pkg/base.py": "import torch\nfrom torch import nn\n\n\nclass Base(nn.Module):\n"
    "    def __init__(self, dim: int = 16):\n        super().__init__()\n"
    "        self.proj = nn.Linear(dim, dim)\n",
    "pkg/model.py": "import torch\n\nfrom .base import Base\nfrom .utils import scale\n\n\nclass Model(Base):\n"
    "    def forward(self, x):\n        y = self.proj(x)\n        y = scale(y)\n"
    "        if y.sum() > 0:\n            y = y * 2\n        return y\n",
    "pkg/utils.py": "import torch\n\n\ndef scale(x):\n    s = x.abs().max().item()\n"
    '    print("scale", s)\n    return x / s\n',
    "train.py": "import torch\n\nfrom pkg.model import Model\n\n\ndef main():\n    model = Model()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    step = torch.compile(model)\n"
    "    for bs in (8, 8, 4, 4):\n        loss = step(torch.randn(bs, 16)).sum()\n"
    "        loss.backward()\n        opt.step()\n        opt.zero_grad()\n\n\n"
    'if __name__ == "__main__":\n    main()\n',
    "tests/test_model.py": "import json, os\n\nimport torch\n\nfrom pkg.model import Model\n"
    "from torchlint.testing import assert_graph_breaks\n\n\ndef test_model():\n"
    "    from torchlint.dynamic.load import materialize_call\n"
    "    from torchlint.dynamic.specs import parse_input\n"
    "    calls = [tuple(materialize_call([parse_input(f'f32[{n},16]')])[0])\n"
    "             for n in (8, 8, 4, 4)]  # the inputs `check` makes of the specs\n"
    "    torch.manual_seed(0)  # the weights `check` gives the model\n"
    "    report = assert_graph_breaks(Model(), max_breaks=10, calls=calls)\n"
    "    t = report.targets[0]\n"
    "    with open(os.environ['COUNTS_OUT'], 'w') as f:\n"
    "        json.dump([t.graph_breaks, t.graph_break_hits, t.recompiles], f)\n\n\n"
    "def test_compiled():\n    m = torch.compile(Model())\n"
    "    for n in (8, 8, 4, 4):\n        m(torch.randn(n, 16))\n",
}


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("four_files")
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def torchlint(root, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "torchlint", *args], cwd=root, capture_output=True, text=True, timeout=300, env=env
    )


def counts(root, *args):
    out = torchlint(root, "check", *args, "--format", "json", "--no-cache")
    data = json.loads(out.stdout)
    assert data["errors"] == [], data["errors"]
    s = data["summary"]
    return (s["graph_breaks"], s["graph_break_hits"]), data


def test_the_count_is_one_whatever_the_paths(package):
    seen = {args: counts(package, *args) for args in [(".",), ("pkg/model.py",), ("train.py",), ("--no-static", ".")]}
    numbers = {args: c for args, (c, _) in seen.items()}
    assert set(numbers.values()) == {(3, 7)}, numbers
    # the forward's calling line of the helper's breaks is never a site of its own
    for args, (_, data) in seen.items():
        sites = {(f["path"], f["line"]) for f in data["findings"] if f["source"] != "static"}
        assert ("pkg/model.py", 10) not in sites, (args, sites)
    # a break in a file that was not given gets the label `check .` gives it
    labels = {
        args: sorted(
            (f["path"], f["line"], f["rule"], f["source"]) for f in data["findings"] if f["path"] == "pkg/utils.py"
        )
        for args, (_, data) in seen.items()
        if "--no-static" not in args
    }
    assert len({tuple(v) for v in labels.values()}) == 1, labels
    assert labels[(".",)] == [("pkg/utils.py", 5, "TL001", "both"), ("pkg/utils.py", 6, "TL004", "both")]


def test_recompiles_are_told_once_per_cause(package):
    out = torchlint(package, "check", "pkg/model.py", "--no-cache")
    text = out.stdout
    assert "3 graph-break sites, 7 breaks hit, 4 graphs, 4 recompiles (eval, default compile mode" in text, text
    assert text.count("torch._dynamo.mark_dynamic") == 1, text
    assert re.search(r"recompiled: dimension 0 of .* changed from 8 to 4: 4 recompiles in 4 frames", text), text
    assert "3 graph-break sites, 7 breaks hit in 1 target" in text, text
    _, data = counts(package, ".")
    (cause,) = data["targets"][0]["recompile_causes"]
    assert cause["recompiles"] == data["summary"]["recompiles"] == 4 and cause["input_sets"] == [3]


def test_run_counts_as_check_and_says_it_saw_training(package, tmp_path):
    torchlint(package, "run", "--format", "json", "-o", str(tmp_path / "run.json"), "train.py")
    data = json.loads((tmp_path / "run.json").read_text())
    (target,) = data["targets"]
    # the same sites as `check`; the hits are training's (the script trains, `check` runs eval)
    assert data["summary"]["graph_breaks"] == target["graph_breaks"] == 3, target
    assert target["run_mode"] == "training"
    text = torchlint(package, "run", "train.py").stdout
    assert f"3 graph-break sites, {target['graph_break_hits']} breaks hit" in text and "(training" in text, text


def test_pytest_plugin_counts_as_check_and_never_negative(package, tmp_path):
    env = dict(os.environ, COUNTS_OUT=str(tmp_path / "counts.json"))
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--torchlint", "tests/test_model.py"],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    assert not re.search(r"-\d+ (graph|compile)", text), text
    breaks, hits, recompiles = json.loads((tmp_path / "counts.json").read_text())
    (check_counts, data) = counts(package, ".")
    assert (breaks, hits) == check_counts and recompiles == data["summary"]["recompiles"]
    assert "3 graph-break sites" in text, text


def test_the_pytest_session_counts_what_assert_graph_breaks_saw(package, tmp_path):
    """A session whose only compiles are ``assert_graph_breaks``'s: the session's report gives the
    assertion's sites, hits and recompiles, never 0 beside a failure that lists the breaks."""
    env = dict(os.environ, COUNTS_OUT=str(tmp_path / "counts.json"))
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--torchlint"]
        + ["tests/test_model.py::test_model"],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    breaks, hits, recompiles = json.loads((tmp_path / "counts.json").read_text())
    assert breaks > 0, text
    session = re.search(
        r"pytest session: (\d+) graph-break sites?, (\d+) breaks? hit, \d+ graphs?, (\d+) recompiles?", text
    )
    assert session is not None, text
    assert tuple(int(g) for g in session.groups()) == (breaks, hits, recompiles), text
