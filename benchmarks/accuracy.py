"""Line-level accuracy of the static pass against dynamo's real graph breaks.

Sources: every file in ``fixtures/`` (its dynamic target and sample inputs come from
``fixtures/pyproject.toml``) and the bad and good example of every rule page. For each source
the static pass runs with every default rule, and the same code runs through dynamo on the
installed torch (the oracle of :mod:`torchlint.dynamic.observe`: explain + the graph_breaks
log + counters). A static line is a true positive when dynamo breaks on that line.

The peer is a plain regex search for the same patterns without torchlint's compiled-region
and tensor inference (what a grep-based check would report), to show what that inference
buys. Without torch, the fixtures fall back to ``fixtures/expected_breaks.json`` (measured on
torch 2.13) and the rule pages are skipped.

A separate set is real package code: the modeling files of ``transformers`` models built from
tiny configs and run through dynamo in eval and train mode (:mod:`real_models`); it is scored
and printed apart (``real models ...``), and skipped without transformers or with
``--no-real``.

    python benchmarks/accuracy.py [-v] [--with-tests] [--no-real]

``-v`` lists the lines each source gets wrong; ``--with-tests`` adds the dynamo-checked
snippets of the rule tests in ``tests/rules`` (positives and look-alikes) to the set.

The last line reads ``static precision=P recall=R (tp=.. fp=.. fn=..)`` for the fixtures,
pages (and tests); the real models' line comes before it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from torchlint.config import Settings  # noqa: E402
from torchlint.pages import pages  # noqa: E402
from torchlint.rules import enabled_rules  # noqa: E402
from torchlint.static.lint import lint_file  # noqa: E402
from torchlint.verify import silenced  # noqa: E402

FIXTURES = os.path.join(REPO, "fixtures")
HAS_TORCH = importlib.util.find_spec("torch") is not None

# The grep peer: the rules' patterns, matched anywhere in a line of code.
PEER = re.compile(
    r"\.item\(\)|\.tolist\(\)|\bprint\(|\b(?:float|int|bool|str|repr)\(|\bmath\.\w+\(|"
    r"^\s*(?:if|elif|while)\b.*[<>]|\bif\b.*\belse\b|\bfor\b.*\bin\b.*\]|"
    r"nonzero|unique|masked_select|repeat_interleave|bincount|\bnn\.(?:Linear|Conv\dd|LayerNorm|"
    r"Parameter|GRU|LSTM|RNN)\(|\btime\.\w+\(|\brandom\.\w+\(|warnings\.warn|logging\.|"
    r"\.backward\(|autograd\.grad|graph_break|deepcopy|\[[^\]]*[<>][^\]]*\]"
)


@dataclass
class Source:
    label: str
    code: str
    path: str | None = None  # a fixture file; None for page examples
    target: str | None = None
    inputs: list[str] | None = None
    train: bool = False  # run in train mode, and linted for training (`--train`)
    breaks: set[int] = field(default_factory=set)
    static: set[int] = field(default_factory=set)
    peer: set[int] = field(default_factory=set)
    measured: str = "dynamo"


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, predicted: set[int], real: set[int]) -> Score:
        self.tp += len(predicted & real)
        self.fp += len(predicted - real)
        self.fn += len(real - predicted)
        return self

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def fixture_sources() -> list[Source]:
    out = []
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith(".py"):
            path = os.path.join(FIXTURES, name)
            with open(path, encoding="utf-8") as handle:
                out.append(Source(f"fixtures/{name}", handle.read(), path=path))
    return out


def page_sources() -> list[Source]:
    """The graph-break rules' pages (TL1xx performance warnings are not graph breaks)."""
    from torchlint.rules import rules_by_code

    breaks = {code for code, rule in rules_by_code().items() if rule.severity == "error"}
    out = []
    for code, page in sorted(pages().items()):
        if code not in breaks:
            continue
        for which, example in (("bad", page.bad), ("good", page.good)):
            out.append(Source(f"{code} {which}", example.code, target=example.target, inputs=example.inputs))
    return out


