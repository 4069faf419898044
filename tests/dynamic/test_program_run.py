"""`torchlint run`: the user's real program, watched; checked against TORCH_LOGS on the same program.

Each program here is run twice: plainly with ``TORCH_LOGS=graph_breaks,recompiles`` (what
PyTorch itself records) and under ``torchlint run``; the distinct break sites and the
recompilation count must be the same. The programs compile with ``backend="eager"`` so
dynamo's own work (what is checked) is all the time they take.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import BUILT, write

pytest.importorskip("torch")
pytestmark = pytest.mark.dynamo

REPO = Path(__file__).resolve().parents[2]
_SITE = re.compile(r"in user code at (?P<file>.+?):(?P<line>\d+)\s*$", re.M)


def plain_run(argv, cwd, env=None, timeout=300):
    """What TORCH_LOGS=graph_breaks,recompiles records: (distinct break sites, recompiles)."""
    env = dict(env or os.environ, TORCH_LOGS="graph_breaks,recompiles")
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    sites = {(os.path.realpath(m.group("file")), int(m.group("line"))) for m in _SITE.finditer(done.stderr)}
    return sites, done.stderr.count("Recompiling function ")


def torchlint_run(args, cwd, env=None, timeout=300):
    out = Path(cwd) / "torchlint-report.json"
    if out.exists():
        out.unlink()
    done = subprocess.run(
        [sys.executable, "-m", "torchlint", "run", "--format", "json", "-o", str(out), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    report = json.loads(out.read_text()) if out.exists() else None
    return done, report


def shown(path, line, cwd):
    """A plain-run site as the report names it: relative in the project, from site-packages else."""
    real = os.path.realpath(path)
    if f"{os.sep}site-packages{os.sep}" in real:
        return f"{real.split('site-packages' + os.sep, 1)[1]}:{line}"
    return f"{os.path.relpath(real, os.path.realpath(cwd))}:{line}"


def reported_sites(report):
    """The line each reported break broke on: its library line when it names one, else its site."""
    return {
        f.get("library") or f"{f['path']}:{f['line']}"
        for f in report["findings"]
        if f["source"] != "static" and f["severity"] == "error" and f["name"] != "recompile-limit"
    }


def assert_same_as_torch_logs(argv, args, cwd, env=None):
    sites, recompiles = plain_run(argv, cwd, env)
    done, report = torchlint_run(args, cwd, env)
    assert report is not None, done.stderr[-3000:]
    assert reported_sites(report) == {shown(f, n, cwd) for f, n in sites}
    assert report["summary"]["graph_breaks"] == len(sites)
    assert report["summary"]["recompiles"] == recompiles
    for f in report["findings"]:  # never torch's or torchlint's own file, never an absolute path
        assert not os.path.isabs(f["path"]) and "site-packages" not in f["path"], f
        assert not f["path"].startswith(("torch/", "torchlint/")), f
    return report, sites, recompiles


LIBRARY = {
    "site-packages/fakelib/__init__.py": "",
    "site-packages/fakelib/ops.py": """
        def normalize(h):
            print("normalizing")
            return h / 2
    """,
}

PACKAGE = {
    "proj/pkg/__init__.py": "",
    "proj/pkg/layers.py": """
        import torch


        class Block(torch.nn.Module):
            def forward(self, x):
                y = x * 2
                if y.sum() > 0:
                    y = y + 1
                return y
    """,
    "proj/pkg/model.py": """
        import torch
        from fakelib.ops import normalize

        from pkg.layers import Block


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x):
                h = self.block(x)
                h = normalize(h)
                return h.sum()
    """,
    "proj/train.py": """
        import torch

        from pkg.model import Net

        torch.manual_seed(0)  # the branch taken decides what recompiles: the same data in both runs
        net = torch.compile(Net(), backend="eager")
        for n in (4, 4, 6, 8):
            net(torch.randn(2, n))


        @torch.compile(backend="eager", dynamic=False)
        def scale(x, k):
            return x * k


        for k in range(10):
            scale(torch.ones(2), k)
        print("trained")
    """,
}


@pytest.fixture
def package(tmp_path):
    for name, text in {**LIBRARY, **PACKAGE}.items():
        write(tmp_path, name, text)
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site-packages"))
    return tmp_path / "proj", env


def test_package_train_py_matches_torch_logs(package):
    proj, env = package
    report, sites, recompiles = assert_same_as_torch_logs([sys.executable, "train.py"], ["train.py"], proj, env)
    assert recompiles >= 8 and len(sites) == 2
    by_line = {(f["path"], f["line"]): f for f in report["findings"] if f["source"] != "static"}
    # the break inside the installed library: placed on the project's call, the library line
    # named; the static pass reads the library's source and predicts it there too (TL009)
    lib = by_line[("pkg/model.py", 14)]
    assert lib["library"] == "fakelib/ops.py:2"
    assert lib["source"] == "both" and lib["rule"] == "TL009"
    assert "fakelib/ops.py:2" in lib["message"]
    assert lib["gb_code"] and lib["hints"] and lib["hits"] >= 1
    # the data-dependent branch: predicted by the static pass, confirmed by the run
    branch = [f for f in report["findings"] if f["path"] == "pkg/layers.py" and f["line"] == 7]
    assert branch and branch[0]["source"] == "both", report["findings"]
    # the recompile limit: said loudly, as a finding at the compiled function
    limit = [f for f in report["findings"] if f["name"] == "recompile-limit"]
    assert len(limit) == 1 and "RECOMPILE LIMIT HIT" in limit[0]["message"] and limit[0]["path"] == "train.py"
    target = report["targets"][0]
    assert target["target"] == "python train.py" and target["error"] is None
    assert any("changed from 4 to 6" in r["reason"] for r in target["recompile_reasons"])
    frames = target["program"]["frames"]
    assert {"forward", "scale"} <= {f["function"] for f in frames}
    assert all(f["seconds"] >= 0 for f in frames)


FAILING = """
    import os
    import signal
    import sys
    import time

    import torch


    @torch.compile(backend="eager")
    def f(x):
        print("tracing")
        return x + 1


    f(torch.ones(2))
    print("about to fail", flush=True)
    mode = sys.argv[1]
    if mode == "exit":
        sys.exit(3)
    if mode == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(600)
