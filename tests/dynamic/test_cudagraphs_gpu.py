"""CUDA graphs under ``--mode reduce-overhead``: proven on a GPU, refused cleanly without one.

On a machine with a CUDA GPU (tests marked ``cuda``), through the real command line and one
worker process:

* ``fixtures/cudagraphs/host_copy.py`` (``.cpu()`` inside ``forward``, a host round trip) is
  reported at the ``.cpu()`` line as the place the CUDA graph is cut (``cudagraph-split``);
* ``fixtures/cudagraphs/varlen_encoder.py`` fed three sequence lengths reports two
  re-recordings (one recording per length, the first one expected);
* ``fixtures/cudagraphs/clean_encoder.py`` reports neither.

Then what the TL1xx pages claim, one small snippet each, in-process: a host round trip cuts
the CUDA graph at its line (and, with inductor's graph partitions off, skips it there); a
copy nothing waits for costs no cut; a CPU ``torch.randn`` runs outside the CUDA graph while
CPU-made constants do not; an input mutated in place is a skip at its line; a per-call
``int`` re-records every value, a ``float`` once; ``torch.cuda.synchronize()`` is a graph
break (so TL101 leaves it alone). Setting ``TORCHLINT_CUDAGRAPH_LOG=FILE`` writes every
observation, with inductor's partition log, there.

Without a GPU these are skipped with the reason printed (pytest ``-ra``), and the tests that
need no GPU check the refusal: exit 2 and one line, config validation and the gate.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import FIXTURES, run_cli, write

CG = FIXTURES / "cudagraphs"
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _no_cuda_reason():
    if not HAS_TORCH:
        return "torch is not installed"
    import torch

    if not torch.cuda.is_available():
        return f"no CUDA GPU visible to torch {torch.__version__}: CUDA-graph checks need one"
    return None


NO_CUDA = _no_cuda_reason()


def needs_cuda(test):
    """Marked ``cuda``; skipped, with the reason printed, where there is no GPU."""
    return pytest.mark.cuda(pytest.mark.skipif(NO_CUDA is not None, reason=str(NO_CUDA))(test))


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _log(name, data):
    out = os.environ.get("TORCHLINT_CUDAGRAPH_LOG")
    if out:
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"case": name, "data": data}, default=str) + "\n")


# --------------------------------------------------------------------------- no GPU needed


def test_reduce_overhead_on_the_cpu_is_a_usage_error(project):
    write(project, "m.py", "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n")
    result = run_cli(
        ["check", "m.py", "--target", "m.py:Net", "--input", "f32[2]", "--mode", "reduce-overhead", "--device", "cpu"]
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "only on CUDA devices" in result.stderr
    result = run_cli(["check", "m.py", "--mode", "reduce-overhead"])
    assert result.exit_code == 2 and "give a --target" in result.stderr


@pytest.mark.parametrize(
    "table, problem",
    [
        ('mode = "max-autotune-fast"', "mode must be one of"),
        ('mode = "max-autotune"\ndevice = "cpu"', "mode max-autotune captures CUDA graphs"),
        ('device = "tpu"', "device must be one of"),
        ('mode = "reduce-overhead"\ndevice = "cpu"', "only on CUDA devices"),
        ("max-cudagraph-skips = -1", "non-negative integer"),
        (
            '[[tool.torchlint.targets]]\ntarget = "m.py:Net"\nmode = "reduce-overhead"\ndevice = "cpu"',
            "only on CUDA devices",
        ),
    ],
)
def test_config_keys_are_validated(project, table, problem):
    write(project, "pyproject.toml", f"[tool.torchlint]\n{table}\n")
    write(project, "m.py", "x = 1\n")
    result = run_cli(["check", "m.py"])
    assert result.exit_code == 2, result.output
    assert problem in result.stderr


def test_gate_counts_cudagraph_skips():
    from torchlint.findings import Report, TargetResult
    from torchlint.gate import apply_gate

    report = Report(
        dynamic_ran=True, targets=[TargetResult("a", cudagraph_skips=2), TargetResult("b", cudagraph_skips=1)]
    )
    assert not apply_gate(report, max_cudagraph_skips=2)
    assert report.gate_failures == ["CUDA-graph skips: 3 > limit 2 (+1)"]
    assert apply_gate(report, max_cudagraph_skips=3)
    plain = Report(dynamic_ran=True, targets=[TargetResult("a")])
    assert apply_gate(plain, max_cudagraph_skips=0)
    assert "no target ran with --mode reduce-overhead" in plain.gate_notes[0]


def test_worker_data_becomes_warnings_merged_with_tl1xx_only(tmp_path):
    from torchlint.dynamic.results import findings_of
    from torchlint.findings import Finding
    from torchlint.merge import merge_passes

    model = tmp_path / "m.py"
    model.write_text("def forward(x):\n    y = x.cpu().clamp(min=1).to(x.device)\n    return y\n")
    data = {
        "skips": [],
        "rerecordings": 2,
        "per_set": [1, 1, 1],
        "shapes": ["(2x8)", "(2x16)", "(2x32)"],
        "path": str(model),
        "line": 1,
        "splits": [
            {
                "reason": "device copies and CPU kernels",
                "pieces": 2,
                "sites": [{"path": str(model), "line": 2, "why": "runs on the CPU"}],
            }
        ],
    }
    count, found = findings_of(data, "m.py:forward", str(tmp_path))
    assert count == 1
    assert [(f.name, f.line, f.severity, f.source) for f in found] == [
        ("cudagraph-split", 2, "warning", "dynamic"),
        ("cudagraph-rerecord", 1, "warning", "dynamic"),
    ]
    assert "cut in 2" in found[0].message and "re-recorded 2 times across 3 input sets" in found[1].message

    def static(rule, severity):
        return Finding(
            rule=rule,
            name=rule,
            path="m.py",
            line=2,
            column=9,
            end_line=2,
            end_column=40,
            message="m",
            suggestion="s",
            severity=severity,
        )

    brk = Finding(
        rule=None,
        name="graph-break",
        path="m.py",
        line=2,
        column=5,
        end_line=2,
        end_column=40,
        message="graph break: x",
        suggestion="",
        source="dynamic",
        gb_code="GB0124",
    )
    merged = merge_passes(
        [static("TL101", "warning"), static("TL001", "error")], found + [brk], {"TL001": {"GB0124"}, "TL101": set()}, {}
    )
    by_rule = {(f.rule, f.name): f.source for f in merged}
    assert by_rule[("TL101", "TL101")] == "both"  # the split confirms the host-sync warning
    assert by_rule[("TL001", "TL001")] == "both"  # the break confirms the graph-break rule
    assert (None, "cudagraph-rerecord") in by_rule and (None, "graph-break") not in by_rule
    # and neither crosses over: a CUDA-graph split is no graph break, a break no TL1xx warning
    alone = merge_passes(
        [static("TL001", "error"), static("TL101", "warning")], [found[0]], {"TL001": {"GB0124"}, "TL101": set()}, {}
    )
    assert {f.rule: f.source for f in alone} == {"TL001": "static", "TL101": "both"}
    alone = merge_passes(
        [static("TL101", "warning")],
        [brk],
        {"TL001": {"GB0124"}, "TL101": set()},
        {},
        flagged={("m.py", 2): {"TL001", "TL101"}},
    )  # (the rules that flag the line)
    assert {(f.rule, f.source) for f in alone} == {("TL101", "static"), ("TL001", "dynamic")}


@pytest.mark.skipif(not HAS_TORCH or NO_CUDA is None, reason="needs torch without a CUDA GPU")
@pytest.mark.dynamo
@pytest.mark.parametrize("mode", ["reduce-overhead", "max-autotune"])
def test_no_gpu_exits_2_with_one_line(project, mode):
    result = run_cli(
        [
            "check",
            str(CG / "host_copy.py"),
            "--target",
            f"{CG / 'host_copy.py'}:Tagger",
            "--inputs-from",
            f"{CG / 'host_copy.py'}:example_inputs",
            "--mode",
            mode,
        ]
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert "needs a CUDA GPU" in result.stderr and "does not use CUDA graphs on the CPU" in result.stderr
    assert f"--mode {mode}" in result.stderr


@pytest.mark.skipif(not HAS_TORCH, reason="needs torch")
@pytest.mark.dynamo
def test_modes_without_cuda_graphs_run_like_default_on_the_cpu(project):
    write(
        project, "m.py", "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n"
    )
    result = run_cli(
        [
            "check",
            "m.py",
            "--target",
            "m.py:Net",
            "--input",
            "f32[2]",
            "--format",
            "json",
            "--mode",
            "max-autotune-no-cudagraphs",
            "--device",
            "cpu",
        ]
    )
    assert result.exit_code == 0, result.output
    (target,) = json.loads(result.stdout)["targets"]
    assert target["error"] is None and "cudagraph_skips" not in target


# --------------------------------------------------------------------------- on a GPU


@pytest.fixture(scope="module", params=["reduce-overhead", "max-autotune"])
def fixture_report(tmp_path_factory, request):
    """One `torchlint check --mode M` over the three fixtures (one worker), for each mode that
    replays CUDA graphs: max-autotune records them as reduce-overhead does."""
    folder = tmp_path_factory.mktemp("cg")
    config = folder / "pyproject.toml"
    config.write_text(
        textwrap.dedent(f"""
        [tool.torchlint]
        mode = "{request.param}"

        [[tool.torchlint.targets]]
        name = "host_copy"
        target = "{CG / "host_copy.py"}:Tagger"
        inputs-from = "{CG / "host_copy.py"}:example_inputs"

        [[tool.torchlint.targets]]
        name = "varlen"
        target = "{CG / "varlen_encoder.py"}:SeqEncoder"
        input-sets-from = "{CG / "varlen_encoder.py"}:three_lengths"

        [[tool.torchlint.targets]]
        name = "clean"
        target = "{CG / "clean_encoder.py"}:Tagger"
        input-sets-from = "{CG / "clean_encoder.py"}:same_length_input_sets"
        """)
    )
    result = run_cli(["check", str(CG), "--config", str(config), "--format", "json", "--timeout", "400"])
    report = json.loads(result.stdout)
    _log(f"fixtures {request.param}", report)
    print(json.dumps(report["targets"], indent=1))
    return result.exit_code, report


def _cuda_findings(report, target):
    return [f for f in report["findings"] if f["name"].startswith("cudagraph") and target in (f["target"] or "")]


@needs_cuda
def test_host_round_trip_is_reported_at_the_cpu_line(fixture_report):
    code, report = fixture_report
    assert not report["errors"], report["errors"]
    target = next(t for t in report["targets"] if t["target"] == "host_copy")
    assert target["cudagraph_skips"] == 1, target
    found = _cuda_findings(report, "host_copy")
    line = _line_of(CG / "host_copy.py", ".cpu().clamp(")
    assert [(f["name"], Path(f["path"]).name, f["line"]) for f in found] == [
        ("cudagraph-split", "host_copy.py", line)
    ], found
    assert found[0]["severity"] == "warning" and "the CUDA graph is cut in 2" in found[0]["message"]
    assert code == 1  # findings remain and no gate is set


@needs_cuda
def test_three_sequence_lengths_re_record(fixture_report):
    _, report = fixture_report
    found = _cuda_findings(report, "varlen")
    rerecords = [f for f in found if f["name"] == "cudagraph-rerecord"]
    assert len(rerecords) == 1, found
    assert rerecords[0]["line"] == _line_of(CG / "varlen_encoder.py", "def forward")
    assert "re-recorded 2 times across 3 input sets" in rerecords[0]["message"], rerecords[0]["message"]
    assert not [f for f in found if f["name"] != "cudagraph-rerecord"]
    target = next(t for t in report["targets"] if t["target"] == "varlen")
    assert target["cudagraph_skips"] == 0


@needs_cuda
def test_clean_fixture_reports_nothing(fixture_report):
    _, report = fixture_report
    assert _cuda_findings(report, "clean") == []
    target = next(t for t in report["targets"] if t["target"] == "clean")
    assert target["cudagraph_skips"] == 0 and target["graph_breaks"] == 0 and target["error"] is None


# --------------------------------------------------------------------------- the pages' claims

_HEAD = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.out = nn.Linear(16, 16)

"""
# name -> (forward body, input sets, expected, inductor config patch). Expected: "split" (work
# on the line marked MARK runs outside the CUDA graph), "skip" (the graph runs without one,
# reported at MARK), "rerecord", "bounded" (one re-recording, then replays), "none" (captured
# whole, once), "break" (a graph break at MARK, so not a TL1xx warning).
SNIPPETS = {
    "round_trip": (
        """
    def forward(self, x):
        h = self.fc(x)
        scale = h.abs().cpu().clamp(min=1.0).to(h.device)  # MARK
        return self.out(h / scale)
""",
        ["f32[4,16]"],
        "split",
        {},
    ),
    "round_trip_without_partitions": (
        """
    def forward(self, x):
        h = self.fc(x)
        scale = h.abs().cpu().clamp(min=1.0).to(h.device)  # MARK
        return self.out(h / scale)
""",
        ["f32[4,16]"],
        "skip",
        {"graph_partition": False},
    ),
    "trailing_copy": (
        """
    def forward(self, x):
        h = self.out(self.fc(x))
        back = h.sum(-1).to("cpu")  # MARK
        return h, back
""",
        ["f32[4,16]"],
        "none",
        {},
    ),
    "mutated_input": (
        """
    def forward(self, x):
        x.mul_(2)  # MARK
        return self.out(self.fc(x))
""",
        ["f32[4,16]"],
        "skip",
        {},
    ),
    "per_call_int": (
        """
    def forward(self, x, step: int):
        return self.out(self.fc(x) * step)
""",
        ["f32[4,16];1", "f32[4,16];2", "f32[4,16];3"],
        "rerecord",
        {},
    ),
    "per_call_float": (
        """
    def forward(self, x, t: float):
        return self.out(self.fc(x) * t)
""",
        ["f32[4,16];0.1", "f32[4,16];0.2", "f32[4,16];0.3"],
        "bounded",
        {},
    ),
    "cpu_scalar_tensor": (
        """
    def forward(self, x):
        scale = torch.tensor(0.25)  # MARK
        return self.out(self.fc(x) * scale)
""",
        ["f32[4,16]"],
        "none",
        {},
    ),
    "cpu_arange_moved": (
        """
    def forward(self, x):
        pos = torch.arange(x.shape[1]).to(x.device)  # MARK
        return self.out(self.fc(x) + pos)
""",
        ["f32[4,16]"],
        "none",
        {},
    ),
    "cpu_randn_moved": (
        """
    def forward(self, x):
        noise = torch.randn(x.shape).to(x.device)  # MARK
        return self.out(self.fc(x) + noise)
""",
        ["f32[4,16]"],
        "split",
        {},
    ),
    "cpu_list_tensor_moved": (
        """
    def forward(self, x):
        w = torch.tensor([0.5] * 16).to(x.device)  # MARK
        return self.out(self.fc(x) * w)
""",
        ["f32[4,16]"],
        "none",
        {},
    ),
    "cuda_synchronize": (
        """
    def forward(self, x):
        h = self.fc(x)
        torch.cuda.synchronize()  # MARK
        return self.out(h)
""",
        ["f32[4,16]"],
        "break",
        {},
    ),
}


