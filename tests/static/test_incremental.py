"""Re-parsing only what changed: the trees, positions, findings and summaries are those of a
whole parse, over real files and edits of them."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import libcst as cst
import pytest

from torchlint.analysis.summary import summarize
from torchlint.config import Settings
from torchlint.lsp import core
from torchlint.static.incremental import IncrementalParser, chunk_bounds

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    [
        *ROOT.glob("fixtures/*.py"),
        *ROOT.glob("torchlint/analysis/*.py"),
        *ROOT.glob("torchlint/rules/tl0*.py"),
        *ROOT.glob("tests/projects/**/*.py"),
    ]
)

TRICKY = [
    "import a\n\nclass A:\n\tdef f(self):\n\t\tpass\n\n\nclass B:\n\tx = 1\n",  # tabs
    "import a\r\n\r\nclass A:\r\n    x = 1\r\n\r\ny = 2\r\n",  # CRLF
    # no newline at the end
    "import a\n\nclass A:\n    x = 1\n    # the block's footer\n\n# the next statement's\n\ny = 2",
    "x = 1\n\ny = 2\n\nclass A:\n  z = 3\n\n\nclass B:\n    w = 4\n",  # the file's indent is the first block's
    "x = 1\n\nmatch x:\n    case 1:\n        pass\n\ny = 2\n",
    "x = 1\n\ny = 2\n\x0c\nz = 3\n",  # a form feed is a line to Python, not to str.splitlines
    "x = 1\n\n@dec\n\n@dec2\ndef f():\n    pass\n\n\nif a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n\n"
    "try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n",
    "x = 1; y = 2\n\nz = '''a\n\nb'''\n\nw = 3\n   \nv = 4\n",  # a whitespace-only line is no cut
    "def f():\n    return 1\n\n\n\n",
    "x = (1,\n\n2)\n\ny = 3\n",
    "\n\n# header\n\nx = 1\n\ny = 2 \\\n  + 3\n\nz = 1\n",
    "class A:\n    pass\n\nx = 1\ry = 2\r\n",  # mixed line endings: a whole parse
]


def _edits(source: str, rng: random.Random, n: int):
    """``n`` successive edits of ``source`` an editor could make (a line duplicated, removed,
    a blank line added, a name changed)."""
    for _ in range(n):
        lines = source.splitlines(True) or ["\n"]
        i = rng.randrange(len(lines))
        op = rng.choice(["dup", "del", "blank", "rename"])
        if op == "dup":
            lines.insert(i, lines[i])
        elif op == "del":
            del lines[i]
        elif op == "blank":
            lines.insert(i, "\n")
        else:
            lines[i] = lines[i].replace("x", "xy", 1)
        source = "".join(lines)
        yield source


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
        cst.parse_module(source)
    except Exception:  # noqa: BLE001
        return False
    return True


def _same_tree(parser: IncrementalParser, source: str) -> bool:
    tree = parser.parse(source, ast.parse(source))
    return tree.code == source and tree.deep_equals(cst.parse_module(source))


@pytest.mark.parametrize("source", TRICKY)
def test_tricky_layouts_give_the_whole_parse_tree(source):
    parser = IncrementalParser()
    for version in (source, source.replace("1", "11"), source + "\n", source.replace("1", "11")):
        assert _same_tree(parser, version), repr(version)


def test_edits_of_real_files_give_the_whole_parse_tree_and_reuse_the_rest():
    rng = random.Random(15)
    versions = reused = parsed = 0
    for path in FILES:
        parser = IncrementalParser()
        for n, source in enumerate([path.read_text(), *_edits(path.read_text(), rng, 3)]):
            if not _parses(source):
                continue
            assert _same_tree(parser, source), path
            versions += 1
            if n:
                reused, parsed = reused + parser.reused, parsed + parser.parsed
    assert versions > 3 * len(FILES)
    assert reused > 3 * parsed  # after an edit, most chunks are not parsed again


def test_a_change_inside_one_class_parses_that_class_only():
    source = (ROOT / "fixtures" / "transformer_block.py").read_text()
    bounds = chunk_bounds(source, ast.parse(source))
    assert bounds is not None and len(bounds) > 3
    parser = IncrementalParser()
    parser.parse(source, ast.parse(source))
    edited = source.replace("def forward(", "def forward(  ", 1)
    parser.parse(edited, ast.parse(edited))
    assert parser.parsed == 1 and parser.reused == len(bounds) - 1


def test_findings_with_reused_trees_and_positions_are_a_whole_lint():
    rng = random.Random(3)
    settings = Settings()
    for path in sorted(ROOT.glob("fixtures/*.py")):
        parser = IncrementalParser()
        text = path.read_text()
        for source in [text, *_edits(text, rng, 4)]:
            got = core.lint_text(source, str(path), settings, parser=parser)
            want = core.lint_text(source, str(path), settings)
            assert got.findings == want.findings and got.problem == want.problem, path


def test_a_syntax_error_mid_edit_is_reported_and_the_next_version_recovers():
    source = (ROOT / "fixtures" / "cnn_item_branch.py").read_text()
    parser = IncrementalParser()
    settings = Settings()
    first = core.lint_text(source, "m.py", settings, parser=parser)
    broken = core.lint_text(source.replace("def forward(self", "def forward((self", 1), "m.py", settings, parser=parser)
    assert broken.findings == [] and broken.problem.startswith("syntax error at line")
    assert core.lint_text(source, "m.py", settings, parser=parser).findings == first.findings


def test_summaries_from_a_memo_equal_whole_summaries():
    rng = random.Random(7)
    for path in FILES:
        memo: dict = {}
        for source in [path.read_text(), *_edits(path.read_text(), rng, 3)]:
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            assert summarize(source, tree, memo) == summarize(source), path


def test_a_module_level_name_read_by_a_later_statement_is_the_same_from_a_memo():
    """Top-level statements are summarised run by run from a memo: a name one statement binds
    (a type alias) and a later one reads is a value of the module either way, not a read of
    something from elsewhere."""
    source = "Pair = tuple[int, int]\nPairs = list[Pair]\n\n\ndef f(p: Pairs) -> None:\n    return None\n"
    whole = summarize(source)
    assert whole is not None and "Pair" not in whole.get("top", {}).get("loads", ())
    assert summarize(source, ast.parse(source), {}) == whole
