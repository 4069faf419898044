"""Fuzz the static pass: generated Python programs and mutated real files.

Programs come from hypothesmith (``from_grammar()``: any text the Python grammar allows;
``from_node()``: libcst syntax trees), each wrapped so that the rules run on it: the
program is the body of an ``nn.Module.forward`` and of an ``@torch.compile`` function.
Mutants are the fixture models truncated, spliced together, overwritten with random bytes,
cut, duplicated or shuffled. Every input goes through the same path as a file on disk
(bytes -> decode -> parse -> lint) and must hold these invariants:

* nothing raises; an error is one line, and never "internal error" or a time limit;
* every finding points at lines that exist, in order (line <= end_line), columns >= 1.

``tests/test_robustness.py`` runs a few thousand inputs through :func:`violation` in CI;
this script runs many more, on every core, and prints the counts, the slowest input and the
wall time against the peer (libcst's bare ``parse_module`` on the same inputs)::

    .venv/bin/python benchmarks/fuzz.py --n 50000 [--jobs 4] [--seed 0]
"""

from __future__ import annotations

import argparse
import builtins
import glob
import keyword
import os
import random
import re
import sys
import time
from collections.abc import Sequence
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")

HEADER = """import math
import torch
from torch import nn


class FuzzNet(nn.Module):
    def forward(self, x, *args, **kwargs):
        y = x.sum()
"""
MIDDLE = """        return x.item()


class Holder:
    @torch.compile
    def fuzzed(self, x, *args, **kwargs):
        y = x.sum()
"""
FOOTER = """        return float(x)
"""


def _indent(program: str, prefix: str) -> str:
    # Prefixes that are multiples of 8 spaces keep tab/space indentation as consistent (or
    # not) as the program had it; lines inside strings only change the strings' text.
    return "".join(prefix + line if line.strip() else line for line in program.splitlines(True))


_WORD = re.compile(r"[^\W\d]\w*")


def _as_tensors(program: str, limit: int = 24) -> str:
    """Lines binding the program's names to the tensor ``y``, so the rules see tensors."""
    names = []
    for word in _WORD.findall(program):
        if word.isidentifier() and not keyword.iskeyword(word) and word not in names and not hasattr(builtins, word):
            names.append(word)
    return "".join(f"        {name} = y\n" for name in names[:limit])


def wrap(program: str) -> str:
    """``program`` as the body of a module's forward and of a compiled function, its names
    bound to tensors first."""
    if program and not program.endswith("\n"):
        program += "\n"
    body = _as_tensors(program) + _indent(program, " " * 8)
    return HEADER + body + MIDDLE + body + FOOTER


# -- mutations of real files ---------------------------------------------------------------
def corpus() -> list[bytes]:
    """The fixture models' bytes: realistic code the rules fire on."""
    out = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "**", "*.py"), recursive=True)):
        with open(path, "rb") as fh:
            out.append(fh.read())
    return out