def _observe_snippet(tmp_path, name):
    import torch

    from torchlint.dynamic.cudagraphs import observe_cudagraphs, prepare
    from torchlint.dynamic.load import load_module_from_path, materialize
    from torchlint.dynamic.observe import observe
    from torchlint.dynamic.specs import parse_input_set

    body, sets, _, patch = SNIPPETS[name]
    path = tmp_path / f"{name}.py"
    path.write_text(_HEAD + textwrap.indent(textwrap.dedent(body).lstrip("\n"), "    "))
    module = load_module_from_path(str(path))
    calls = [([materialize(s, seed=i) for i, s in enumerate(parse_input_set(text))], {}) for text in sets]
    fn, calls = prepare(module.Net(), calls, "cuda")
    files = {os.path.realpath(path)}
    with torch.no_grad():
        obs = observe(fn, [a for a, _ in calls], user_files=files)
    with torch._inductor.config.patch(patch):
        data = observe_cudagraphs(fn, calls, user_files=files, debug=True)
    data["graph_breaks"] = [(b.line, b.reason) for b in obs.breaks]
    data["recompiles"] = [r.words for r in obs.recompiles]
    _log(name, data)
    data.pop("log", None)
    data.pop("counters", None)
    return path, data


@needs_cuda
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_page_claims_hold_on_the_gpu(tmp_path, name):
    path, data = _observe_snippet(tmp_path, name)
    expected = SNIPPETS[name][2]
    if expected == "break":
        assert _line_of(path, "# MARK") in {line for line, _ in data["graph_breaks"]}, data
        return
    assert not data["graph_breaks"], f"not a graph break, the pages say: {data}"
    lines = {kind: {s["line"] for entry in data[kind] for s in entry["sites"]} for kind in ("skips", "splits")}
    if expected in ("skip", "split"):
        kind = expected + "s"
        assert _line_of(path, "# MARK") in lines[kind], data
        assert not data["skips" if kind == "splits" else "splits"], data
    else:
        assert not data["skips"] and not data["splits"], data
        if expected == "bounded":  # a float: recompiled and recorded once more, then replayed
            assert data["per_set"] == [1, 1, 0], data
        else:
            assert (data["rerecordings"] >= 1) == (expected == "rerecord"), data


