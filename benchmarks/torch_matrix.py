"""Which torch versions torchlint is right on: the rules, the dynamic pass and the tests, per version.

For each torch version (default 2.13.0, 2.14.1, 2.15.0) a virtual environment is made once,
outside the repository (``~/.cache/torchlint-matrix/<version>``, or ``--venvs DIR``), and
reused on later runs. In it the script runs:

* ``torchlint rules --verify --all --format json``: each rule page's bad and good example
  through dynamo. A rule is *live* when the bad example breaks on its marked lines and the
  good one compiles whole, *dead* when the bad example compiles whole, *changed* when it is
  live but dynamo names other GB codes than on the oldest version;
* the dynamic pass on the fixture targets (``torchlint check DIR --no-static --format json``
  in each fixture folder: ``fixtures/`` and any ``--fixtures DIR``), checked against a direct
  run in the same environment that uses only ``torch._dynamo.explain`` and dynamo's
  ``graph_breaks`` log (no torchlint code counts a break): the distinct break lines must be
  the same, and so must the recompilation count (``recompiles`` log records);
* which calls of ``torchlint/data/skipped_calls.json`` still break (each example in a compiled
  function), with what ``torch._dynamo.trace_rules`` says of each;
* the version-dependent parsers: the GB registry (every code seen resolves), the recompile
  reasons (each record parsed into words), the CUDA-graph messages (no GPU here: the messages
  and hooks ``torchlint/dynamic/cudagraphs.py`` reads must exist in that torch's source);
* ``pytest -m dynamo`` (the tests that run code through dynamo), once every version is
  measured and the new matrix written, since some tests read it.

It prints one table and writes ``torchlint/data/torch_matrix.json`` (``--no-write`` to skip)
and the "Breaks on" line of every rule page (``docs/rules/*.md``). A version whose
environment cannot be made is skipped with the reason, and its previous data are kept.

    python benchmarks/torch_matrix.py [--versions 2.13.0,2.14.1,2.15.0] [--fixtures DIR]
                                      [--no-tests] [--no-write] [--venvs DIR] [--reuse | --tests-only]
    python benchmarks/torch_matrix.py --pages   # only rewrite the pages' lines from the data

2.13.0 and 2.14.1 install from this machine's local package index; 2.15.0 comes from PyPI
(several GB, the CUDA build; pip's config files are bypassed for it since this machine caps
torch at 2.14.1 there). The CUDA builds run on the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_VERSIONS = ("2.13.0", "2.14.1", "2.15.0")
#: versions on this machine's disk (the local index); others come from the registry
LOCAL = {"2.13.0", "2.14.1"}
MATRIX = os.path.join(REPO, "torchlint", "data", "torch_matrix.json")


def test_deps() -> list[str]:
    """The ``test`` extra of pyproject.toml but torch (each environment has its own torch)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as fh:
        extra = tomllib.load(fh)["project"]["optional-dependencies"]["test"]
    return [r for r in extra if not re.match(r"torch\b", r)]


def _missing(python: str, requirements: list[str]) -> list[str]:
    """The requirements whose distribution is not installed in that environment."""
    names = [re.split(r"[<>=!~ \[;]", r, maxsplit=1)[0] for r in requirements]
    code = (
        "import importlib.metadata as m, sys\nfor n in sys.argv[1:]:\n    try: m.version(n)\n"
        "    except m.PackageNotFoundError: print(n)"
    )
    out = subprocess.run([python, "-c", code, *names], capture_output=True, text=True)
    gone = set(out.stdout.split())
    return [r for r, n in zip(requirements, names) if n in gone]


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- environments


def venv_python(venvs: str, version: str) -> str:
    return os.path.join(venvs, version, "bin", "python")


def installed_torch(python: str) -> str | None:
    """The torch version in that environment (read from its metadata, torch not imported)."""
    if not os.path.exists(python):
        return None
    out = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('torch'))"], capture_output=True, text=True
    )
    return out.stdout.strip() or None if out.returncode == 0 else None