def test_case_sources() -> list[Source]:
    """The snippets of the rule tests (tests/rules/test_*.py) that the tests also run through dynamo."""
    import glob
    import importlib

    sys.path[:0] = [os.path.join(REPO, "tests", "rules"), os.path.join(REPO, "tests")]
    from rule_cases import source as dedented

    out = []
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "rules", "test_*.py"))):
        with open(path, encoding="utf-8") as fh:
            if "from rule_cases import" not in fh.read():
                continue  # not a module of rule cases
        module = importlib.import_module(os.path.basename(path)[:-3])
        for name, case in sorted(getattr(module, "CASES", {}).items()):
            if case.dynamo is not None:
                out.append(
                    Source(
                        f"test {name}"[:34],
                        dedented(case.snippet),
                        target=case.dynamo.get("target"),
                        inputs=case.dynamo.get("inputs"),
                        train=bool(case.dynamo.get("train")),
                    )
                )
    return out


def fixture_targets() -> dict[str, object]:
    """fixture file name -> its TargetSpec from fixtures/pyproject.toml."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    from torchlint.dynamic.targets import target_from_config

    with open(os.path.join(FIXTURES, "pyproject.toml"), "rb") as handle:
        tables = tomllib.load(handle)["tool"]["torchlint"].get("targets", [])
    specs = {}
    for table in tables:
        spec = target_from_config(table, base_dir=FIXTURES)
        specs[os.path.basename(spec.ref.path)] = spec
    return specs


def measure_fixture(source: Source, spec) -> set[int]:
    """Dynamo's break lines in the fixture, running its declared target on its sample inputs."""
    from torchlint.dynamic.load import load_input_sets, load_inputs, load_target, materialize
    from torchlint.dynamic.observe import observe

    obj, path = load_target(spec.ref, FIXTURES)
    calls = []
    if spec.inputs_from is not None:
        calls.append(load_inputs(spec.inputs_from, FIXTURES))
    for call in spec.input_sets:
        calls.append((tuple(materialize(s, seed=i) for i, s in enumerate(call)), {}))
    if spec.input_sets_from is not None:
        calls.extend(load_input_sets(spec.input_sets_from, FIXTURES))
    obs = observe(obj, [c[0] for c in calls], kwarg_sets=[c[1] for c in calls], user_files={path}, train=spec.train)
    return obs.break_lines(path)


def measure(sources: list[Source]) -> None:
    """Fill each source's ``breaks`` from dynamo, or from expected_breaks.json without torch."""
    fixtures = [s for s in sources if s.path is not None]
    if not HAS_TORCH:
        with open(os.path.join(FIXTURES, "expected_breaks.json"), encoding="utf-8") as handle:
            expected = json.load(handle)
        for s in fixtures:
            entry = expected.get(os.path.basename(s.path), {"breaks": []})
            s.breaks = {b["line"] for b in entry["breaks"]}
            s.measured = "expected_breaks.json"
        return
    from torchlint.dynamic.observe import observe_source

    specs = fixture_targets()
    for s in sources:
        try:
            with silenced():
                if s.path is not None:
                    spec = specs.get(os.path.basename(s.path))
                    s.breaks = measure_fixture(s, spec) if spec is not None else set()
                    if spec is None:
                        s.measured = "no target (nothing compiled)"
                else:
                    obs, path = observe_source(s.code, s.target, s.inputs, train=s.train)
                    s.breaks = obs.break_lines(path)
        except Exception as exc:  # noqa: BLE001 (a broken example is reported, scored as no break)
            first = (str(exc).strip().splitlines() or [""])[0]
            s.measured = f"dynamo run failed: {type(exc).__name__}: {first[:80]}"


def fmt(score: Score) -> str:
    return f"{score.precision:5.2f} {score.recall:5.2f}"