# --------------------------------------------------------------------------- torchlint run

SERVED = '''
"""A reduce-overhead server: requests of four lengths, a tagger with a host copy, a step that
scales its input in place, and the tagger again with inductor's graph partitions off."""
import torch

from host_copy import Tagger
from varlen_encoder import SeqEncoder


def rescale(x, w):
    x.mul_(0.5)  # MUTATES
    return x @ w


encoder = torch.compile(SeqEncoder().cuda().eval(), mode="reduce-overhead")
tagger = torch.compile(Tagger().cuda().eval(), mode="reduce-overhead")
step = torch.compile(rescale, mode="reduce-overhead")
with torch.no_grad():
    for n in (16, 32, 64, 48):
        x = torch.randint(0, 1000, (4, n), device="cuda")
        for _ in range(3):
            encoder(x)
    tokens = torch.randint(0, 1000, (4, 16), device="cuda")
    for _ in range(3):
        tagger(tokens)
    w = torch.randn(16, 16, device="cuda")
    for _ in range(3):
        step(torch.randn(4, 16, device="cuda"), w)
    plain = Tagger().cuda().eval()

    def tag_all(t):
        return plain(t)

    with torch._inductor.config.patch(graph_partition=False):
        whole = torch.compile(tag_all, mode="reduce-overhead")
        for _ in range(3):
            whole(tokens)
print("served", flush=True)
'''


