"""What the language server computes, with no protocol in it: lint an editor's text, the
fixes of one finding as text edits, the ignore comment, settings per folder.

Everything here works on the editor's in-memory text: nothing is imported or run, nothing
is read from the file being edited (only pyproject.toml files around it).
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from torchlint import suppression
from torchlint.config import ConfigError, Settings, find_config, load_settings, match_path
from torchlint.files import display_path, line_at, source_lines
from torchlint.findings import Finding

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.static.incremental import IncrementalParser

#: (line, character) 0-based, characters as Python counts them (code points)
Pos = tuple[int, int]


@dataclass(frozen=True)
class TextEdit:
    start: Pos
    end: Pos
    new_text: str


# -- settings ---------------------------------------------------------------------------
class SettingsCache:
    """Settings for a document: from the nearest pyproject.toml, re-read when that file (or
    which file is nearest) changes. Each lookup re-stats the candidates, so an edit to the
    config is seen on the next lint even without a file-watch notification."""

    def __init__(self) -> None:
        self._by_file: dict[tuple[str, float, int], Settings] = {}
        self._lock = threading.Lock()
        #: the defaults, one object while nothing changes (what is built from settings is kept
        #: while the settings object is the same)
        self._default = Settings()

    def get(self, path: str) -> tuple[Settings, str | None]:
        """(settings, problem): a broken config gives the defaults and a one-line problem."""
        config = find_config(os.path.dirname(os.path.abspath(path)))
        if config is None:
            return self._default, None
        try:
            st = config.stat()
        except OSError:
            return self._default, None
        key = (str(config), st.st_mtime, st.st_size)
        with self._lock:
            hit = self._by_file.get(key)
            if hit is not None:
                return hit, None
        try:
            settings = load_settings(str(config))
        except ConfigError as exc:
            return self._default, str(exc)
        with self._lock:
            self._by_file = {k: v for k, v in self._by_file.items() if k[0] != str(config)}
            self._by_file[key] = settings
        return settings, None


def relative_path(path: str, settings: Settings) -> str:
    """The path as the config's patterns see it (relative to the config's folder)."""
    root = os.path.abspath(settings.root) if settings.source else os.getcwd()
    return display_path(path, root, absolute=False)


# -- linting ---------------------------------------------------------------------------
_RULES: dict[tuple, list] = {}  # (torch version, codes) -> rule classes


def rules_for(settings: Settings) -> list:
    """The rule classes the settings enable, as ``torchlint check`` picks them (less the rules
    dead on the torch version reported for); kept, so the server loads them once."""
    from torchlint import matrix
    from torchlint.rules import all_rules, enabled_rules

    version = settings.static_torch_version()
    matrix.use_version(version)  # what TL009 and TL005 read, as the check's workers are told
    codes = (version, tuple(settings.enabled_rules([r.code for r in all_rules()])))
    if codes not in _RULES:
        _RULES[codes] = enabled_rules(settings, version)
    return _RULES[codes]


@dataclass
class LintResult:
    findings: list[Finding]
    #: a one-line problem (a syntax error mid-edit, a broken config), else None
    problem: str | None = None


#: what the static pass says of another file in a module mode: its project facts and findings
Reach = Callable[[str, str], "tuple[dict | None, list[Finding]] | None"]
#: files linted at most to tell whether a made object's method breaks (TL021)
MAX_REACHED_FILES = 200


def lint_text(
    text: str,
    path: str,
    settings: Settings,
    *,
    facts: Mapping[str, dict | None] | None = None,
    parser: IncrementalParser | None = None,
    syntax=None,
    reach: Reach | None = None,
) -> LintResult:
    """The static pass on ``text`` as ``torchlint check`` would report it for ``path``:
    enabled rules, ``per-file-ignores``, ``exclude`` and suppression comments honoured, each
    module mode checked and a finding that holds in one alone labelled with it
    (:mod:`torchlint.static.modes`).

    ``facts``: per module mode to check, the file's facts from the project-wide analysis in
    that mode (:meth:`torchlint.lsp.project.WorkspaceProject.facts`); without them, the modes
    the text alone calls for, with no project facts. ``parser``: the trees of the document's
    earlier versions, so that only the statements that changed are parsed; ``syntax``:
    :func:`torchlint.static.limits.syntax_tree` of the text, if already made. ``reach(path,
    mode)``: another file's facts and findings, for TL021 at the text's calls on objects its
    regions make (whether their methods break is in the files that define them)."""
    from torchlint.static.lint import lint_file
    from torchlint.static.modes import facts_for, has_training_loop, label, modes_to_check, reads_mode, same_facts

    rel = relative_path(path, settings)
    if any(match_path(rel, pat) for pat in settings.exclude):
        return LintResult([])
    if facts is None:
        facts = dict.fromkeys(modes_to_check(settings, [has_training_loop(text)]))
    modes = list(facts)
    if len(modes) > 1 and not reads_mode(text) and all(same_facts(facts[m], facts[modes[0]]) for m in modes):
        modes = modes[:1]  # the code and its facts do not depend on the mode: its findings hold in both
    rules = rules_for(settings)
    runs: list[tuple[str, list[Finding]]] = []
    error = None
    for mode in modes:
        fact = facts_for([facts[mode]], [text], settings, mode)[0]
        if parser is None:
            result = lint_file(path, text, rules, facts=fact)
        else:
            result = parser.lint(path, text, rules, facts=fact, syntax=syntax)
        found_here = list(result.findings)
        if reach is not None and any(r.code == "TL021" for r in rules):
            found_here.extend(_rebuilt(path, text, fact, found_here, mode, reach))
        runs.append((mode, found_here))
        error = error or result.error
    found = sorted(label(runs), key=lambda f: f.sort_key)
    ignored = settings.ignored_for(rel)
    findings = [f for f in found if not (f.rule and any(f.rule.startswith(p) for p in ignored))]
    findings = suppression.apply(findings, lambda p: source_lines(text))
    return LintResult(findings, error)


def _rebuilt(path: str, text: str, fact: dict | None, found: list[Finding], mode: str, reach: Reach) -> list[Finding]:
    """TL021's findings in ``text``, as ``torchlint check`` gives them once every file is
    checked (:mod:`torchlint.static.rebuild`): the files that hold the made objects' methods,
    and the functions those call, are linted through ``reach``."""
    from torchlint.static import rebuild
    from torchlint.static.static_pass import uninit_causes

    if not fact or not (fact.get("made_calls") or fact.get("uninit")):
        return []
    me = os.path.abspath(path)
    loaded: dict[str, tuple[dict | None, list[Finding]]] = {me: (fact, found)}
    todo = [tuple(fn) for *_, runs in fact.get("made_calls") or () for pair in runs for fn in pair if fn]
    todo += [tuple(fn) for fn in uninit_causes(fact)]
    seen = set(todo)
    while todo:  # every function reachable from the methods, by the call graph
        fn_path, qual = todo.pop()
        where = os.path.abspath(fn_path)
        if where not in loaded:
            got = reach(where, mode) if len(loaded) < MAX_REACHED_FILES else None
            loaded[where] = got if got is not None else (None, [])
        for target in ((loaded[where][0] or {}).get("calls") or {}).get(qual, ()):
            if tuple(target) not in seen:
                seen.add(tuple(target))
                todo.append(tuple(target))
    paths = [path, *(p for p in loaded if p != me)]
    facts = [fact, *(loaded[p][0] for p in paths[1:])]
    findings = [found, *(loaded[p][1] for p in paths[1:])]
    lines = source_lines(text)
    return rebuild.spread(paths, facts, findings, lambda p, line: line_at(lines, line) if p == path else None)[0]


# -- fixes -------------------------------------------------------------------------------
@dataclass
class FixChoice:
    code: str
    line: int
    column: int
    applicability: str
    description: str
    new_text: str


def fixes_for(text: str, path: str, settings: Settings) -> list[FixChoice]:
    """Each fixable finding's own fix: the text with only that fix applied."""
    from torchlint.fixes.rounds import apply_plans, plan_source

    planned = plan_source(text, path, _fix_options(path, settings, unsafe=True))
    if planned is None or not planned.plans:
        return []
    out = []
    for plan in planned.plans:
        new, used = apply_plans(planned, [plan])
        if used and new != text:
            code, line, column = planned.keys[id(plan)]
            out.append(FixChoice(code, line, column, plan.applicability, plan.description, new))
    return out


