"""The static pass's per-file cache: a re-run over an unchanged tree reads results from disk.

An entry holds one file's static findings (or its parse error), with their fixes when the
run marked them (each as its text edits: line and column spans and the new text).
Its key is a hash of the file's path and text (its digest), torchlint's version, the rule selection
(``select``/``ignore``; ``per-file-ignores`` are applied after the cache, so they are not
part of it), the torch version it reports for (``torch-version``) and the *engine version*: a
hash of the rule modules and pages, the static engine, the
fixes and the data files they read, plus the libcst and Python versions. Change any of
them and old entries are simply not found.

Beside the entries, ``files-v1.json`` indexes the files' ``stat()`` with their text digests
(:mod:`torchlint.static.sources`): a warm run opens only the files that changed.

Entries are JSON files under ``<cache-dir>/static-v1/``; each is written to a temporary
file and renamed into place, so a reader never sees half an entry. A reader trusts nothing:
an entry that is unreadable, of another format, keyed for something else, or not shaped
like findings is ignored (and recomputed). ``torchlint clean`` removes the whole folder,
and only a folder that carries torchlint's ``CACHEDIR.TAG``.

This module must not import libcst (a warm run never does).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from typing import TYPE_CHECKING, Any, Callable

from torchlint import __version__
from torchlint.atomic import write_text_atomic
from torchlint.findings import Edit, Finding, Fix

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.static.sources import Sources

FORMAT = 1
DEFAULT_DIR = ".torchlint_cache"
ENTRIES = f"static-v{FORMAT}"
SUMMARIES = f"summary-v{FORMAT}"
TAG_NAME = "CACHEDIR.TAG"
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by torchlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)

# Finding fields kept in an entry, with the JSON types allowed. A finding's ``fix`` is kept
# as [applicability, description, [[line, column, end_line, end_column, text], ...]].
_STR, _INT, _OPT_STR = (str,), (int,), (str, type(None))
_FIELDS: dict[str, tuple[type, ...]] = {
    "rule": _OPT_STR,
    "name": _STR,
    "line": _INT,
    "column": _INT,
    "end_line": _INT,
    "end_column": _INT,
    "message": _STR,
    "suggestion": _STR,
    "source": _STR,
    "gb_code": _OPT_STR,
    "region": _OPT_STR,
    "target": _OPT_STR,
    "severity": _STR,
    "reason": _OPT_STR,
    "explanation": _OPT_STR,
    "hints": (list,),
    "source_line": _OPT_STR,
}
_SOURCES = frozenset({"static", "dynamic", "both"})
_SEVERITIES = frozenset({"error", "warning"})


# What the static results depend on besides the file and the settings.
def engine_version() -> str:
    """A hash of the code and data that produce static findings: every module and data file
    of the package (a moved or renamed module is covered as well as an edited one) and the
    rule pages."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # torchlint/
    h = hashlib.sha256()
    h.update(f"{__version__}\0{sys.version_info[0]}.{sys.version_info[1]}\0".encode())
    for folder, dirs, names in sorted(os.walk(package)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(folder, package)
        for name in sorted(n for n in names if n.endswith((".py", ".json"))):
            h.update(f"{rel}/{name}\0".encode())
            try:
                with open(os.path.join(folder, name), "rb") as fh:
                    h.update(fh.read())
            except OSError:
                h.update(b"?")
    _hash_pages(h)
    h.update(_libcst_version().encode())
    return h.hexdigest()


def _hash_pages(h) -> None:
    """The rule pages, wherever they are installed (``docs/rules`` in a checkout): the rules
    read their messages and suggestions there."""
    from torchlint import pages

    try:
        entries = pages.entries()
    except (ModuleNotFoundError, OSError, TypeError):
        h.update(b"pages?")
        return
    for entry in entries:
        h.update(f"pages/{entry.name}\0".encode())
        h.update(entry.read_bytes())


def _libcst_version() -> str:
    """libcst's version string, read from its files (importing libcst costs too much here)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("libcst")
    except (ImportError, ValueError):
        return "libcst?"
    if spec is None or not spec.origin:
        return "libcst?"
    try:
        with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return spec.origin


def settings_key(select, ignore) -> str:
    return json.dumps([sorted(select), sorted(ignore)])


def default_dir(settings, cwd: str) -> str:
    """``cache-dir`` from the settings (relative to the config's folder), else
    ``.torchlint_cache`` in the project root (the config's folder) or the working directory."""
    root = settings.root if getattr(settings, "source", None) else cwd
    if settings.cache_dir:
        return os.path.normpath(os.path.join(root, os.path.expanduser(settings.cache_dir)))
    return os.path.join(root, DEFAULT_DIR)


class Cache:
    """Per-file static results under ``folder``, for one engine version and rule selection."""

    def __init__(
        self, folder: str, select, ignore, *, engine: str | None = None, torch_version: str | None = None
    ) -> None:
        self.folder = folder
        self.entries = os.path.join(folder, ENTRIES)
        # torch_version: the version the static pass reports for (what breaks differs by version)
        self.engine = engine or engine_version()
        namespace = json.dumps([FORMAT, self.engine, settings_key(select, ignore), torch_version])
        self.namespace = hashlib.sha256(namespace.encode()).hexdigest()
        self._ready = False
        self.write_failed = False

    def sources(self) -> Sources:
        """Where a run reads its files, with the index of their stats kept in this cache (an
        unchanged file is not read again: :mod:`torchlint.static.sources`)."""
        from torchlint.static.sources import INDEX_NAME, Sources

        return Sources(os.path.join(self.folder, INDEX_NAME), namespace=self.engine)

    # -- keys ---------------------------------------------------------------------------
    def key(self, path: str, digest: str, project: str = "") -> str:
        """The entry of ``path`` whose text has ``digest``
        (:func:`~torchlint.static.sources.text_digest`); ``project``: a digest of the file's
        facts from the project-wide analysis (what it uses of the files its regions reach)."""
        h = hashlib.sha256(self.namespace.encode())
        h.update(b"\0" + path.encode("utf-8", "surrogatepass") + b"\0")
        h.update(digest.encode())
        if project:
            h.update(b"\0project\0" + project.encode())
        return h.hexdigest()

    # -- summaries (the project-wide analysis's per-file input, keyed by content only) ----
    def _summary_file(self, digest: str) -> str:
        h = hashlib.sha256(self.namespace.encode() + b"\0summary\0")
        h.update(digest.encode())
        name = h.hexdigest()
        return os.path.join(self.folder, SUMMARIES, name[:2], name[2:] + ".json")

    def get_summary(self, digest: str) -> dict[str, Any] | None:
        """The summary of the text with ``digest``, or None."""
        try:
            with open(self._summary_file(digest), "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError, RecursionError):
            return None
        return entry if isinstance(entry, dict) and isinstance(entry.get("imports"), list) else None

    def has_summary(self, digest: str) -> bool:
        """Whether a summary of the text with ``digest`` is stored (not read)."""
        return os.path.isfile(self._summary_file(digest))

    def put_summary(self, digest: str, summary: dict[str, Any]) -> None:
        if not self.write_failed:
            self._write(self._summary_file(digest), summary)

    def summary(self, digest: str, text: Callable[[], str | None]) -> dict[str, Any] | None:
        """The summary (:func:`torchlint.analysis.summary.summarize`) of the text with
        ``digest``: stored, or made from ``text()`` and stored (None: no text, or it does not
        parse)."""
        hit = self.get_summary(digest)
        if hit is not None:
            return hit
        from torchlint.analysis.summary import summarize

        source = text()
        made = summarize(source) if source is not None else None
        if made is not None:
            self.put_summary(digest, made)
        return made

    # -- the project-wide result for one set of checked files ----------------------------
    def _project_file(self, key: str) -> str:
        h = hashlib.sha256(self.namespace.encode() + b"\0project\0" + key.encode()).hexdigest()
        return os.path.join(self.folder, SUMMARIES, "project-" + h[:32] + ".json")

    def _graph_file(self, key: str) -> str:
        return self._project_file(key)[: -len(".json")] + "-graph.json"

    def get_project(self, key: str) -> dict[str, Any] | None:
        """The stored analysis of the files named by ``key``, less its facts
        (:meth:`get_project_facts`): ``{"files": {path: [text digest, summary digest]},
        "bare": [path], "members": digest, "generation": name}``, or None."""
        try:
            with open(self._project_file(key), "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError, RecursionError):
            return None
        ok = isinstance(entry, dict) and isinstance(entry.get("files"), dict) and "facts" not in entry
        return entry if ok else None

    def put_project(self, key: str, entry: dict[str, Any], facts: dict[str, Any] | None = None) -> None:
        """Store an analysis (``entry``, with its ``generation``) and, when given, its facts
        (path -> facts), apart: a run of a few files reads only what it needs of them."""
        if not self.write_failed:
            if facts is not None:
                self._write(self._facts_file(key), {"generation": entry.get("generation"), "facts": facts})
            self._write(self._project_file(key), entry)

    def _facts_file(self, key: str) -> str:
        return self._project_file(key)[: -len(".json")] + "-facts.json"

    def get_project_facts(self, key: str, generation: Any) -> dict[str, Any] | None:
        """Every file's facts in the stored analysis named ``generation``, or None."""
        if not isinstance(generation, str):
            return None
        try:
            with open(self._facts_file(key), "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError, RecursionError):
            return None
        if (
            not isinstance(entry, dict)
            or entry.get("generation") != generation
            or not isinstance(entry.get("facts"), dict)
        ):
            return None
        return entry["facts"]

    def get_project_graph(self, key: str) -> dict[str, Any] | None:
        """What the stored analysis of ``key`` worked out per file, for a later one to take
        where nothing a file reads changed (:meth:`torchlint.analysis.project.Project.analyze`):
        ``roots`` (path -> refs), ``edges`` (path -> qualname -> refs), ``traced`` (path ->
        qualname -> bool) and ``reads`` (path -> the files it reads), refs as tuples; or None.
        Kept apart from the analysis, which every warm run reads: only a run after an edit
        that changed some summary needs it."""
        try:
            with open(self._graph_file(key), "rb") as fh:
                entry = json.loads(fh.read())
            roots = {p: [_ref(r) for r in refs] for p, refs in entry["roots"].items()}
            edges = {
                p: {q: [_ref(r) for r in refs] for q, refs in by_qual.items()} for p, by_qual in entry["edges"].items()
            }
            traced = {p: dict(by_qual) for p, by_qual in entry["traced"].items()}
            reads = {p: list(targets) for p, targets in entry["reads"].items()}
        except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
            return None
        if not all(isinstance(v, bool) for by_qual in traced.values() for v in by_qual.values()) or not all(
            isinstance(t, str) for targets in reads.values() for t in targets
        ):
            return None
        return {"roots": roots, "edges": edges, "traced": traced, "reads": reads}

    def put_project_graph(self, key: str, entry: dict[str, Any]) -> None:
        if not self.write_failed:
            self._write(self._graph_file(key), entry)

    def _reach_file(self, key: str, given) -> str:
        h = hashlib.sha256(self.namespace.encode() + b"\0reach\0" + key.encode())
        h.update("\0".join(sorted(given)).encode("utf-8", "surrogatepass"))
        return os.path.join(self.folder, SUMMARIES, "reach", h.hexdigest()[:40] + ".json")

    def get_reach(self, key: str, given, generation: Any) -> tuple[dict[str, list[str]], dict[str, Any]] | None:
        """What the files ``given`` reach in the other files of the stored analysis of ``key``
        (path -> the qualified names of the functions their regions reach), with the facts
        of those files and of the given ones, as kept for the analysis named ``generation``;
        None when not kept for it. A run of a few files takes it instead of reading the
        analysis's whole call graph and every file's facts."""
        if not isinstance(generation, str):
            return None
        try:
            with open(self._reach_file(key, given), "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError, RecursionError):
            return None
        if (
            not isinstance(entry, dict)
            or entry.get("generation") != generation
            or entry.get("given") != sorted(given)
            or not isinstance(entry.get("reach"), dict)
            or not isinstance(entry.get("facts"), dict)
        ):
            return None
        reach, facts = entry["reach"], entry["facts"]
        if not all(
            isinstance(quals, list) and all(isinstance(q, str) for q in quals) for quals in reach.values()
        ) or not all(path in facts for path in reach):
            return None
        return reach, facts

    def put_reach(self, key: str, given, generation: str, reach: dict[str, Any], facts: dict[str, Any]) -> None:
        """Keep what the files ``given`` reach (``reach``: path -> (facts, qualified names))
        on the analysis named ``generation``, with the facts of the given files that have
        some (``facts``)."""
        if not self.write_failed:
            self._write(
                self._reach_file(key, given),
                {
                    "generation": generation,
                    "given": sorted(given),
                    "reach": {path: sorted(quals) for path, (_, quals) in sorted(reach.items())},
                    "facts": dict(sorted({**facts, **{path: fact for path, (fact, _) in reach.items()}}.items())),
                },
            )

    def _file(self, key: str) -> str:
        return os.path.join(self.entries, key[:2], key[2:] + ".json")

    # -- reading ------------------------------------------------------------------------
    def get(self, key: str, path: str, fixes: bool = False) -> tuple[list[Finding], str | None, int] | None:
        """(findings, error, lines) stored for ``key``, or None when absent or not trusted.

        ``fixes``: the caller wants findings marked with their fixes (an entry stored
        without the marks does not do then)."""
        try:
            with open(self._file(key), "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError, RecursionError):
            return None
        try:
            return _decode(entry, key, path, fixes)
        except (TypeError, ValueError, KeyError, AttributeError):
            return None

    # -- writing ------------------------------------------------------------------------
    def put(self, key: str, findings: list[Finding], error: str | None, lines: int, fixes: bool = False) -> None:
        """Store one file's result (``fixes``: its findings were marked with their fixes).
        A cache that cannot be written is quietly not used."""
        if self.write_failed:
            return
        entry = {
            "format": FORMAT,
            "key": key,
            "error": error,
            "lines": lines,
            "fixes": fixes,
            "findings": [_encode(f) for f in findings],
        }
        self._write(self._file(key), entry)

    def _write(self, target: str, entry: Any) -> None:
        """Write one JSON entry atomically; a cache that cannot be written is quietly not used."""
        try:
            if not self._ready:
                self._prepare()
            folder = os.path.dirname(target)
            os.makedirs(folder, exist_ok=True)
            write_text_atomic(target, json.dumps(entry, separators=(",", ":")), durable=False)
        except OSError:
            self.write_failed = True

    def prepare(self) -> None:
        """Create the folder now (before other processes write into it); a folder that
        cannot be made leaves the cache unused."""
        try:
            if not self._ready:
                self._prepare()
        except OSError:
            self.write_failed = True

    def _prepare(self) -> None:
        """Create the folder, tagged as a cache (backup tools skip it, `clean` recognises it)."""
        os.makedirs(self.entries, exist_ok=True)
        tag = os.path.join(self.folder, TAG_NAME)
        if not os.path.exists(tag):
            with open(tag, "w", encoding="utf-8") as fh:
                fh.write(TAG)
            with open(os.path.join(self.folder, ".gitignore"), "w", encoding="utf-8") as fh:
                fh.write("# Created by torchlint.\n*\n")
        self._ready = True


def _ref(raw: Any) -> tuple[str, ...]:
    """A stored analysis ref (``["fn", path, qualname]``), checked."""
    if not isinstance(raw, list) or len(raw) != 3 or not all(isinstance(x, str) for x in raw):
        raise ValueError("bad ref")
    return tuple(raw)


def _encode(f: Finding) -> dict[str, Any]:
    item: dict[str, Any] = {name: getattr(f, name) for name in _FIELDS}
    if f.fix is not None:
        item["fix"] = [
            f.fix.applicability,
            f.fix.description,
            [[e.line, e.column, e.end_line, e.end_column, e.replacement] for e in f.fix.edits],
        ]
    return item


def _decode(entry: Any, key: str, path: str, fixes: bool) -> tuple[list[Finding], str | None, int]:
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
        raise ValueError("foreign entry")
    error, lines, raw, marked = entry["error"], entry["lines"], entry["findings"], entry["fixes"]
    if (
        not isinstance(error, (str, type(None)))
        or not _is_int(lines)
        or not isinstance(raw, list)
        or not isinstance(marked, bool)
        or (fixes and not marked)
    ):
        raise ValueError("bad entry")
    findings = []
    for item in raw:
        if not isinstance(item, dict) or not set(_FIELDS) <= set(item) <= set(_FIELDS) | {"fix"}:
            raise ValueError("bad finding")
        for name, types in _FIELDS.items():
            value = item[name]
            if not isinstance(value, types) or (types is _INT and not _is_int(value)):
                raise ValueError(f"bad {name}")
        if (
            item["source"] not in _SOURCES
            or item["severity"] not in _SEVERITIES
            or not all(isinstance(h, str) for h in item["hints"])
        ):
            raise ValueError("bad finding")
        fix = item.pop("fix", None)
        finding = Finding(path=path, **item)
        if fix is not None:
            finding.fix = _decode_fix(fix)
        findings.append(finding)
    return findings, error, lines


def _decode_fix(raw: Any) -> Fix:
    applicability, description, edits = raw
    if applicability not in ("safe", "unsafe") or not isinstance(description, str) or not isinstance(edits, list):
        raise ValueError("bad fix")
    out = []
    for edit in edits:
        line, column, end_line, end_column, text = edit
        if (
            not all(_is_int(v) and v > 0 for v in (line, column, end_line, end_column))
            or not isinstance(text, str)
            or (end_line, end_column) < (line, column)
        ):
            raise ValueError("bad fix")
        out.append(Edit(line, column, end_line, end_column, text))
    return Fix(applicability, description, tuple(out))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_cache_dir(folder: str) -> bool:
    try:
        with open(os.path.join(folder, TAG_NAME), encoding="utf-8") as fh:
            return fh.read(len(TAG)) == TAG
    except OSError:
        return False


def clean(folder: str) -> bool:
    """Remove the cache folder; False when there was none. Raises ``ValueError`` when the
    folder exists but is not a torchlint cache (it is then left alone)."""
    if not os.path.lexists(folder):
        return False
    if os.path.islink(folder) or not os.path.isdir(folder) or not is_cache_dir(folder):
        raise ValueError(f"{folder}: not a torchlint cache folder (no torchlint {TAG_NAME}); left alone")
    shutil.rmtree(folder)
    return True