@pytest.fixture(scope="module")
def served_report(tmp_path_factory):
    """`torchlint run` over a real reduce-overhead program (the fixtures copied into a project)."""
    import shutil

    folder = tmp_path_factory.mktemp("served")
    for name in ("host_copy.py", "varlen_encoder.py"):
        shutil.copy(CG / name, folder / name)
    (folder / "serve.py").write_text(SERVED)
    out = folder / "report.json"
    command = [sys.executable, "-m", "torchlint", "run", "--no-static"]
    done = subprocess.run(
        command + ["--format", "json", "-o", str(out), "serve.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.exists(), done.stderr[-3000:]
    report = json.loads(out.read_text())
    text = subprocess.run(command + ["serve.py"], cwd=folder, capture_output=True, text=True, timeout=900)
    print(text.stdout)  # the text report, for the record (pytest -s)
    _log("run serve.py", report)
    return folder, done.returncode, report, text.stdout


@needs_cuda
def test_run_reports_split_skips_and_rerecords_of_a_real_program(served_report):
    folder, code, report, again = served_report
    assert not report["errors"], report["errors"]
    found = [(f["name"], f["path"], f["line"]) for f in report["findings"] if f["name"].startswith("cudagraph")]
    cpu_line = _line_of(folder / "host_copy.py", ".cpu().clamp(")
    mutated = _line_of(folder / "serve.py", "# MUTATES")
    forward = _line_of(folder / "varlen_encoder.py", "def forward")
    # the host round trip cuts the tagger's CUDA graph in two (graph partitions, the default) ...
    assert ("cudagraph-split", "host_copy.py", cpu_line) in found, found
    # ... and, with partitions off, makes inductor skip CUDA graphs for it, in words
    assert ("cudagraph-skip", "host_copy.py", cpu_line) in found, found
    # an input scaled in place: skipped, at that line
    assert ("cudagraph-skip", "serve.py", mutated) in found, found
    # four request lengths: recorded four times, three of them re-recordings, at the encoder's def
    assert ("cudagraph-rerecord", "varlen_encoder.py", forward) in found, found
    by = {(f["name"], f["path"]): f for f in report["findings"]}
    assert "cut in 2" in by[("cudagraph-split", "host_copy.py")]["message"]
    assert "cpu device" in by[("cudagraph-skip", "host_copy.py")]["message"]
    assert "mutated inputs" in by[("cudagraph-skip", "serve.py")]["message"]
    rerecord = by[("cudagraph-rerecord", "varlen_encoder.py")]
    assert "re-recorded 3 times" in rerecord["message"] and "(4x48)" in rerecord["message"], rerecord["message"]
    assert len(found) == 4, found  # nothing else: the clean recordings of each partition are no re-recordings
    (target,) = report["targets"]
    assert target["cudagraph_skips"] == 3 and target["recompiles"] >= 1
    assert all(f["severity"] == "warning" for f in report["findings"] if f["name"].startswith("cudagraph"))
    # run again, the graphs come from inductor's FX graph cache, which logs no partitions: the
    # tagger's two recorded CUDA graphs still show the cut, at its `def forward`
    assert "cudagraph-split" in again and "TORCHINDUCTOR_FX_GRAPH_CACHE=0" in again, again
    assert "re-recorded 3 times" in again and "mutated inputs" in again