def fix_all(text: str, path: str, settings: Settings, *, unsafe: bool = False) -> str:
    """The text after every safe fix (``--fix`` on the buffer)."""
    from torchlint.fixes.rounds import fix_source

    return fix_source(text, path, _fix_options(path, settings, unsafe=unsafe)).new


def _fix_options(path: str, settings: Settings, *, unsafe: bool):
    """What fixing the buffer of ``path`` may do: the enabled rules and the file's ignores."""
    from torchlint.fixes.rounds import FixOptions

    return FixOptions(rules_for(settings), unsafe=unsafe, ignored=settings.ignored_for(relative_path(path, settings)))


def _offsets(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer(r"\r\n|\r|\n", text):
        starts.append(m.end())
    return starts


def _pos(starts: list[int], offset: int) -> Pos:
    import bisect

    line = bisect.bisect_right(starts, offset) - 1
    return line, offset - starts[line]


def text_edits(old: str, new: str) -> list[TextEdit]:
    """Non-overlapping edits turning ``old`` into ``new``: changed line runs, each trimmed
    to the characters that differ."""
    a = old.splitlines(True)
    b = new.splitlines(True)
    starts_a = [0]
    for line in a:
        starts_a.append(starts_a[-1] + len(line))
    starts = _offsets(old)
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lo, hi = starts_a[i1], starts_a[i2]
        repl = "".join(b[j1:j2])
        seg = old[lo:hi]
        p = 0
        while p < len(seg) and p < len(repl) and seg[p] == repl[p]:
            p += 1
        s = 0
        while s < len(seg) - p and s < len(repl) - p and seg[len(seg) - 1 - s] == repl[len(repl) - 1 - s]:
            s += 1
        edits.append(TextEdit(_pos(starts, lo + p), _pos(starts, hi - s), repl[p : len(repl) - s]))
    return edits


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with ``edits`` applied (what an editor does; used by tests and the benchmark)."""
    starts = _offsets(text)
    out, at = [], 0
    for e in sorted(edits, key=lambda e: e.start):
        lo = starts[e.start[0]] + e.start[1] if e.start[0] < len(starts) else len(text)
        hi = starts[e.end[0]] + e.end[1] if e.end[0] < len(starts) else len(text)
        out.append(text[at:lo])
        out.append(e.new_text)
        at = hi
    out.append(text[at:])
    return "".join(out)


_IGNORE = re.compile(r"#\s*torchlint:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)


def ignore_edit(text: str, finding: Finding) -> TextEdit | None:
    """Add ``# torchlint: ignore[CODE]`` at the end of the finding's first line (or add the
    code to the comment already there)."""
    lines = source_lines(text)
    if not finding.rule or not 0 < finding.line <= len(lines):
        return None
    n = finding.line - 1
    line = lines[n]
    m = _IGNORE.search(line)
    if m:
        codes = [c.strip() for c in m.group("codes").split(",") if c.strip()]
        if finding.rule in codes:
            return None
        at = m.end("codes")
        sep = ", " if codes else ""
        return TextEdit((n, at), (n, at), f"{sep}{finding.rule}")
    body = line.rstrip()
    if _in_string_at_end(text, finding.line):
        return None
    return TextEdit((n, len(body)), (n, len(line)), f"  # torchlint: ignore[{finding.rule}]")


def _in_string_at_end(text: str, line: int) -> bool:
    """Whether the line ends inside a multi-line string (a comment there would be text)."""
    import io
    import tokenize

    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and tok.start[0] <= line < tok.end[0]:
                return True
            if tok.start[0] > line:
                break
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return False
    return False


# -- rule pages ---------------------------------------------------------------------------
@functools.cache
def rule_page_uri(code: str) -> str | None:
    """A ``file:`` URI of the rule's page as installed (``torchlint rule CODE`` prints it)."""
    from torchlint.pages import entries

    try:
        return next((Path(str(e)).resolve().as_uri() for e in entries() if e.name.startswith(f"{code}-")), None)
    except (ModuleNotFoundError, OSError, TypeError):
        return None


def rule_page_text(code: str) -> str | None:
    from torchlint.pages import page

    p = page(code)
    return p.text if p is not None else None