"""


@pytest.mark.parametrize(
    "mode, words, extra",
    [
        ("exit", "exited with status 3", []),
        ("segv", "killed by SIGSEGV (segmentation fault)", []),
        ("hang", "did not finish within --timeout 40 s", ["--timeout", "40"]),
    ],
)
def test_failing_program_reported_in_one_line_with_partial_records(tmp_path, mode, words, extra):
    write(tmp_path, "prog.py", FAILING)
    done, report = torchlint_run([*extra, "--no-static", "prog.py", mode], tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    (error,) = report["errors"]
    assert words in error["message"] and "\n" not in error["message"]
    assert "about to fail" in error["message"]  # the last thing it printed
    target = report["targets"][0]
    assert "| about to fail" in target["details"]
    assert target["program"]["output_tail"][-1] == "about to fail"
    # what it recorded before it died is kept
    assert [(f["path"], f["line"]) for f in report["findings"]] == [("prog.py", 11)]


def test_text_report_and_pass_through(tmp_path):
    write(
        tmp_path,
        "prog.py",
        """
        import sys

        import torch


        @torch.compile(backend="eager")
        def f(x):
            return x.sum().item()


        print(f(torch.ones(3)), sys.argv[1:], sys.stdin.read().strip())
        sys.exit(0)
    """,
    )
    done = subprocess.run(
        [sys.executable, "-m", "torchlint", "run", "--no-static", "prog.py", "--epochs", "1"],
        cwd=tmp_path,
        input="from stdin\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr[-2000:]  # a finding, no gate
    assert "3.0 ['--epochs', '1'] from stdin" in done.stdout
    assert "prog.py:8:5: TL001 graph-break graph break: Unsupported Tensor.item()" in done.stdout
    assert "python prog.py --epochs 1: 1 graph-break site, 1 break hit, 1 graph, 0 recompiles (eval" in done.stdout
    gated = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchlint",
            "run",
            "--no-static",
            "--max-graph-breaks",
            "1",
            "--",
            sys.executable,
            "prog.py",
        ],
        cwd=tmp_path,
        input="",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert gated.returncode == 0, gated.stdout[-2000:]


PYTEST_FILES = {
    "tests/test_a.py": """
        import torch


        def f(x):
            y = x + 1
            print("in f")
            return y * 2


        def test_a():
            g = torch.compile(f, backend="eager")
            g(torch.ones(3))
            g(torch.ones(4))
    """,
    "tests/test_b.py": """
        import torch


        def h(x):
            return x.sum().item()


        def test_b():
            torch.compile(h, backend="eager")(torch.ones(3))
    """,
}


def test_pytest_plugin_merges_xdist_workers(tmp_path):
    for name, text in PYTEST_FILES.items():
        write(tmp_path, name, text)
    out = tmp_path / "session.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--torchlint",
            "--torchlint-json",
            str(out),
            "--torchlint-max-graph-breaks",
            "1",
            "tests",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout[-3000:]  # tests pass, the gate does not
    assert "graph breaks: 2 > limit 1 (+1)" in done.stdout
    report = json.loads(out.read_text())
    assert {(f["path"], f["line"]) for f in report["findings"]} == {("tests/test_a.py", 6), ("tests/test_b.py", 5)}
    workers = {p["xdist_worker"] for p in report["targets"][0]["program"]["processes"]}
    assert workers == {"gw0", "gw1"}
    assert report["summary"]["recompiles"] == 2


def test_run_pytest_module(tmp_path):
    for name, text in PYTEST_FILES.items():
        write(tmp_path, name, text)
    args = ["-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "tests"]  # -s: TORCH_LOGS reaches stderr
    sites, recompiles = plain_run([sys.executable, *args], tmp_path)
    done, report = torchlint_run(["--no-static", *args], tmp_path)
    assert reported_sites(report) == {shown(f, n, tmp_path) for f, n in sites}
    assert report["summary"]["recompiles"] == recompiles == 2


def test_torchrun_two_gloo_ranks_merged(tmp_path):
    write(
        tmp_path,
        "dist_prog.py",
        """
        import os
        import sys

        import torch
        import torch.distributed as dist

        dist.init_process_group("gloo")
        rank = dist.get_rank()


        @torch.compile(backend="eager")
        def shared(x):
            y = x * 2
            print("shared")
            return y


        @torch.compile(backend="eager")
        def only_zero(x):
            return x.sum().item()


        t = shared(torch.ones(2))
        if rank == 0:
            only_zero(torch.ones(2))
        dist.all_reduce(t)
        dist.barrier()  # both ranks done before either tears gloo down
        dist.destroy_process_group()
        # gloo's threads may still abort the interpreter's finalization on a loaded machine
        # ("terminate called without an active exception", no Python frame): leave without it
        sys.stdout.flush()
        os._exit(0)
    """,
    )
    done, report = torchlint_run(
        [
            "--no-static",
            "--",
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            "dist_prog.py",
        ],
        tmp_path,
        timeout=400,
    )
    assert report is not None and done.returncode == 1, done.stderr[-3000:]
    by_line = {f["line"]: f for f in report["findings"]}
    assert by_line[14]["ranks"] == [0, 1] and "only" not in by_line[14]["message"]
    assert by_line[20]["ranks"] == [0] and "seen on rank 0 only, of 2" in by_line[20]["message"]
    ranks = sorted(p["rank"] for p in report["targets"][0]["program"]["processes"])
    assert ranks == [0, 1]


def test_dataloader_workers_ignored(tmp_path):
    write(
        tmp_path,
        "loader.py",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        @torch.compile(backend="eager")
        def item_of(x):
            return x.sum().item()


        class Data(Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                return torch.tensor(item_of(torch.ones(2) * i))  # compiled in the worker


        if __name__ == "__main__":
            for batch in DataLoader(Data(), batch_size=2, num_workers=2):
                pass
            print("done")
    """,
    )
    done, report = torchlint_run(["--no-static", "loader.py"], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert report["findings"] == [] and report["targets"][0]["program"]["processes"] == []


def test_a_program_that_disables_logging_keeps_its_breaks_placed(tmp_path):
    # training scripts silence their warnings with logging.disable; dynamo's break records
    # are log records too, and the break inside the helper (a frame below the compiled one)
    # is placed only by its record
    write(
        tmp_path,
        "quiet.py",
        """
        import logging

        import torch

        logging.disable(logging.WARNING)


        def helper(y):
            print("scaling")
            return y * 2


        @torch.compile(backend="eager")
        def step(x):
            y = helper(x) + 1
            return y * y.sum().item()


        step(torch.ones(3))
    """,
    )
    done, report = torchlint_run(["--no-static", "quiet.py"], tmp_path)
    assert report is not None, done.stderr[-3000:]
    assert reported_sites(report) == {"quiet.py:9", "quiet.py:16"}


TWICE_TRAINED = """
    import torch


    class Gate(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, x):
            return a * b * x

        @staticmethod
        def backward(ctx, grad):
            return None, None, grad


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x):
            x = self.proj(x)
            mask = torch.sigmoid(x)
            return Gate.apply(mask, mask, x).sum()  # breaks with gradients on only


    net = Net()
    step = torch.compile(net, backend="eager")  # compiles no backward graph
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(2):
        loss = step(torch.randn(4, 8))
        loss.backward()
        opt.step()
"""


def test_a_program_that_trains_with_the_eager_backend_runs_in_training(tmp_path):
    # backward() ran: the run trained, though no backward graph was compiled; the break
    # dynamo saw confirms the training-only finding on its line
    write(tmp_path, "train.py", TWICE_TRAINED)
    line = next(n for n, text in enumerate((tmp_path / "train.py").read_text().splitlines(), 1) if "Gate.apply" in text)
    done, report = torchlint_run(["train.py"], tmp_path)
    assert report is not None, done.stderr[-3000:]
    assert report["targets"][0]["run_mode"] == "training"
    at = [f for f in report["findings"] if f["line"] == line]
    assert [(f["rule"], f["source"], f.get("mode")) for f in at] == [("TL010", "both", "train")]
    # a project checked in eval alone: the break is still named after the rule that flags its
    # line when gradients are on
    write(tmp_path, "pyproject.toml", '[tool.torchlint]\nmodule-mode = "eval"\n')
    done, report = torchlint_run(["train.py"], tmp_path)
    assert report is not None, done.stderr[-3000:]
    at = [f for f in report["findings"] if f["line"] == line]
    assert [(f["rule"], f["source"]) for f in at] == [("TL010", "dynamic")]


def test_a_built_model_with_a_handed_loss_breaks_where_check_says_in_eval(tmp_path):
    # `model = build()` then compiled: dynamo breaks in the handed loss's forward in eval, and
    # nowhere in the constructors build runs before compiling; the static findings say the same
    write(tmp_path, "pyproject.toml", "[project]\nname = 'enhance'\n")
    for name, text in BUILT.items():  # (its training script: both modes are checked)
        write(tmp_path, name, text)
    write(
        tmp_path,
        "evaluate.py",
        """
        import torch

        from model import build

        model = build()
        model.eval()
        step = torch.compile(model, backend="eager")
        with torch.no_grad():
            step(torch.randn(2, 4), torch.randn(2, 4))
    """,
    )
    done, report = torchlint_run(["evaluate.py"], tmp_path)
    assert report is not None, done.stderr[-3000:]
    assert report["targets"][0]["run_mode"] == "eval"
    found = [(f["path"], f["line"], f["rule"], f["source"]) for f in report["findings"]]
    assert found == [("model.py", 6, "TL004", "both")]
