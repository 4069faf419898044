"""The test lanes: what ``python -m pytest`` runs when it is handed the whole suite.

1. ``checks``: ``ruff check``, ``ruff format --check`` and ``mypy`` (configured in pyproject.toml);
   when one fails, nothing else runs.
2. ``torch-free``: the tests not marked ``dynamo`` or ``cuda``, with torch unimportable in the test
   process and in every Python process it starts (``no_torch/sitecustomize.py``), as on a machine
   without torch. A test that asks for torch there (``pytest.importorskip("torch")``) fails: it
   must be marked ``dynamo``, or it would run in neither lane.
3. ``dynamo``: the tests marked ``dynamo`` or ``cuda``.

Each test lane is a pytest of its own, given the same options (``-n 2`` included). A lane that
selects no test (pytest's exit code 5) counts as passed; the run exits 5 only when no lane had a
test. Named paths, ``-k``, ``-m`` or ``--lf`` run one plain session, as when working on one thing;
``--lane NAME`` runs one lane (``all`` for the three).

Whatever the lane, a test not marked ``dynamo`` or ``cuda`` fails if torch was imported while it
ran (the ``torch_stays_out`` fixture below).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

NO_TORCH = Path(__file__).resolve().parent / "no_torch"

#: lane name -> the marker expression it selects
TEST_LANES = {"torch-free": "not dynamo and not cuda", "dynamo": "dynamo or cuda"}

CHECKS = (
    ("ruff check", ["-m", "ruff", "check", "."]),
    ("ruff format --check", ["-m", "ruff", "format", "--check", "."]),
    ("mypy", ["-m", "mypy"]),
)

NO_TESTS = pytest.ExitCode.NO_TESTS_COLLECTED

__all__ = [
    "pytest_addoption",
    "pytest_cmdline_main",
    "pytest_configure",
    "pytest_runtest_protocol",
    "torch_stays_out",
]

NEEDS_TORCH = ("dynamo", "cuda")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--lane",
        choices=["auto", "all", "checks", *TEST_LANES, "none"],
        default="auto",
        help="which lane to run (tests/lanes.py): all = checks, then the torch-free tests, then the dynamo "
        "tests; auto (the default) = all when the whole suite is asked for, else none (one plain session)",
    )


def _lane(config: pytest.Config) -> str:
    lane = config.getoption("lane")
    if lane != "auto":
        return lane
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    narrowed = config.getoption("markexpr") or config.getoption("keyword") or config.getoption("lf", False)
    return "all" if whole and not narrowed and not config.getoption("collectonly") else "none"


def _banner(text: str) -> None:
    print(f"\n{'=' * 20} {text} {'=' * max(4, 70 - len(text))}", flush=True)


def run_checks(cwd: Path) -> int:
    """Run the lint, format and type checks in ``cwd``; 0 when all pass, else 1."""
    failed = []
    for name, args in CHECKS:
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, *args], cwd=cwd)
        print(f"{name}: {'ok' if proc.returncode == 0 else 'FAILED'} ({time.perf_counter() - started:.1f} s)")
        if proc.returncode != 0:
            failed.append(name)
    if failed:
        print(f"checks failed: {', '.join(failed)}; the tests do not run until they pass")
        return 1
    return 0


def run_lanes(config: pytest.Config) -> int:
    """checks, then each test lane as a pytest of its own with the options given to this one."""
    cwd = config.invocation_params.dir
    _banner("lane: checks (ruff check, ruff format --check, mypy)")
    if run_checks(config.rootpath):
        return 1
    codes = {}
    for lane, markexpr in TEST_LANES.items():
        _banner(f"lane: {lane} (-m {markexpr!r})")
        started = time.perf_counter()
        args = [sys.executable, "-m", "pytest", *config.invocation_params.args, "--lane", lane]
        codes[lane] = subprocess.run(args, cwd=cwd, env=lane_env(lane)).returncode
        print(f"lane {lane}: exit {codes[lane]} ({time.perf_counter() - started:.0f} s)", flush=True)
    return combine(codes.values())


def combine(codes) -> int:
    """One exit code for several lanes: the first failure, else 0; 5 only when no lane had a test."""
    codes = list(codes)
    failed = [c for c in codes if c not in (0, NO_TESTS)]
    if failed:
        return failed[0]
    return int(NO_TESTS) if codes and all(c == NO_TESTS for c in codes) else 0


def lane_env(lane: str) -> dict:
    """The environment of a lane's processes: for the torch-free lane, ``no_torch`` first on
    PYTHONPATH, so each Python started there blocks torch at start-up."""
    env = dict(os.environ)
    if lane == "torch-free":
        parts = [str(NO_TORCH), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config):
    if hasattr(config, "workerinput"):  # a pytest-xdist worker runs what its controller chose
        return None
    lane = _lane(config)
    if lane == "all":
        return run_lanes(config)
    if lane == "checks":
        return run_checks(config.rootpath)
    return None


def pytest_configure(config: pytest.Config) -> None:
    lane = config.getoption("lane")
    if lane not in TEST_LANES:
        return
    user = config.option.markexpr
    config.option.markexpr = f"({user}) and ({TEST_LANES[lane]})" if user else TEST_LANES[lane]
    if lane == "torch-free" and not hasattr(config, "workerinput"):
        if sys.modules.get("torch") is not None:
            raise pytest.UsageError("the torch-free lane: torch was imported before the tests started")
        sys.modules["torch"] = None  # type: ignore[assignment]
        os.environ["PYTHONPATH"] = lane_env(lane)["PYTHONPATH"]  # for the processes the tests start


_real_importorskip = pytest.importorskip
_running: list = []


def _importorskip_in_torch_free_lane(modname: str, *args, **kwargs):
    if _running and modname.split(".")[0] == "torch":
        pytest.fail(
            f"{_running[-1]} asks for torch in the torch-free lane: mark it `dynamo` (else it runs in no lane)",
            pytrace=False,
        )
    return _real_importorskip(modname, *args, **kwargs)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    if item.config.getoption("lane") != "torch-free":
        return (yield)
    _running.append(item.nodeid)
    pytest.importorskip = _importorskip_in_torch_free_lane
    try:
        return (yield)
    finally:
        _running.pop()
        pytest.importorskip = _real_importorskip


@pytest.fixture(autouse=True)
def torch_stays_out(request):
    """A test not marked dynamo (or cuda) fails if torch was imported while it ran, here or in
    its fixtures: it would fail in the torch-free lane. Once a test of this process has imported
    torch there is nothing left to see (the torch-free lane sees it everywhere)."""
    if sys.modules.get("torch") is not None or any(request.node.get_closest_marker(m) for m in NEEDS_TORCH):
        yield
        return
    yield
    if sys.modules.get("torch") is not None:
        pytest.fail(f"{request.node.nodeid} imported torch: mark it `dynamo`", pytrace=False)
