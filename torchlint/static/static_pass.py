"""The static pass over many files: read, pre-filter, cache, parse once, lint, in parallel.

Per file: read it (a file that cannot be read or decoded is an error); skip it without
parsing when it imports nothing a compiled region is made of (no ``torch``, no
``lightning``); else take its result from the cache (:mod:`torchlint.static.cache`, keyed
on the file's bytes, the settings and the engine) or parse and lint it. Files to parse go
to a process pool when there are enough of them to pay for starting one, else they are
checked in this process. Results come back in file order whatever the scheduling.

libcst and the rules are imported only when some file has to be parsed, so a run that the
cache answers (or one over files without torch) never loads them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
)

from torchlint.files import FileProblem, line_at, read_source, source_lines
from torchlint.findings import FileError, Finding
from torchlint.static.lint import FileResult, gc_paused, lint_file
from torchlint.static.modes import (
    errors_of,
    facts_for,
    has_training_loop,
    label,
    loss_roots,
    modes_to_check,
    same_facts,
    settings_for,
)
from torchlint.static.sources import Known, Sources

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.config import Settings
    from torchlint.rules.base import Rule
    from torchlint.static.cache import Cache
    from torchlint.static.engine import FixPlanner

#: makes the :class:`~torchlint.static.engine.FixPlanner` that marks fixable findings,
#: called only when some file has to be parsed (``torchlint.fixes.fix_files.Marker``)
Planner = Callable[[], "FixPlanner"]

#: Below this many files to parse, or this many characters, a pool costs more than it saves.
POOL_MIN_FILES = 8
POOL_MIN_CHARS = 200_000

Advance = Callable[[int], None]


def rules_on_lines(
    wanted: Mapping[str, Iterable[int]],
    rule_classes: Sequence[type[Rule]],
    cwd: str = ".",
    settings: Settings | None = None,
) -> dict[tuple[str, int], set[str]]:
    """(path, line) -> the codes of the rules that flag that line when the function holding it
    is taken as compiled (:func:`~torchlint.static.lint.lint_file`'s ``compiled_lines``): which
    rule, if any, a graph break dynamo found there belongs to. ``wanted``: path (relative to
    ``cwd``) -> lines. The files are checked with the project's facts, as ``torchlint check``
    checks them (what a parameter holds by its callers, the objects a module is handed), so a
    break is named after the rule ``check`` reports there. Files are read and parsed, never
    imported; one that cannot be is left out."""
    settings = settings if settings is not None else _default_settings()
    paths = list(wanted)
    facts: list[dict | None] = [None] * len(paths)
    if settings.project and paths:
        facts = _facts_of(paths, settings, cwd)
        # the files whose breaks decide TL021's findings in these (where a made object's method
        # is, where the function that makes a module breaks), checked too
        more = {fn[0] for fact in facts for fn in _spread_causes(fact)} - {os.path.join(cwd, p) for p in paths}
        if more:
            paths += sorted(more)
            facts = _facts_of(paths, settings, cwd)
    out: dict[tuple[str, int], set[str]] = {}
    by_file: list[list[Finding]] = []
    for path, fact in zip(paths, facts):
        try:
            source = read_source(os.path.join(cwd, path))
        except Exception:  # noqa: BLE001 - unreadable: no rule is named after it
            by_file.append([])
            continue
        by_file.append(
            list(lint_file(path, source, rule_classes, facts=fact, compiled_lines=set(wanted.get(path, ()))).findings)
        )
    # TL021's findings come once every file's are in (a break spreads to a call, or to the
    # `super().__init__()` of a module made where the frame is given up)
    if any(r.code == "TL021" for r in rule_classes) and any(
        f and (f.get("made_calls") or f.get("uninit")) for f in facts
    ):
        from torchlint.static import rebuild

        full = [os.path.join(cwd, p) for p in paths]
        for mine, spread in zip(by_file, rebuild.spread(full, facts, by_file, lambda path, line: None)):
            mine.extend(spread)
    for path, mine in zip(paths, by_file):
        lines = set(wanted.get(path, ()))
        for f in mine:
            for line in lines:
                if f.rule is not None and f.line <= line <= max(f.end_line, f.line):
                    out.setdefault((path, line), set()).add(f.rule)
    return out


def _facts_of(paths: Sequence[str], settings: Settings, cwd: str) -> list[dict | None]:
    full = [os.path.join(cwd, p) for p in paths]
    sources = read_for_project(full)
    found, _ = project_facts(full, sources, settings, _cache_for(settings, cwd))
    return with_modes(found, sources, settings)


def _spread_causes(fact: dict | None) -> list[Sequence[str]]:
    """The functions whose breaks decide a file's TL021 findings: the methods its calls on
    made objects run, and the causes of its ``super().__init__()`` findings."""
    runs = [run for *_, pairs in (fact or {}).get("made_calls") or () for run, _ in pairs]
    return runs + uninit_causes(fact)


def default_jobs() -> int:
    """The CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run_static(
    files: Sequence[str],
    rule_classes: Sequence[type[Rule]] | None = None,
    *,
    settings: Settings | None = None,
    jobs: int | None = 1,
    cache: Cache | None = None,
    advance: Advance | None = None,
    fixes: Planner | None = None,
    texts: dict[str, str] | None = None,
    torch_version: str | None = None,
    project: bool | None = None,
    sources: Sources | None = None,
    uncommented: set[str] | None = None,
):
    """Findings and errors for ``files``, in file order.

    ``rule_classes`` defaults to the rules ``settings`` enable (resolved only if a file has
    to be parsed). ``jobs``: processes to use (None or 0: one per core). ``cache``: where to
    read and store per-file results. ``advance(n)`` is told as files are done.
    ``fixes``: set ``Finding.fix`` on fixable findings, in the same walk (cached with
    them). ``texts`` receives the text of each file with findings (for suppression comments).
    ``torch_version``: report what breaks on that measured torch version (default: what
    ``settings`` say, when given): rules dead there are not run, TL009 keeps the calls that
    still break there (see :mod:`torchlint.matrix`). ``project``: decide regions over all
    the files (default ``settings.project``, on). ``sources``: where texts are read from
    (:class:`~torchlint.static.sources.Sources`; with an index, unchanged files are not
    read; the caller saves it). ``texts`` gets only the files parsed in this run: the others
    are read by whoever needs their text. ``uncommented`` gets the files known to hold no
    suppression comment (nobody needs to read them for one).
    """
    mark_fixes = fixes is not None
    if torch_version is None and settings is not None:
        torch_version = settings.static_torch_version()
    left = [len(files)]  # the files given (a file checked only for what they reach is not counted)

    def tick(n: int) -> None:
        n = min(n, left[0])
        left[0] -= n
        if n and advance is not None:
            advance(n)

    results: list[FileResult | None] = [None] * len(files)
    srcs = sources if sources is not None else cache.sources() if cache is not None else Sources()
    known: list[Known | None] = [None] * len(files)
    notebooks: list[int] = []
    settings_ = settings or _default_settings()
    scope = Scope()
    summaries: dict[str, dict | None] = {}
    if project if project is not None else settings_.project:
        scope = project_scope(files, settings_)
        # the project's files and the given ones read and summarised on the pool
        given = [p for p in files if not p.endswith(".ipynb")]
        _summarize_missing(
            [*scope.files, *given], srcs, cache, summaries, jobs, wanted={os.path.abspath(p) for p in given}
        )
    for i, path in enumerate(files):
        if path.endswith(".ipynb"):  # code cells as one module (torchlint.static.notebook), uncached
            notebooks.append(i)
            continue
        info = known[i] = srcs.known(path)
        if info is None:
            results[i] = FileResult(path=path, error=srcs.problem(path) or "cannot read")
        elif uncommented is not None and not info.comments:
            uncommented.add(path)
    # the project's files say whether it trains (a training loop anywhere in the project),
    # whichever of them were given: then training mode is checked too, each finding labelled
    # with the mode it holds in (torchlint.static.modes)
    project_known = (srcs.known(p) for p in scope.files)
    modes = modes_to_check(settings_, (k is not None and k.trains for k in (*known, *project_known)))
    given_files, given_known, given_results = list(files), list(known), list(results)
    first: list[FileResult | None] = []  # the first mode's results, by file
    first_facts: list[dict | None] = []
    in_notebooks = set(notebooks)

    def one_mode(mode: str) -> tuple[list[Finding], list[FileError]]:
        settings_m = settings_for(settings_, mode, modes)
        files, known, results = list(given_files), list(given_known), list(given_results)
        facts: list[dict | None] = [None] * len(files)
        bare: set[str] = set()  # files that hold no compiled region (no tree is built for them)
        reach: dict[str, tuple[dict, set[str]]] = {}
        if project if project is not None else settings_.project:
            facts, bare = project_facts(
                files, srcs, settings_m, cache, scope=scope, reach=reach, jobs=jobs, summaries=summaries
            )
        # project files not given whose functions a given file's regions reach (a staged caller,
        # its helper unstaged): checked too, and their findings in those functions reported
        from torchlint.files import display_path

        cwd = os.getcwd()
        extra = sorted(reach)
        files = files + [display_path(p, cwd) for p in extra]
        known = known + [srcs.known(p) for p in extra]
        facts = list(facts) + [reach[p][0] for p in extra]
        results = results + [None] * len(extra)
        only: dict[int, set[str]] = {len(files) - len(extra) + k: reach[p][1] for k, p in enumerate(extra)}
        facts = facts_for(facts, known, settings_, mode)
        todo: list[tuple[int, str, str, str | None, dict | None]] = []  # (index, path, source, key, facts)
        done = 0
        for i, path in enumerate(files):
            info = known[i]
            if first and i < len(given_files) and results[i] is None:
                # a later mode: a file whose code and facts do not depend on the mode keeps
                # what the first mode found (a notebook: checked in eval alone)
                earlier = first[i]
                if earlier is not None and (
                    i in in_notebooks or (info is not None and not info.modal and same_facts(facts[i], first_facts[i]))
                ):
                    results[i] = earlier
                    continue
            if info is not None:
                fact = facts[i]
                if (not info.candidate and not _reached(fact)) or (bare and os.path.abspath(path) in bare):
                    results[i] = FileResult(path=path, lines=info.lines)
                else:
                    key = cache.key(path, info.digest, _digest(fact)) if cache is not None else None
                    hit = cache.get(key, path, mark_fixes) if key is not None else None  # type: ignore[union-attr]
                    if hit is not None:
                        results[i] = FileResult(path, hit[0], hit[1], hit[2])
                    else:
                        source = srcs.text(path)
                        if source is None:  # gone or changed into something unreadable since
                            results[i] = FileResult(path=path, error=srcs.problem(path) or "cannot read")
                        else:
                            if srcs.moved(path):  # (edited since it was read on the pool: not stored
                                key = None  # under the digest of the text read there)
                            todo.append((i, path, source, key, fact))
                            continue
            done += 1
            if done >= 64:
                tick(done)
                done = 0
        tick(done)

        pending = [i for i in notebooks if results[i] is None]
        if todo or pending:
            nonlocal rule_classes
            if rule_classes is None:
                from torchlint.rules import enabled_rules

                rule_classes = enabled_rules(settings or _default_settings(), torch_version)
            planner = fixes() if fixes is not None else None
            for i in pending:  # (counted as done with the unreadable files above)
                results[i] = _lint_notebook(files[i], rule_classes, planner)
            for (i, path, source, key, _), res in zip(
                todo, _lint_all(todo, rule_classes, jobs, tick, planner, torch_version)
            ):
                results[i] = res
                if res.findings and texts is not None:
                    texts[path] = source
                if cache is not None and key is not None and not _transient(res.error):
                    cache.put(key, res.findings, res.error, res.lines, mark_fixes)
        if not first:
            first.extend(results[: len(given_files)])
            first_facts.extend(facts[: len(given_files)])

        spread = _spread(
            files, facts, results, srcs, settings_ if rule_classes is None else rule_classes, torch_version
        )
        findings: list[Finding] = []
        errors: list[FileError] = []
        for i, result in enumerate(results):
            assert result is not None
            if i in only:  # a file not given: the findings in what a given file's regions reach
                findings.extend(f for f in [*result.findings, *spread[i]] if f.region in only[i])
                continue
            findings.extend(result.findings)
            findings.extend(spread[i])
            if result.error:
                errors.extend(FileError(result.path, line) for line in result.error.split("\n"))
        return findings, errors

    runs = [(mode, one_mode(mode)) for mode in modes]
    findings = label([(mode, found) for mode, (found, _) in runs])
    errors = errors_of([errs for _, (_, errs) in runs])
    if sources is None:
        srcs.save()
    return findings, errors


def _spread(
    files: Sequence[str],
    facts: Sequence[dict | None],
    results: Sequence[FileResult | None],
    srcs: Sources,
    rules: Settings | Sequence[type[Rule]],
    torch_version: str | None,
) -> list[list[Finding]]:
    """TL021's findings per file, where it is enabled: the breaks that spread to a call on an
    object the region made (:mod:`torchlint.static.rebuild`), once every file's findings are in."""
    from torchlint.static import rebuild

    none: list[list[Finding]] = [[] for _ in files]
    if not any(f and (f.get("made_calls") or f.get("uninit")) for f in facts):
        return none
    if not isinstance(rules, (list, tuple)):  # the settings: the rules they enable
        from torchlint.rules import enabled_rules

        rules = enabled_rules(rules, torch_version)
    if not any(r.code == rebuild.CODE for r in rules):
        return none

    def line_of(path: str, line: int) -> str | None:
        text = srcs.text(path)
        return line_at(source_lines(text), line) if text is not None else None

    found = [list(r.findings) if r is not None else [] for r in results]
    return rebuild.spread(files, facts, found, line_of)


def _lint_notebook(path: str, rule_classes, fixes: FixPlanner | None = None) -> FileResult:
    """A notebook's findings, on cell lines, and its problems, one a line (a cell with a
    syntax error leaves the other cells checked; ``fixes``: mark fixable findings, their
    edits on the cell's lines). Suppression comments are the pipeline's."""
    from torchlint.static.notebook import map_findings, read_notebook, to_module

    try:
        module = to_module(read_notebook(path))
    except FileProblem as exc:
        return FileResult(path=path, error=str(exc))
    res = lint_file(path, module.text, rule_classes, fixes=fixes)
    problems = [f"cell {cell}: {msg}" for cell, msg in module.problems] + ([res.error] if res.error else [])
    return FileResult(
        path=path, findings=map_findings(res.findings, module), error="\n".join(problems) or None, lines=res.lines
    )


def trained_if_a_script_trains(settings: Settings, sources: Sequence[str | None]) -> Settings:
    """``settings`` with ``train`` on when a checked file holds a training loop (training-only
    code runs), else ``settings``."""
    return _trained_if(settings, (src is not None and has_training_loop(src) for src in sources))


def _trained_if(settings: Settings, trains: Iterable[bool]) -> Settings:
    if not settings.train and any(trains):
        import dataclasses

        return dataclasses.replace(settings, train=True)
    return settings


def with_modes(facts: list[dict | None], sources: Sequence[object], settings: Settings) -> list[dict | None]:
    """Training-only and half-precision-only code is checked too (``--train``, ``--half``):
    part of each file's facts (and so of its cache key), as the engine reads them."""
    paths = {k: True for k in ("train", "half") if getattr(settings, k)}
    if not paths:
        return facts
    return [dict(f or {}, **paths) if src is not None else None for f, src in zip(facts, sources)]


def read_for_project(files: Sequence[str]) -> list[str | None]:
    """The texts of ``files`` as :func:`project_facts` takes them (None for a file that
    cannot be read, or a notebook: notebooks are not part of the project analysis)."""
    out: list[str | None] = []
    for path in files:
        try:
            out.append(None if path.endswith(".ipynb") else read_source(path))
        except FileProblem:
            out.append(None)
    return out


def _reached(fact: dict | None) -> bool:
    """Whether the facts make some function of the file a region."""
    return bool(fact and (fact.get("roots") or fact.get("reached")))


@dataclass
class Scope:
    """The project a run's files belong to (:func:`project_scope`): its root (None: the given
    files are the whole project) and its Python files (absolute, sorted)."""

    root: str | None = None
    files: Sequence[str] = ()


def project_scope(files: Sequence[str], settings: Settings, cwd: str | None = None) -> Scope:
    """The project ``files`` belong to: the folder of the config that applies, else the
    repository or Python project holding them, else the working folder or their top package
    (:func:`torchlint.files.project_root`),
    and its Python files less ``exclude``d and git-ignored ones. Compiled regions are decided
    over all of them, whatever subset is given."""
    from torchlint.files import marked, project_files, project_root

    if not files:
        return Scope()
    config = getattr(settings, "source", None)
    root = project_root(files, settings.root if config else None, cwd or os.getcwd())
    if root is None:
        return Scope()
    # a working folder nothing marks as a project: its scripts and packages, never all of it
    return Scope(root, project_files(root, settings.exclude, packages_only=not config and not marked(root)))


def project_facts(
    files: Sequence[str],
    sources: Sequence[str | None] | Sources,
    settings: Settings,
    cache: Cache | None = None,
    scope: Scope | None = None,
    reach: dict[str, tuple[dict, set[str]]] | None = None,
    jobs: int | None = None,
    summaries: dict[str, dict | None] | None = None,
) -> tuple[list[dict | None], set[str]]:
    """Each file's facts from the project-wide analysis (None for a file that cannot be read),
    and the absolute paths of the files that hold no compiled region
    (:func:`torchlint.analysis.roots.may_hold_regions`: no tree is built for them).

    ``sources``: the files' texts (None: unreadable or a notebook), or the
    :class:`~torchlint.static.sources.Sources` they are read from. The regions are decided
    over the whole project (``scope``, default :func:`project_scope`): its files are
    summarised too (``ast``, cached by content) and declare roots as the given ones do;
    imports are resolved to the project's files; installed packages only with
    ``settings.follow_imports``. ``reach`` receives, for each project file that was not
    given but holds functions reached from a region through a given file (a caller given,
    its helper not): absolute path -> (its facts, the qualified names of those functions).
    ``jobs``: processes that make the summaries not yet stored (None: one per core).
    ``summaries``: those already made (absolute path -> summary, None: does not parse).
    """
    if not isinstance(sources, Sources):
        sources = Sources.of(files, sources)
    if scope is None:
        scope = project_scope(files, settings)
    with gc_paused():  # summaries and the analysis make many small objects and no cycles
        return _project_facts(files, sources, settings, cache, scope, reach, jobs, summaries)


def _project_facts(
    files: Sequence[str],
    srcs: Sources,
    settings: Settings,
    cache: Cache | None,
    scope: Scope,
    reach: dict[str, tuple[dict, set[str]]] | None,
    jobs: int | None = None,
    made: dict[str, dict | None] | None = None,
) -> tuple[list[dict | None], set[str]]:
    from torchlint.analysis.summary import summarize
    from torchlint.files import display_path

    roots = source_roots(settings)
    cwd = os.getcwd()
    paths = [os.path.abspath(p) for p in files]
    given = {path for p, path in zip(files, paths) if not p.endswith(".ipynb") and srcs.known(path) is not None}
    listed = set(scope.files)
    # the files whose roots count: the project's and the given ones outside it, in path order
    analysed = sorted(given | {p for p in scope.files if srcs.known(p) is not None})
    summaries: dict[str, dict | None] = dict(made or {})

    def load(path: str):
        if path not in summaries:
            summaries[path] = _load_summary(path, srcs, cache, summarize)
        return summaries[path]

    def display(path: str) -> str:  # the same whatever files were given
        return display_path(path, cwd)

    if made is None:
        _summarize_missing(analysed, srcs, cache, summaries, jobs)

    # The whole analysis is kept too, with a digest of each file it read: a run whose files'
    # summaries are all unchanged (nothing edited, or edits inside what summaries leave out,
    # such as comments) takes every file's facts from it without resolving anything. When
    # some summaries changed, only the files that can read one of them (through their
    # imports, transitively) have their roots and name facts worked out again; the regions
    # are then decided anew from every file's roots, in the same order as a whole analysis.
    # One analysis serves every subset of the project's files: the key names the project,
    # and the given files outside it.
    outside = sorted(p for p in given if p not in listed) if scope.root is not None else sorted(given)
    key = json.dumps([scope.root, outside, roots, settings.follow_imports, cwd, settings.train, loss_roots(settings)])
    members = hashlib.sha256("\0".join(analysed).encode("utf-8", "surrogatepass")).hexdigest()
    stored = cache.get_project(key) if cache is not None else None
    if stored is not None and stored.get("members") != members:
        stored = None  # a file was added to the project or left it: analysed anew
    files_seen: dict[str, list] | None = None
    changed: set[str] = set()
    if stored is not None and isinstance(stored.get("bare"), list):
        files_seen = dict(stored["files"])
        for path, digests in stored["files"].items():
            digest = srcs.digest(path)
            if digest is None or not isinstance(digests, list) or len(digests) != 2:
                files_seen = None
                break
            if digest != digests[0]:
                summary_digest = _digest(load(path))
                if summary_digest != digests[1]:
                    changed.add(path)
                files_seen[path] = [digest, summary_digest]
        if files_seen is not None and not changed:
            edited = sum(1 for p, d in files_seen.items() if d != stored["files"][p])
            if edited > _REWRITE_AFTER:  # (until then each run compares those few summaries again)
                cache.put_project(key, dict(stored, files=files_seen))  # type: ignore[union-attr]
            generation = stored.get("generation")
            kept: dict[str, Any] | None = None  # the facts of the given files (and what they reach)
            if reach is not None and len(analysed) > len(given):
                # what the given files reach, with the facts they need, as worked out for them
                # on this analysis before; else followed through its call graph (and kept)
                known_reach = cache.get_reach(key, given, generation)  # type: ignore[union-attr]
                if known_reach is not None:
                    quals_of, kept = known_reach
                    for path, quals in quals_of.items():
                        reach[path] = (kept[path], set(quals))
                else:
                    every = cache.get_project_facts(key, generation)  # type: ignore[union-attr]
                    graph = cache.get_project_graph(key) if every is not None else None  # type: ignore[union-attr]
                    if graph is not None and every is not None:
                        _reached_through(given, graph["edges"], graph["roots"], every, reach)
                        kept = {path: every[path] for path in given if path in every}
                        cache.put_reach(key, given, generation, reach, kept)  # type: ignore[union-attr, arg-type]
                    else:
                        stored = None  # (no graph to follow the calls in: analysed anew)
            else:
                kept = cache.get_project_facts(key, generation)  # type: ignore[union-attr]
                if kept is None:
                    stored = None
            if stored is not None and kept is not None:
                return ([kept.get(path) if path in given else None for path in paths], set(stored["bare"]))
    if stored is not None:  # (the analysis is redone in part: every file's stored facts are read)
        every = cache.get_project_facts(key, stored.get("generation"))  # type: ignore[union-attr]
        stored = dict(stored, facts=every) if every is not None else None
        if stored is None:
            files_seen = None
    graph = cache.get_project_graph(key) if cache is not None and files_seen is not None else None

    from torchlint.analysis import installed
    from torchlint.analysis.modules import ModuleMap
    from torchlint.analysis.project import Project
    from torchlint.analysis.roots import may_hold_regions
    from torchlint.static import installed_breaks

    # in path order, whatever the order of ``files``: which root a function is reached from
    # first (its "called from"), and which of two files named alike a module is, never
    # depend on the order the files were given in
    modmap = ModuleMap(analysed, roots, follow_imports=settings.follow_imports)
    project = Project(
        modmap,
        load,
        analysed,
        display,
        train=settings.train,
        installed=installed.verdict,
        followable=installed_breaks.followable,
        loss_roots=loss_roots(settings),
        module_base=installed_breaks.is_module_class,
    )
    reuse: set[str] = set()  # analysed files whose name facts the stored analysis gives
    partial = graph is not None and stored is not None
    if partial:
        affected = _readers(changed, graph["reads"])  # type: ignore[index]
        reuse = {path for path in analysed if path not in affected and path in stored["facts"]}  # type: ignore[index]
        project.analyze(graph, unchanged=set(graph["reads"]) - affected)  # type: ignore[index]
    facts: dict[str, dict] = {}
    for path in analysed:
        if path in reuse:
            names = {k: v for k, v in stored["facts"][path].items() if k not in _REGION_KEYS}  # type: ignore[index]
            facts[path] = project.facts(path, names=names)
        else:
            facts[path] = project.facts(path)
    from torchlint.static.installed_breaks import with_breaks

    for path, fact in facts.items():  # what the installed packages the regions call break inside
        facts[path] = with_breaks(fact)  # type: ignore[assignment]
    was_bare = set(stored["bare"]) if stored is not None and reuse else set()

    def is_bare(path: str, fact: dict) -> bool:
        if path in reuse and fact == stored["facts"][path]:  # type: ignore[index]
            return path in was_bare
        return not may_hold_regions(load(path), fact)

    bare = {path for path, fact in facts.items() if is_bare(path, fact)}
    if reach is not None and len(analysed) > len(given):
        _reached_through(given, project.edges, project.root_refs, facts, reach)
    if cache is not None:
        # in part: the files not read this time keep their digests and what they read
        seen = dict(files_seen) if partial else {}  # type: ignore[arg-type]
        before = stored["files"] if stored is not None else {}
        for path in project.read_paths():
            digest = srcs.digest(path)
            if digest is not None:
                old = before.get(path)
                # the same text has the same summary: its digest is not made again
                same = isinstance(old, list) and len(old) == 2 and old[0] == digest
                seen[path] = [digest, old[1] if same and isinstance(old, list) else _digest(load(path))]
        reads = dict(graph["reads"]) if partial and graph is not None else {}
        for path in set(project.read_paths()) | changed:
            if path not in reads or path in changed:
                reads[path] = project.reads(path)
        # a new analysis, named afresh: what was kept of the one before (what given files
        # reach) is not taken for it
        generation = f"{os.getpid()}-{time.time_ns()}-{members[:16]}"
        cache.put_project(
            key, {"files": seen, "bare": sorted(bare), "members": members, "generation": generation}, facts
        )
        if reach is not None and len(analysed) > len(given):
            cache.put_reach(key, given, generation, reach, {path: facts[path] for path in given if path in facts})
        cache.put_project_graph(
            key,
            {
                "roots": {p: [list(r) for r in refs] for p, refs in project.root_refs.items()},
                "edges": {
                    p: {q: [list(r) for r in refs] for q, refs in by_qual.items()}
                    for p, by_qual in project.edges.items()
                },
                "traced": project.traced,
                "reads": reads,
            },
        )
    return [facts.get(path) if path in given else None for path in paths], bare


def _reached_through(
    given: set[str],
    edges: Mapping[str, Mapping[str, Sequence[Sequence[str]]]],
    roots: Mapping[str, Sequence[Sequence[str]]],
    facts: Mapping[str, dict],
    reach: dict[str, tuple[dict, set[str]]],
) -> None:
    """Into ``reach``: the functions of files not in ``given`` that a region of a given file
    calls, directly or through others, or that a given file compiles (``torch.compile(model)``
    in a training script), by file, with the file's facts. ``edges``: region -> the
    functions it calls; ``roots``: file -> the roots it declares (as the analysis found them)."""
    todo = [(path, qual) for path in given for qual in edges.get(path, ())]
    todo += [(ref[1], ref[2]) for path in given for ref in roots.get(path, ()) if ref[2] in edges.get(ref[1], ())]
    # what decides a given file's `super().__init__()` findings (TL021): the functions that
    # may break in the regions that make its modules, wherever they are
    todo += [(fn[0], fn[1]) for path in given for fn in uninit_causes(facts.get(path))]
    seen = set(todo)
    while todo:
        path, qual = todo.pop()
        for ref in edges.get(path, {}).get(qual, ()):
            key = (ref[1], ref[2])
            if key not in seen and ref[2] in edges.get(ref[1], ()):  # (a region: traced)
                seen.add(key)
                todo.append(key)
    for path, qual in seen:
        if path not in given and path in facts:
            reach.setdefault(path, (facts[path], set()))[1].add(qual)


def uninit_causes(fact: dict | None) -> list[Sequence[str]]:
    """The functions whose breaks decide the ``uninit`` findings of a file with ``fact``."""
    out: list[Sequence[str]] = []
    for *_, causes in (fact or {}).get("uninit") or ():
        for c in causes:
            # ["init", fn, None], ["run", method, constructor], ["loop", fn, lines, callees]
            out += [c[1], *c[3]] if c[0] == "loop" else [fn for fn in c[1:] if fn]
    return out


#: the facts that come from the regions (the rest say what a file's names are)
_REGION_KEYS = (
    "roots",
    "reached",
    "callers",
    "params",
    "computed",
    "unpassed",
    "kept",
    "passed_tensors",
    "handed",
    "calls",
    "made_calls",
    "uninit",
    "dynamic_ops",
    "installed",
    "installed_calls",
    "loss_classes",
)


def _readers(changed: set[str], reads: dict[str, list[str]]) -> set[str]:
    """``changed`` and every file that reads one of them, directly or through others."""
    readers: dict[str, list[str]] = {}
    for path, targets in reads.items():
        for target in targets:
            readers.setdefault(target, []).append(path)
    out = set(changed)
    todo = list(changed)
    while todo:
        for reader in readers.get(todo.pop(), ()):
            if reader not in out:
                out.add(reader)
                todo.append(reader)
    return out


#: a stored analysis whose files' summaries are unchanged but whose texts differ is rewritten
#: with the new text digests only once more than this many differ (it is megabytes on a big
#: project; comparing a few summaries again costs less)
_REWRITE_AFTER = 16


def _summarize_missing(
    paths: Sequence[str],
    srcs: Sources,
    cache: Cache | None,
    summaries: dict[str, dict | None],
    jobs: int | None,
    wanted: set[str] | None = None,
) -> None:
    """Read and summarise on ``jobs`` processes the files of ``paths`` that need it, when
    there are enough to pay for a pool: each worker reads its files (their facts go into
    ``srcs``: the index), makes the summaries the cache does not hold yet and stores them
    (into ``summaries`` too). The rest are read and summarised one by one as the analysis
    asks for them. ``wanted``: files (absolute) whose texts come back too when they may
    hold a region (those the run goes on to lint are not read again here)."""
    workers = jobs or default_jobs()
    if workers < 2 or len(paths) < POOL_MIN_FILES:
        return
    todo: list[str] = []
    for path in paths:
        path = os.path.abspath(path)
        if path in summaries:
            continue
        if srcs.needs_reading(path):
            todo.append(path)
        else:
            digest = srcs.digest(path)
            if digest is not None and (cache is None or not cache.has_summary(digest)):
                todo.append(path)
    if len(todo) < POOL_MIN_FILES:
        return
    size = 0
    for path in todo:
        try:
            size += os.stat(path).st_size
        except OSError:
            pass
    if size < POOL_MIN_CHARS:
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    if cache is not None:
        cache.prepare()  # (once, here: the workers write into it)
    workers = min(workers, len(todo))
    # a file handed to the workers as its text when this process has it (an editor's buffer)
    jobs_ = [(path, srcs.given_text(path), wanted is not None and path in wanted) for path in todo]
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=_pool_context(),
            initializer=_init_summarizer,
            initargs=(cache, srcs.index_path is not None),
        ) as pool:
            made = list(pool.map(_read_and_summarize, jobs_, chunksize=max(1, len(todo) // (workers * 8))))
    except BrokenProcessPool:  # a worker died: the analysis makes them one by one
        return
    for path, (read, stored, summary, text) in zip(todo, made):
        if read is not None:
            srcs.learn(path, read, text)
        if not stored:
            summaries[path] = summary


_SUMMARIZER: list[object] = [None, False]  # a pool worker's (cache, whether the index is kept)


def _init_summarizer(cache: Cache | None = None, index: bool = False) -> None:
    import signal

    _SUMMARIZER[:] = [cache, index]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def _read_and_summarize(job: tuple[str, str | None, bool]):
    """In a pool worker: (what was read of the file, for :meth:`Sources.learn`, or None when
    the text was given; whether its summary is already stored; its summary otherwise, None
    when it cannot be read or parsed; its text when wanted and it may hold a region). A
    summary made is stored in the cache here."""
    from torchlint.analysis.summary import summarize
    from torchlint.static.sources import describe, read_file

    path, text, want = job
    cache, index = _SUMMARIZER
    read = None
    if text is None:
        read, text = read_file(path, bool(index))
        if text is None:
            return read, False, None, None
    back = text if want and read is not None and read.known.candidate else None  # type: ignore[union-attr]
    digest = read.known.digest if read is not None else describe(text).digest  # type: ignore[union-attr]
    if cache is not None and cache.has_summary(digest):  # type: ignore[attr-defined]
        return read, True, None, back
    with gc_paused():
        summary = summarize(text)
    if summary is not None and cache is not None:
        cache.put_summary(digest, summary)  # type: ignore[attr-defined]
    return read, False, summary, back


def _load_summary(path: str, srcs: Sources, cache: Cache | None, summarize) -> dict | None:
    """A file's summary, from the cache (keyed by its text's digest) or made and stored there."""
    digest = srcs.digest(path)
    if digest is None:
        return None
    if cache is not None:
        return cache.summary(digest, lambda: srcs.text(path))
    source = srcs.text(path)
    return summarize(source) if source is not None else None


def source_roots(settings: Settings, default_root: str | None = None) -> list[str]:
    """The folders module names are read from: the ``src`` setting, else the project root
    (the config's folder; without one ``default_root``, else the working directory) and its
    ``src/``."""
    root = settings.root if getattr(settings, "source", None) else (default_root or os.getcwd())
    return [os.path.join(root, r) for r in settings.src] if settings.src else [root, os.path.join(root, "src")]


def _digest(facts: dict | None) -> str:
    if not facts:
        return ""
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def _transient(error: str | None) -> bool:
    """An error that says more about this run (time, memory) than about the file: not cached."""
    return error is not None and error.startswith(("analysis stopped after", "out of memory"))


def run_static_pass(
    files: Sequence[str],
    settings: Settings,
    *,
    cwd: str,
    jobs: int | None = None,
    use_cache: bool = True,
    advance: Advance | None = None,
    fixes: Planner | None = None,
    texts: dict[str, str] | None = None,
    uncommented: set[str] | None = None,
):
    """The static pass as ``torchlint check`` runs it: the rules the settings enable, with
    the cache (``settings.cache_dir`` or ``.torchlint_cache``) unless ``use_cache`` is off,
    on ``jobs`` processes (default ``settings.jobs``, else one per core)."""
    return run_static(
        files,
        settings=settings,
        jobs=jobs if jobs is not None else settings.jobs,
        cache=_cache_for(settings, cwd) if use_cache else None,
        advance=advance,
        fixes=fixes,
        texts=texts,
        uncommented=uncommented,
    )


def _cache_for(settings: Settings, cwd: str) -> Cache:
    """The cache ``torchlint check`` uses (``settings.cache_dir`` or ``.torchlint_cache``)."""
    from torchlint.static.cache import Cache, default_dir

    return Cache(
        default_dir(settings, cwd), settings.selected, settings.ignored, torch_version=settings.static_torch_version()
    )


def _default_settings() -> Settings:
    from torchlint.config import Settings

    return Settings()


# -- linting the files that need it -----------------------------------------------------
def _lint_all(
    todo, rule_classes, jobs: int | None, tick: Advance, fixes, torch_version: str | None = None
) -> list[FileResult]:
    from torchlint import matrix

    workers = min(jobs or default_jobs(), len(todo))
    size = sum(len(item[2]) for item in todo)
    before = matrix.active_version()
    matrix.use_version(torch_version)  # what TL009 reads; pool workers are told in _init_worker
    try:
        if workers > 1 and len(todo) >= POOL_MIN_FILES and size >= POOL_MIN_CHARS and _picklable(rule_classes):
            return _lint_in_pool(todo, rule_classes, workers, tick, fixes, torch_version)
        out = []
        for _, path, source, _, fact in todo:
            out.append(lint_file(path, source, rule_classes, facts=fact, fixes=fixes))
            tick(1)
        return out
    finally:
        matrix.use_version(before)


def _picklable(rule_classes) -> bool:
    import pickle

    try:
        pickle.dumps(list(rule_classes))
        return True
    except Exception:  # noqa: BLE001 (whatever pickling raises: rules defined in a function, as tests do, run here)
        return False


_WORKER: tuple[Sequence[type[Rule]], FixPlanner | None] | None = None


def _init_worker(rule_classes, fixes, torch_version: str | None = None) -> None:
    import signal

    from torchlint.matrix import use_version

    global _WORKER
    _WORKER = (rule_classes, fixes)
    use_version(torch_version)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def _lint_one(path: str, source: str, facts: dict | None) -> FileResult:
    """:func:`lint_file` in a pool worker, with the rules and planner it was started with."""
    assert _WORKER is not None
    rule_classes, fixes = _WORKER
    return lint_file(path, source, rule_classes, facts=facts, fixes=fixes)


def _pool_context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    # fork is the cheapest start, but not safe once threads run (a progress bar has one).
    if sys.platform.startswith("linux") and threading.active_count() == 1 and "fork" in methods:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _lint_in_pool(
    todo, rule_classes, workers: int, tick: Advance, fixes, torch_version: str | None = None
) -> list[FileResult]:
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    results: list[FileResult | None] = [None] * len(todo)
    # Largest files first, so no worker is left with a big one at the end.
    order = sorted(range(len(todo)), key=lambda k: -len(todo[k][2]))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_pool_context(),
        initializer=_init_worker,
        initargs=(list(rule_classes), fixes, torch_version),
    )
    try:
        futures = {pool.submit(_lint_one, todo[k][1], todo[k][2], todo[k][4]): k for k in order}
        for fut in as_completed(futures):
            results[futures[fut]] = fut.result()
            tick(1)
    except BrokenProcessPool:
        pass  # a worker died (out of memory, killed): finish the rest here
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    for k, res in enumerate(results):
        if res is None:
            _, path, source, _, fact = todo[k]
            results[k] = lint_file(path, source, rule_classes, facts=fact, fixes=fixes)
            tick(1)
    return results  # type: ignore[return-value]