def _truncate(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _splice(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    other = rng.choice(pool)
    return data[: rng.randrange(len(data) + 1)] + other[rng.randrange(len(other) + 1) :]


def _random_bytes(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
    return data[:at] + junk + data[at + rng.choice((0, len(junk))) :]


def _printable_noise(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = "".join(
        rng.choice("()[]{}:;,.=+-*/%@\\'\"#\t \n\r\x0cxyzif elsefor in.item()") for _ in range(rng.randrange(1, 24))
    )
    return data[:at] + junk.encode() + data[at:]


def _cut(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    a, b = sorted(rng.randrange(len(data) + 1) for _ in range(2))
    return data[:a] + data[b:]


def _duplicate(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    a, b = sorted(rng.randrange(len(data) + 1) for _ in range(2))
    return data[:b] + data[a:b] + data[b:]


def _shuffle_lines(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    lines = data.splitlines(True)
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def _line_endings(data: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    return data.replace(b"\n", rng.choice((b"\r\n", b"\r", b"\n\x0c", b" \\\n")))


MUTATORS: list[Callable[[bytes, random.Random, Sequence[bytes]], bytes]] = [
    _truncate,
    _splice,
    _random_bytes,
    _printable_noise,
    _cut,
    _duplicate,
    _shuffle_lines,
    _line_endings,
]


def mutate(data: bytes, rng: random.Random, pool: Sequence[bytes], rounds: int = 3) -> bytes:
    for _ in range(rng.randrange(1, rounds + 1)):
        data = rng.choice(MUTATORS)(data, rng, pool)
    return data


# -- the invariants ------------------------------------------------------------------------
_RULES = None


def rules():
    global _RULES
    if _RULES is None:
        from torchlint.rules import all_rules

        _RULES = list(all_rules())
    return _RULES


def violation(data: bytes, path: str = "fuzzed.py") -> str | None:
    """Why the static pass mishandled ``data`` (as a file's bytes), or None when it held."""
    from torchlint.files import FileProblem, decode_source, source_lines
    from torchlint.static.lint import lint_file

    try:
        source = decode_source(data)
    except FileProblem as exc:
        return None if "\n" not in str(exc) else f"multi-line read error: {exc!r}"
    except Exception as exc:  # noqa: BLE001 - that is the bug being looked for
        return f"decode raised {type(exc).__name__}: {exc}"
    try:
        result = lint_file(path, source, rules())
    except BaseException as exc:  # noqa: BLE001
        return f"lint_file raised {type(exc).__name__}: {exc}"
    if result.error is not None:
        if "\n" in result.error:
            return f"multi-line error: {result.error!r}"
        if result.error.startswith(("internal error", "analysis stopped")):
            return result.error
    lines = len(source_lines(source))
    for f in result.findings:
        if not (1 <= f.line <= f.end_line <= max(lines, 1)) or f.column < 1 or f.end_column < 1:
            return f"{f.rule} at {f.line}:{f.column}-{f.end_line}:{f.end_column} outside the file's {lines} lines"
    return None


# -- the long run --------------------------------------------------------------------------
def _chunk(args) -> dict:
    """One process's share: ``count`` inputs of ``kind`` from ``seed``."""
    kind, count, seed = args
    import hypothesis
    import libcst
    from hypothesis import HealthCheck, Phase, given, settings

    stats = {"programs": 0, "failures": [], "slowest": (0.0, ""), "seconds": 0.0, "peer": 0.0, "unparsable": 0}

    def one(data: bytes) -> None:
        started = time.perf_counter()
        problem = violation(data)
        took = time.perf_counter() - started
        stats["programs"] += 1
        stats["seconds"] += took
        if took > stats["slowest"][0]:
            stats["slowest"] = (took, data[:200].decode("utf-8", "replace"))
        if problem:
            stats["failures"].append((problem, data.decode("utf-8", "replace")))
        started = time.perf_counter()
        try:
            libcst.parse_module(data.decode("utf-8"))
        except Exception:  # noqa: BLE001 - inputs that do not parse: counted, not failures
            stats["unparsable"] += 1
        stats["peer"] += time.perf_counter() - started

    if kind == "mutant":
        rng, pool = random.Random(seed), corpus()
        for _ in range(count):
            one(mutate(rng.choice(pool), rng, pool))
        return stats

    import hypothesmith

    strategy = hypothesmith.from_grammar() if kind == "grammar" else hypothesmith.from_node()

    @hypothesis.seed(seed)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(program: str) -> None:
        one(wrap(program).encode("utf-8", "surrogatepass"))

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings from hypothesmith's compile() checks
        run()
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="inputs in all (default 5000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=500, help="inputs per task")
    args = parser.parse_args(argv)

    # 60% grammar programs, 10% libcst-node programs (five times slower to generate), 30%
    # mutated fixture files.
    shares = [("grammar", args.n * 6 // 10), ("node", args.n // 10)]
    shares.append(("mutant", args.n - sum(n for _, n in shares)))
    tasks, seed = [], args.seed
    for kind, total in shares:
        while total > 0:
            size = min(args.chunk, total)
            tasks.append((kind, size, seed))
            total -= size
            seed += 1

    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    started = time.perf_counter()
    totals = {
        "programs": 0,
        "failures": [],
        "slowest": (0.0, ""),
        "seconds": 0.0,
        "peer": 0.0,
        "unparsable": 0,
        "dead": 0,
    }
    by_kind = {kind: 0 for kind, _ in shares}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [(task, pool.submit(_chunk, task)) for task in tasks]
        for (kind, _size, _), future in futures:
            try:
                stats = future.result()
            except BrokenProcessPool:  # a hard crash (stack overflow in native code, ...)
                totals["dead"] += 1
                continue
            by_kind[kind] += stats["programs"]
            for key in ("programs", "seconds", "peer", "unparsable"):
                totals[key] += stats[key]
            totals["failures"].extend(stats["failures"])
            totals["slowest"] = max(totals["slowest"], tuple(stats["slowest"]))
            done = totals["programs"]
            print(
                f"  {done} inputs, {len(totals['failures'])} failures, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - started

    print(f"inputs:            {totals['programs']} ({', '.join(f'{k} {v}' for k, v in by_kind.items())})")
    print(f"invariant failures: {len(totals['failures'])}")
    print(f"unparsable inputs:  {totals['unparsable']} (libcst refuses them; each must be a one-line error)")
    print(f"crashed processes:  {totals['dead']}")
    print(f"wall time:          {wall:.1f} s on {args.jobs} processes ({totals['programs'] / wall:.0f} inputs/s)")
    per = totals["seconds"] / max(totals["programs"], 1)
    print(f"static pass:        {per * 1000:.2f} ms per input (slowest {totals['slowest'][0]:.2f} s)")
    print(
        f"peer (libcst.parse_module alone): {totals['peer'] / max(totals['programs'], 1) * 1000:.2f} "
        f"ms per input; torchlint/peer = {totals['seconds'] / max(totals['peer'], 1e-9):.2f}x"
    )
    for problem, text in totals["failures"][:5]:
        print(f"\nFAILURE: {problem}\n{text[:2000]}")
    return 1 if totals["failures"] or totals["dead"] else 0


if __name__ == "__main__":
    sys.exit(main())