def real_models(rules, verbose: bool) -> None:
    """The real package set, scored and printed on its own."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from real_models import real_sources

    sources = real_sources()
    if not sources:
        print("real models: transformers is not installed, skipped")
        return
    score, peer = Score(), Score()
    for s in sources:
        static = {f.line for f in lint_file(s.path, s.code, rules).findings}
        grep = {n for n, line in enumerate(s.code.splitlines(), 1) if PEER.search(line.split("#", 1)[0])}
        one = Score().add(static, s.breaks)
        score.add(static, s.breaks)
        peer.add(grep, s.breaks)
        note = f"  ({s.error})" if s.error else ""
        print(f"{s.label:44s} {len(s.breaks):6d} {len(static):6d} {one.tp:3d} {one.fp:3d} {one.fn:3d}{note}")
        if verbose and static != s.breaks:
            lines = s.code.splitlines()
            for n in sorted(static - s.breaks):
                print(f"    fp {n}: {lines[n - 1].strip()[:90]}")
            for n in sorted(s.breaks - static):
                print(f"    fn {n}: {lines[n - 1].strip()[:90]}")
    print(
        f"real models  static precision={score.precision:.2f} recall={score.recall:.2f} "
        f"(tp={score.tp} fp={score.fp} fn={score.fn}; {len(sources)} transformers modeling files); "
        f"grep peer precision={peer.precision:.2f} recall={peer.recall:.2f}"
    )
    # both modes checked, each finding labelled: one that holds in eval (no label, or "eval") is
    # right when dynamo breaks there in eval; one labelled "train" when it breaks in training
    from torchlint.static.lint import lint_source_modes

    moded = Score()
    for s in sources:
        if not s.by_mode:
            continue
        found = lint_source_modes(s.code, s.path, rules)
        right = {f.line for f in found if f.line in s.by_mode.get("train" if f.mode == "train" else "eval", set())}
        lines = {f.line for f in found}
        moded.tp += len(right)
        moded.fp += len(lines - right)
        moded.fn += len(s.breaks - lines)
    print(
        f"real models, eval and training labelled  precision={moded.precision:.2f} recall={moded.recall:.2f} "
        f"(tp={moded.tp} fp={moded.fp} fn={moded.fn})"
    )


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    rules = enabled_rules(Settings())
    sources = fixture_sources() + (page_sources() if HAS_TORCH else [])
    if "--with-tests" in argv and HAS_TORCH:
        sources += test_case_sources()
    if not HAS_TORCH:
        print(
            "torch is not installed: fixtures are scored against expected_breaks.json (torch 2.13); rule pages skipped",
            file=sys.stderr,
        )
    started = time.perf_counter()
    for s in sources:
        s.static = {
            f.line for f in lint_file(s.label, s.code, rules, facts={"train": True} if s.train else None).findings
        }
        s.peer = {n for n, line in enumerate(s.code.splitlines(), 1) if PEER.search(line.split("#", 1)[0])}
    static_seconds = time.perf_counter() - started
    started = time.perf_counter()
    measure(sources)
    dynamo_seconds = time.perf_counter() - started

    total, peer_total = Score(), Score()
    groups = {"fixtures": (Score(), Score()), "rule pages": (Score(), Score()), "rule tests": (Score(), Score())}
    print(
        f"{'source':34s} {'breaks':>6s} {'static':>6s} {'tp':>3s} {'fp':>3s} {'fn':>3s}  "
        f"{'prec':>5s} {'rec':>5s}   grep-peer prec rec"
    )
    for s in sources:
        score = Score().add(s.static, s.breaks)
        peer = Score().add(s.peer, s.breaks)
        total.add(s.static, s.breaks)
        peer_total.add(s.peer, s.breaks)
        group = groups["fixtures" if s.path else "rule tests" if s.label.startswith("test ") else "rule pages"]
        group[0].add(s.static, s.breaks)
        group[1].add(s.peer, s.breaks)
        note = "" if s.measured == "dynamo" else f"  ({s.measured})"
        print(
            f"{s.label:34s} {len(s.breaks):6d} {len(s.static):6d} {score.tp:3d} {score.fp:3d} {score.fn:3d}  "
            f"{fmt(score)}   {fmt(peer)}{note}"
        )
        if verbose and (s.static != s.breaks):
            lines = s.code.splitlines()
            for n in sorted(s.static - s.breaks):
                print(f"    fp {n}: {lines[n - 1].strip()}")
            for n in sorted(s.breaks - s.static):
                print(f"    fn {n}: {lines[n - 1].strip()}")
    print()
    for name, (score, peer) in groups.items():
        if not (score.tp or score.fp or score.fn or peer.tp or peer.fp):
            continue
        print(
            f"{name:12s} static precision={score.precision:.2f} recall={score.recall:.2f} "
            f"(tp={score.tp} fp={score.fp} fn={score.fn}); grep peer precision={peer.precision:.2f} "
            f"recall={peer.recall:.2f} (tp={peer.tp} fp={peer.fp} fn={peer.fn})"
        )
    if HAS_TORCH and "--no-real" not in argv:
        real_models(rules, verbose)
    ratio = (total.precision / peer_total.precision) if peer_total.precision else float("inf")
    print(
        f"static pass: {static_seconds:.2f}s for {len(sources)} sources; dynamo: {dynamo_seconds:.1f}s. "
        f"Precision vs grep peer: {ratio:.1f}x"
    )
    print(
        f"static precision={total.precision:.2f} recall={total.recall:.2f} (tp={total.tp} fp={total.fp} fn={total.fn})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