def _pip(python: str, args: list[str], version: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if version not in LOCAL:
        env["PIP_CONFIG_FILE"] = os.devnull  # this machine's pip config caps torch at the local builds
    return subprocess.run([python, "-m", "pip", "install", "-q", *args], capture_output=True, text=True, env=env)


def _pip_error(proc: subprocess.CompletedProcess) -> str:
    lines = [
        line
        for line in (proc.stderr + proc.stdout).splitlines()
        if line.strip() and "is ignored" not in line and "[notice]" not in line
    ]
    errors = [line for line in lines if line.startswith("ERROR")] or lines
    return " ".join(errors[-2:])[:300] or f"pip exited {proc.returncode}"


def ensure_venv(venvs: str, version: str) -> tuple[str | None, str]:
    """(python, note) of an environment with torch ``version`` and torchlint (editable, this
    checkout) installed; (None, reason) when it cannot be made."""
    python = venv_python(venvs, version)
    note = "cached"
    have = installed_torch(python)
    if have is None or have.split("+")[0] != version:
        free = shutil.disk_usage(os.path.dirname(os.path.abspath(venvs)) if not os.path.isdir(venvs) else venvs).free
        if free < 8 << 30:
            return None, f"only {free >> 30} GiB free on disk, a torch {version} environment needs about 6"
        say(
            f"torch {version}: making {os.path.dirname(os.path.dirname(python))} "
            f"({'local disk' if version in LOCAL else 'from PyPI, several GB'})..."
        )
        if not os.path.exists(python):
            made = subprocess.run(
                [sys.executable, "-m", "venv", os.path.dirname(os.path.dirname(python))], capture_output=True, text=True
            )
            if made.returncode:
                return None, f"cannot make a venv: {made.stderr.strip()[:200]}"
        proc = _pip(python, [f"torch=={version}"], version)
        if proc.returncode:
            return None, f"pip install torch=={version} failed: {_pip_error(proc)}"
        note = "installed"
    where = subprocess.run(
        [python, "-c", "import torchlint, os; print(os.path.dirname(torchlint.__file__))"],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    deps = test_deps()
    if (
        where.returncode
        or _missing(python, deps)
        or os.path.realpath(where.stdout.strip()) != os.path.realpath(os.path.join(REPO, "torchlint"))
    ):
        proc = _pip(python, [f"torch=={version}", *deps, "-e", REPO], version)
        if proc.returncode:
            return None, f"pip install torchlint into the torch {version} environment failed: {_pip_error(proc)}"
    return python, note


# --------------------------------------------------------------------------- the probe (in a venv)

DIRECT = r'''
"""Graph breaks of every target of one fixture folder, from dynamo alone: explain() and the
graph_breaks log. torchlint only loads the targets and builds their inputs."""
import json, logging, os, re, sys, warnings
warnings.simplefilter("ignore")
import torch
from torchlint.config import load_settings
from torchlint.dynamic.load import load_input_sets, load_inputs, load_target, materialize
from torchlint.dynamic.specs import parse_input
from torchlint.dynamic.targets import parse_ref

root = os.path.realpath(sys.argv[1])
os.chdir(root)
settings = load_settings(os.path.join(root, "pyproject.toml"))
FRAME = re.compile(r'File "([^"]+)", line (\d+)')
AT = re.compile(r"in user code at (.+?):(\d+)")


class Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def mine(path):
    path = os.path.realpath(path)
    return path.startswith(root + os.sep)


def site_of(message):
    frames = [(os.path.realpath(f), int(n)) for f, n in FRAME.findall(message) if mine(f)]
    if frames:
        return frames[-1]
    at = AT.search(message)
    if at and mine(at.group(1)):
        return (os.path.realpath(at.group(1)), int(at.group(2)))
    return None


torch._logging.set_logs(graph_breaks=True, recompiles=True)
import torch._dynamo.convert_frame, torch._dynamo.symbolic_convert, torch._dynamo.exc, torch._dynamo.guards  # noqa
breaks, recompiles = Keep(), Keep()
for name in list(logging.root.manager.loggerDict):
    for handler, suffix in ((breaks, "__graph_breaks"), (recompiles, "__recompiles")):
        if name.startswith("torch") and name.endswith(suffix):
            logger = logging.getLogger(name)
            logger.handlers, logger.propagate = [handler], False
            logger.setLevel(logging.DEBUG)
out = {}
for table in settings.targets:
    name = table.get("name") or table["target"]
    try:
        torch.manual_seed(0)
        fn, path = load_target(parse_ref(table["target"]), root)
        calls = [([materialize(parse_input(s), seed=i) for i, s in enumerate(c.split(";"))], {})
                 for c in table.get("input-sets", [])]
        if table.get("input"):
            calls.insert(0, ([materialize(parse_input(s), seed=i) for i, s in enumerate(table["input"])], {}))
        if table.get("inputs-from"):
            calls.insert(0, load_inputs(parse_ref(table["inputs-from"]), root))
        if table.get("input-sets-from"):
            calls.extend(load_input_sets(parse_ref(table["input-sets-from"]), root))
        if isinstance(fn, torch.nn.Module):
            fn.eval()
        sites, graphs = set(), 0
        del breaks.records[:]
        with torch.no_grad():
            for args, kwargs in calls:
                explained = torch._dynamo.explain(fn)(*args, **kwargs)
                graphs = graphs or explained.graph_count
                for reason in explained.break_reasons:
                    frames = [(os.path.realpath(f.filename), f.lineno) for f in reason.user_stack if mine(f.filename)]
                    if frames:
                        sites.add(frames[-1])
        for record in breaks.records:
            site = site_of(record.getMessage())
            if site:
                sites.add(site)
        # recompilations: the calls once more, in turn, without a reset in between
        del recompiles.records[:]
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend="eager")
        with torch.no_grad():
            for args, kwargs in calls:
                compiled(*args, **kwargs)
        n_recompiles = sum(m.count("Recompiling function") for m in (r.getMessage() for r in recompiles.records))
        out[name] = {"lines": sorted([os.path.relpath(p, root), n] for p, n in sites), "graphs": graphs,
                     "recompiles": n_recompiles, "error": None}
    except Exception as exc:
        out[name] = {"lines": [], "graphs": 0, "recompiles": 0, "error": f"{type(exc).__name__}: {exc}"[:200]}
print(json.dumps(out))
'''

SKIPPED = r'''
"""Which entries of skipped_calls.json break dynamo on this torch, and dynamo's trace rule of each."""
import importlib, json, logging, os, sys, tempfile, warnings
warnings.simplefilter("ignore")
import torch
from torchlint.dynamic.observe import observe_source
from torchlint.rules.tl009_skipped_call import skipped_calls

data = skipped_calls()
calls = data["calls"]


def module(names, extras=()):
    imports = {calls[n]["imports"] for n in names if calls[n]["imports"]}
    imports |= {"import torch", "import copy", "import logging"}
    body = [f"    {calls[n]['example']}" for n in names] + [f"    {e}" for e in extras]
    return "\n".join(sorted(imports)) + "\n\n\ndef f(x):\n    x = x + 1\n" + "\n".join(body) + "\n    return x * 2\n"


def broken(names, extras=()):
    code = module(names, extras)
    obs, path = observe_source(code, "f", ["f32[4]"])
    first = code.splitlines().index("    x = x + 1") + 2
    lines = obs.break_lines(path)
    return [first + i in lines for i in range(len(names) + len(extras))]


def rule_of(name):
    """The VariableTracker class dynamo's trace_rules picks for the function, or why none."""
    try:
        from torch._dynamo import trace_rules
    except ImportError as exc:
        return f"no trace_rules: {exc}"
    head, _, attr = name.rpartition(".")
    try:
        obj = importlib.import_module(head)
    except ImportError:
        mod, _, cls = head.rpartition(".")
        obj = getattr(importlib.import_module(mod), cls)
    fn = getattr(obj, attr)
    try:
        found = trace_rules.lookup(fn)
    except Exception as exc:
        return f"lookup failed: {type(exc).__name__}"
    return getattr(found, "__name__", str(found)) if found is not None else "traced inline"


names = sorted(n for n in calls if calls[n]["example"])
together = broken(names)
result = {}
for name, ok in zip(names, together):
    if not ok:  # run alone before saying it no longer breaks
        ok = broken([name])[0]
    result[name] = {"breaks": ok, "trace_rule": rule_of(name)}
for name in sorted(set(calls) - set(names)):  # no runnable example here (input(), a GPU call)
    result[name] = {"breaks": None, "trace_rule": rule_of(name)}
logger = broken([], [f"logging.getLogger('torchlint_probe').{m}(" + ("logging.INFO, " if m == "log" else "") + "'x')"
                     for m in data["logger_methods"] if m != "exception" and hasattr(logging.Logger, m)])
deep = broken([], ["copy.deepcopy(x)"])
print(json.dumps({"calls": result, "logger_methods": all(logger), "deepcopy": all(deep)}))
'''

#: what torchlint/dynamic/cudagraphs.py reads from inductor, checked in each torch's source
CUDAGRAPH_NEEDLES = (
    ("skip message", "_inductor", "skipping cudagraphs due to"),
    ("partition log", "_inductor/scheduler.py", "graph partitions: %d cudagraphable"),
    ("partition node reason", "_inductor/scheduler.py", "reason={reason}"),
    ("partition counter", "_inductor", "cudagraph_partitions"),
    ("recording hook", "_inductor/cudagraph_trees.py", "def record_function("),
    ("reduce-overhead backend", "__init__.py", "class _TorchCompileInductorWrapper"),
)


def _source_has(torch_dir: str, where: str, needle: str) -> bool:
    target = os.path.join(torch_dir, where)
    files = (
        [target]
        if target.endswith(".py")
        else [os.path.join(d, f) for d, _, fs in os.walk(target) for f in fs if f.endswith(".py")]
    )
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                if needle in fh.read():
                    return True
        except OSError:
            continue
    return False


def _run(cmd: list[str], cwd: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    env.pop("TORCH_LOGS", None)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def _json_of(proc: subprocess.CompletedProcess, what: str) -> Any:
    try:
        return json.loads(proc.stdout[proc.stdout.index("{") :])
    except ValueError:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{what} gave no JSON (exit {proc.returncode}): {tail[:200]}") from None


def probe(fixture_dirs: list[str]) -> dict[str, Any]:
    """Everything measured on the torch of the running interpreter (called inside a venv)."""
    import importlib.metadata
    import importlib.util

    python = sys.executable
    version = importlib.metadata.version("torch")
    result: dict[str, Any] = {"torch": version, "parsers": {}}
    start = time.time()

    verify = _json_of(
        _run([python, "-m", "torchlint", "rules", "--verify", "--all", "--format", "json"], REPO),
        "torchlint rules --verify",
    )
    result["rules"] = {
        e["rule"]: {k: e.get(k) for k in ("status", "gb_codes", "bad_lines", "good_lines", "error")}
        for e in verify["rules"]
    }
    say(f"  rules --verify: {time.time() - start:.0f}s")

    fixtures: dict[str, Any] = {}
    seen_codes = {c for e in verify["rules"] for c in e.get("gb_codes") or []}
    unresolved: list[str] = []
    recompile_words: list[str] = []
    for folder in fixture_dirs:
        t0 = time.time()
        report = _json_of(
            _run([python, "-m", "torchlint", "check", ".", "--no-static", "--format", "json", "--exit-zero"], folder),
            f"torchlint check {folder}",
        )
        direct = _json_of(_run([python, "-c", DIRECT, folder], folder), f"direct dynamo run in {folder}")
        label = os.path.relpath(folder, REPO) if folder.startswith(REPO) else folder
        for t in report["targets"]:
            mine = sorted(
                {
                    (f["path"], f["line"])
                    for f in report["findings"]
                    if f.get("target") == t["target"] and f.get("source") in ("dynamic", "both")
                }
            )
            d = direct.get(t["target"], {"lines": [], "recompiles": 0, "error": "not run"})
            want = sorted(tuple(x) for x in d["lines"])
            fixtures[f"{label}/{t['target']}"] = {
                "graph_breaks": t["graph_breaks"],
                "direct": len(want),
                "recompiles": t["recompiles"],
                "direct_recompiles": d["recompiles"],
                "same_lines": [list(x) for x in mine] == [list(x) for x in want],
                "error": t.get("error") or d.get("error"),
            }
            for f in report["findings"]:
                if f.get("target") == t["target"] and f.get("source") in ("dynamic", "both"):
                    if f.get("gb_code"):
                        seen_codes.add(f["gb_code"])
                    else:
                        unresolved.append(f"{f['path']}:{f['line']}")
            recompile_words.extend(r["reason"] for r in t.get("recompile_reasons") or [])
        say(f"  fixtures {label}: {time.time() - t0:.0f}s")
    result["fixtures"] = fixtures

    t0 = time.time()
    result["skipped_calls"] = _json_of(_run([python, "-c", SKIPPED], REPO), "skipped-call probe")
    say(f"  skipped calls: {time.time() - t0:.0f}s")

    # parsers
    from torchlint.dynamic.gb_registry import load_registry, registry_path

    registry = load_registry()
    path = registry_path()
    with open(path, encoding="utf-8") if path else open(os.devnull) as fh:
        known = set(json.loads(fh.read() or "{}"))  # the codes this torch registers
    missing = sorted(c for c in seen_codes if c not in known)
    result["parsers"]["gb_registry"] = (
        "ok"
        if len(registry) and not missing and not unresolved
        else f"not supported: {len(registry)} types; codes not in it {missing}; breaks without a code {unresolved[:5]}"
    )
    fixture_ok = all(f["same_lines"] and f["graph_breaks"] == f["direct"] and not f["error"] for f in fixtures.values())
    result["parsers"]["log_records"] = "ok" if fixture_ok else "not supported: fixture break lines differ from dynamo's"
    rec_ok = all(f["recompiles"] == f["direct_recompiles"] for f in fixtures.values())
    unparsed = [w for w in recompile_words if w.startswith("guard failed")]
    result["parsers"]["recompile_reasons"] = (
        "ok"
        if rec_ok and recompile_words and not unparsed
        else f"not supported: counts equal {rec_ok}, {len(recompile_words)} reasons, unparsed {unparsed[:2]}"
    )
    spec = importlib.util.find_spec("torch")
    torch_dir = list(spec.submodule_search_locations)[0]
    absent = [what for what, where, needle in CUDAGRAPH_NEEDLES if not _source_has(torch_dir, where, needle)]
    result["parsers"]["cudagraph_messages"] = (
        "source-checked (no GPU here)" if not absent else f"not supported: {', '.join(absent)} not in this torch"
    )

    result["seconds"] = round(time.time() - start, 1)
    return result


def run_dynamo_tests() -> dict[str, Any]:
    """``pytest -m dynamo`` on the torch of the running interpreter: passed/failed/skipped."""
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "junit.xml")
        proc = _run(
            [
                python,
                "-m",
                "pytest",
                "-q",
                "-m",
                "dynamo",
                "-p",
                "no:cacheprovider",
                f"--junitxml={xml}",
                "-W",
                "ignore",
            ],
            REPO,
            timeout=3600,
        )
        counts: dict[str, Any] = {"passed": 0, "failed": 0, "skipped": 0}
        failed: list[str] = []
        if os.path.exists(xml):
            for case in ET.parse(xml).getroot().iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    counts["failed"] += 1
                    failed.append(f"{case.get('classname')}::{case.get('name')}")
                elif case.find("skipped") is not None:
                    counts["skipped"] += 1
                else:
                    counts["passed"] += 1
        else:
            counts["error"] = (proc.stdout.strip().splitlines() or ["pytest did not run"])[-1]
        counts["failures"] = failed
    return counts


# --------------------------------------------------------------------------- matrix and table


def minor(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


def build_matrix(results: dict[str, dict[str, Any]], old: dict[str, Any]) -> dict[str, Any]:
    """The committed data: per version (major.minor), keeping versions not re-measured."""
    matrix = {
        "_comment": (
            "Measured by benchmarks/torch_matrix.py: each rule page's examples "
            "(rules --verify), the fixture targets and the skipped calls, per torch version. "
            "Read by torchlint.matrix (the torch-version setting, TL009, the rule pages' "
            "'Breaks on' line); tests/test_torch_matrix.py checks the installed torch agrees."
        ),
        "versions": dict(old.get("versions", {})),
    }
    for version, r in results.items():
        matrix["versions"][minor(version)] = {
            "torch": r["torch"],
            # rules about comments (TL9xx: "not-a-break") have nothing of torch's to measure
            "rules": {
                code: {"status": e["status"], "gb_codes": e["gb_codes"] or []}
                for code, e in sorted(r["rules"].items())
                if e["status"] != "not-a-break"
            },
            # a call without a runnable example (input(), a GPU call) stays in on every version
            "skipped_calls": sorted(n for n, e in r["skipped_calls"]["calls"].items() if e["breaks"] is not False),
            "trace_rules": {n: e["trace_rule"] for n, e in sorted(r["skipped_calls"]["calls"].items())},
            "logger_methods_break": r["skipped_calls"]["logger_methods"],
            "deepcopy_breaks": r["skipped_calls"]["deepcopy"],
            "fixtures": {
                k: {"graph_breaks": v["graph_breaks"], "dynamo": v["direct"], "recompiles": v["recompiles"]}
                for k, v in sorted(r["fixtures"].items())
            },
            "parsers": r["parsers"],
            "tests": {k: v for k, v in r.get("tests", {}).items() if k != "failures"}
            or old.get("versions", {}).get(minor(version), {}).get("tests"),
        }
    matrix["versions"] = dict(sorted(matrix["versions"].items(), key=lambda kv: [int(p) for p in kv[0].split(".")]))
    _mark_changed(matrix)
    return matrix


def _mark_changed(matrix: dict[str, Any]) -> None:
    """A live rule whose GB codes differ from the oldest version's is ``changed``."""
    versions = list(matrix["versions"])
    if not versions:
        return
    base = matrix["versions"][versions[0]]["rules"]
    for v in versions[1:]:
        for code, entry in matrix["versions"][v]["rules"].items():
            ref = base.get(code)
            if entry["status"] == "changed":
                entry["status"] = "live"
            if (
                entry["status"] == "live"
                and ref
                and ref["status"] == "live"
                and sorted(entry["gb_codes"]) != sorted(ref["gb_codes"])
            ):
                entry["status"] = "changed"
                entry["was"] = ref["gb_codes"]


def table(matrix: dict[str, Any], notes: dict[str, str], results: dict[str, dict[str, Any]]) -> str:
    versions = list(matrix["versions"])
    if not versions:
        return "\n".join(f"torch {v}: {n}" for v, n in notes.items()) or "nothing measured"
    cols = [f"torch {matrix['versions'][v]['torch']}" for v in versions]
    codes = sorted({c for v in versions for c in matrix["versions"][v]["rules"]})

    def cell(v: str, code: str) -> str:
        e = matrix["versions"][v]["rules"].get(code)
        if e is None:
            return "-"
        if e["status"] == "changed":
            return f"changed {'/'.join(e['gb_codes'])}"
        if e["status"] == "live":
            return f"live {'/'.join(e['gb_codes'])}"
        return e["status"]

    from torchlint.rules import rules_by_code

    rules = rules_by_code()
    width = max(22, *(len(c) for c in cols), *(len(cell(v, c)) for v in versions for c in codes)) + 2
    out = ["rule".ljust(30) + "".join(c.ljust(width) for c in cols)]
    for code in codes:
        name = rules[code].name if code in rules else "?"
        out.append(f"{code} {name}"[:29].ljust(30) + "".join(cell(v, code).ljust(width) for v in versions))
    out.append("")
    skipped_all = sorted({n for v in versions for n in matrix["versions"][v]["trace_rules"]})
    out.append(
        "skipped calls that break".ljust(30)
        + "".join(f"{len(matrix['versions'][v]['skipped_calls'])}/{len(skipped_all)}".ljust(width) for v in versions)
    )
    for name in skipped_all:
        rows = [
            "-"
            if name not in matrix["versions"][v]["trace_rules"]
            else "breaks"
            if name in matrix["versions"][v]["skipped_calls"]
            else "traced"
            for v in versions
        ]
        if "traced" in rows:
            out.append(f"  {name}"[:29].ljust(30) + "".join(r.ljust(width) for r in rows))
    out.append("")
    fixtures = sorted({k for v in versions for k in matrix["versions"][v]["fixtures"]})
    out.append("fixture graph breaks (torchlint = dynamo)")
    for k in fixtures:
        row = []
        for v in versions:
            f = matrix["versions"][v]["fixtures"].get(k)
            if f is None:
                row.append("-")
            else:
                same = "=" if f["graph_breaks"] == f["dynamo"] else "!="
                row.append(f"{f['graph_breaks']} {same} {f['dynamo']}")
        out.append(f"  {k.split('/', 1)[-1]}"[:29].ljust(30) + "".join(c.ljust(width) for c in row))
    totals = []
    for v in versions:
        fs = matrix["versions"][v]["fixtures"].values()
        ok = all(f["graph_breaks"] == f["dynamo"] for f in fs)
        totals.append(f"{sum(f['graph_breaks'] for f in fs)} {'=' if ok else '!='} {sum(f['dynamo'] for f in fs)}")
    out.append("  total".ljust(30) + "".join(c.ljust(width) for c in totals))
    out.append("")
    for parser in ("log_records", "gb_registry", "recompile_reasons", "cudagraph_messages"):
        out.append(
            f"parser {parser}"[:29].ljust(30)
            + "".join(
                (
                    matrix["versions"][v]["parsers"]
                    .get(parser, "-")[: width - 2]
                    .replace(" (no GPU here)", " (no GPU)")
                ).ljust(width)
                for v in versions
            )
        )
    tests = []
    for v in versions:
        t = matrix["versions"][v].get("tests") or {}
        tests.append(f"{t.get('passed', '?')} passed, {t.get('failed', '?')} failed" if t else "not run")
    out.append("pytest -m dynamo".ljust(30) + "".join(c.ljust(width) for c in tests))
    for version, r in results.items():
        for failure in (r.get("tests") or {}).get("failures", []):
            out.append(f"  failed on {version}: {failure}")
        for k, f in r["fixtures"].items():
            if not f["same_lines"]:
                out.append(f"  {version} {k}: torchlint's break lines differ from dynamo's")
            if f["recompiles"] != f["direct_recompiles"]:
                out.append(f"  {version} {k}: {f['recompiles']} recompiles, dynamo logs {f['direct_recompiles']}")
    for version, note in notes.items():
        out.append(f"torch {version}: {note}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--versions", default=",".join(DEFAULT_VERSIONS))
    ap.add_argument(
        "--fixtures",
        action="append",
        default=[],
        metavar="DIR",
        help="another folder of fixture models with [[tool.torchlint.targets]] (repeatable)",
    )
    ap.add_argument("--venvs", default=os.path.expanduser("~/.cache/torchlint-matrix"))
    ap.add_argument("--no-tests", action="store_true", help="skip pytest -m dynamo")
    ap.add_argument("--no-write", action="store_true", help="print only; do not write the matrix or the pages")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="take each version's last measurement (kept beside its venv) instead of measuring",
    )
    ap.add_argument(
        "--tests-only",
        action="store_true",
        help="take each version's last measurement and run only pytest -m dynamo again",
    )
    ap.add_argument("--probe", metavar="OUT", help=argparse.SUPPRESS)
    ap.add_argument("--probe-tests", metavar="OUT", help=argparse.SUPPRESS)
    ap.add_argument(
        "--pages", action="store_true", help="only write the rule pages' 'Breaks on' lines from the committed matrix"
    )
    args = ap.parse_args(argv)
    fixture_dirs = [os.path.join(REPO, "fixtures")] + [os.path.abspath(d) for d in args.fixtures]

    if args.probe or args.probe_tests:  # inside one version's environment
        data = probe(fixture_dirs) if args.probe else run_dynamo_tests()
        with open(args.probe or args.probe_tests, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        return 0

    sys.path.insert(0, REPO)
    if args.pages:
        from torchlint.matrix import write_breaks_on_lines

        pages = write_breaks_on_lines(folder=os.path.join(REPO, "docs", "rules"))
        say(f"'Breaks on' lines updated in {pages} rule pages")
        return 0
    os.makedirs(args.venvs, exist_ok=True)
    results: dict[str, dict[str, Any]] = {}
    pythons: dict[str, str] = {}
    notes: dict[str, str] = {}
    for version in [v.strip() for v in args.versions.split(",") if v.strip()]:
        t0 = time.time()
        out = os.path.join(args.venvs, f"{version}.result.json")
        if (args.reuse or args.tests_only) and os.path.exists(out):
            with open(out, encoding="utf-8") as fh:
                results[version] = json.load(fh)
            say(f"torch {version}: the last measurement ({out})")
            if args.tests_only and installed_torch(venv_python(args.venvs, version)):
                pythons[version] = venv_python(args.venvs, version)
            continue
        python, note = ensure_venv(args.venvs, version)
        if python is None:
            notes[version] = f"skipped: {note}"
            say(f"torch {version}: {notes[version]}")
            continue
        say(f"torch {version}: environment {note} ({time.time() - t0:.0f}s); measuring...")
        pythons[version] = python
        cmd = [python, os.path.abspath(__file__), "--probe", out] + sum((["--fixtures", d] for d in args.fixtures), [])
        proc = subprocess.run(cmd, cwd=REPO)
        if proc.returncode or not os.path.exists(out):
            notes[version] = f"skipped: the probe failed (exit {proc.returncode})"
            continue
        with open(out, encoding="utf-8") as fh:
            results[version] = json.load(fh)
        say(f"torch {version}: measured in {results[version]['seconds']:.0f}s")

    old: dict[str, Any] = {}
    if os.path.exists(MATRIX):
        with open(MATRIX, encoding="utf-8") as fh:
            old = json.load(fh)

    def write(matrix: dict[str, Any]) -> None:
        from torchlint.atomic import write_text_atomic
        from torchlint.matrix import write_breaks_on_lines

        write_text_atomic(MATRIX, json.dumps(matrix, indent=1, sort_keys=False) + "\n")
        changed = write_breaks_on_lines(matrix, os.path.join(REPO, "docs", "rules"))
        say(f"wrote {os.path.relpath(MATRIX, REPO)}; 'Breaks on' lines updated in {changed} rule pages")

    matrix = build_matrix(results, old)
    if not args.no_write and results:
        write(matrix)  # first: the tests read the matrix (which calls break on their torch, ...)
    if not args.no_tests:
        for version, python in pythons.items():
            t0 = time.time()
            out = os.path.join(args.venvs, f"{version}.tests.json")
            proc = subprocess.run([python, os.path.abspath(__file__), "--probe-tests", out], cwd=REPO)
            if proc.returncode == 0 and os.path.exists(out):
                with open(out, encoding="utf-8") as fh:
                    results[version]["tests"] = json.load(fh)
                with open(os.path.join(args.venvs, f"{version}.result.json"), "w", encoding="utf-8") as fh:
                    json.dump(results[version], fh)
            say(f"torch {version}: pytest -m dynamo in {time.time() - t0:.0f}s")
        matrix = build_matrix(results, old)
        if not args.no_write and results:
            write(matrix)
    print(table(matrix, notes, results))
    ok = all(
        f["graph_breaks"] == f["direct"] and f["same_lines"] for r in results.values() for f in r["fixtures"].values()
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
