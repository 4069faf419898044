"""``torchlint server``: a language server over stdio (pygls + lsprotocol, the ``lsp`` extra).

- Diagnostics from the static pass on the editor's in-memory text on open and save (at
  once) and on change (after ``debounce`` seconds of quiet: a burst of edits cancels the
  waiting run and makes one, and a result for an older version than the buffer's is
  dropped, so 200 rapid edits give a handful of lint runs, not 200). A syntax error
  mid-edit clears the document's diagnostics (nothing stale) and is logged.
- Severity from the rule (graph breaks: error, TL1xx performance warnings: warning); the
  code links to the rule's page as installed (``codeDescription.href``).
- Code actions: each fixable finding's own fix (safe ones preferred, unsafe ones labelled
  ``(unsafe)``), ``source.fixAll.torchlint`` (every safe fix), and adding
  ``# torchlint: ignore[TLnnn]`` to the line.
- Hover on a flagged span: the rule page.
- Settings per document from the nearest pyproject.toml, re-statted on every lint and
  re-read when it changed; ``workspace/didChangeWatchedFiles`` re-lints the open documents.
- Regions across files (:mod:`torchlint.lsp.project`): the project's saved files with the
  open buffers in their place; when an edit changes what a file exports, the other open
  documents whose facts changed are linted again. A saved ``.py`` file changing on disk
  (a watched-file event) does the same.
- Per edit only the changed top-level statements are parsed again
  (:mod:`torchlint.static.incremental`), and summarised again.
- ``torchlint/stats`` (a custom request) answers ``{"lint_runs": n, "lint_ms": [...],
  "lint_cpu_ms": [...], "project_builds": n, ...}`` for tests and the benchmark.

libcst, the rules and the fixers are imported once, when the server starts.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from torchlint import __version__
from torchlint.findings import Finding
from torchlint.lsp import core
from torchlint.lsp.project import WorkspaceProject
from torchlint.output import mode_words
from torchlint.static.incremental import IncrementalParser
from torchlint.static.limits import syntax_tree

log = logging.getLogger("torchlint.lsp")

FIX_ALL_KIND = "source.fixAll.torchlint"
DEFAULT_DEBOUNCE = 0.05  # seconds


class TorchlintServer(LanguageServer):
    def __init__(self, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__("torchlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.settings = core.SettingsCache()
        self.lint_runs = 0
        #: how long each of the last lint runs of a document took, in ms (``torchlint/stats``)
        self.lint_ms: list[float] = []
        self.lint_cpu_ms: list[float] = []
        self._pending: dict[str, asyncio.Task] = {}
        #: uri -> (version, text, findings) of the last published lint
        self.results: dict[str, tuple[int | None, str, list[Finding]]] = {}
        self._fixes: dict[str, tuple[str, list[core.FixChoice]]] = {}
        # one thread: lint runs never overlap, and the event loop keeps reading messages
        self.linter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchlint-lint")
        self._count_lock = threading.Lock()
        self._lint_lock = threading.RLock()  # a hover's lint (event loop) vs the lint thread's
        #: uri -> the trees of its earlier versions (only changed statements are parsed again)
        self.parsers: dict[str, IncrementalParser] = {}
        #: project root -> its files' summaries and regions; uri -> the facts its last lint used
        self.projects: dict[str, WorkspaceProject] = {}
        self.facts_used: dict[str, dict[str, dict | None]] = {}

    # -- linting ---------------------------------------------------------------------------
    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def project_for(self, path: str, settings) -> WorkspaceProject:
        """The project ``path`` belongs to: its config's folder, else the workspace folder
        holding it (all files under either count), else only the open buffers."""
        root, scan = None, True
        if settings.source:
            root = os.path.abspath(settings.root)
        else:
            folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
            if not folders and self.workspace.root_path:
                folders = [self.workspace.root_path]
            inside = [f for f in folders if f and os.path.abspath(path).startswith(os.path.abspath(f) + os.sep)]
            if inside:
                root = os.path.abspath(max(inside, key=len))
        if root is None:
            root, scan = "", False
        project = self.projects.get(root)
        if project is None or project.settings is not settings:
            fresh = WorkspaceProject(root or os.path.dirname(os.path.abspath(path)), settings, scan=scan)
            if project is not None:
                fresh.adopt(project)
            self.projects[root] = project = fresh
        return project

    def lint_now(self, uri: str, text: str) -> tuple[core.LintResult, list[str]]:
        """Lint ``text`` for document ``uri`` (in the caller's thread): the result, and the
        other open documents whose project facts the text changed (to be linted again)."""
        with self._count_lock:
            self.lint_runs += 1
        path = self.path_of(uri)
        with self._lint_lock:
            settings, problem = self.settings.get(path)
            try:
                syntax = syntax_tree(text)  # one ast parse for the summary and the depth check
                project = self.project_for(path, settings)
                changed = project.set_buffer(path, text, syntax[1])
                facts = project.facts(path)
                parser = self.parsers.setdefault(uri, IncrementalParser())
                rules = core.rules_for(settings)
                result = core.lint_text(
                    text,
                    path,
                    settings,
                    facts=facts,
                    parser=parser,
                    syntax=syntax,
                    reach=lambda other, mode: project.reach(other, mode, rules),
                )
                self.facts_used[uri] = facts
                affected = self.affected(project, skip=uri) if changed else []
            except Exception as exc:
                log.exception("torchlint failed on %s", uri)
                return core.LintResult([], f"internal error: {type(exc).__name__}: {exc}"), []
        if problem and not result.problem:
            result.problem = problem
        return result, affected

    def affected(self, project: WorkspaceProject, skip: str | None = None) -> list[str]:
        """Open documents of ``project`` whose facts differ from those their last lint used."""
        out = []
        for uri in list(self.facts_used):
            if uri != skip and uri in self.workspace.text_documents:
                path = self.path_of(uri)
                settings, _ = self.settings.get(path)
                if self.project_for(path, settings) is project and project.facts(path) != self.facts_used[uri]:
                    out.append(uri)
        return out

    def refresh(self, change) -> list[str]:
        """``change(project)`` on every project, then the open documents it affected."""
        with self._lint_lock:
            out: list[str] = []
            for project in list(self.projects.values()):
                change(project)
                out.extend(u for u in self.affected(project) if u not in out)
            return out

    async def refresh_later(self, change) -> None:
        """:meth:`refresh` in the lint thread, then lint the documents it names."""
        loop = asyncio.get_running_loop()
        for uri in await loop.run_in_executor(self.linter, self.refresh, change):
            self.schedule(uri, 0)

    def schedule(self, uri: str, delay: float) -> None:
        """Lint ``uri`` after ``delay`` seconds, replacing a run that is still waiting."""
        old = self._pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self._pending[uri] = asyncio.ensure_future(self._lint_later(uri, delay))

    async def _lint_later(self, uri: str, delay: float) -> None:
        me = asyncio.current_task()
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            doc = self.workspace.get_text_document(uri)
            version, text = doc.version, doc.source
            loop = asyncio.get_running_loop()
            outcome = await loop.run_in_executor(self.linter, self._lint_if_current, uri, version, text)
            if outcome is None:
                return  # edited (or closed) before its turn came: the newer run lints
            result, affected = outcome
            for other in affected:
                self.schedule(other, 0)
            doc = self.workspace.text_documents.get(uri)
            if doc is None or doc.version != version or doc.source != text:
                log.info("drop stale result of version %s", version)
                return  # edited (or closed) meanwhile: the newer run publishes
            self.publish(uri, version, text, result)
        except asyncio.CancelledError:
            pass
        finally:
            if self._pending.get(uri) is me:
                del self._pending[uri]

    def _lint_if_current(self, uri: str, version: int | None, text: str):
        """:meth:`lint_now`, unless the document changed since the run was scheduled."""
        doc = self.workspace.text_documents.get(uri)
        if doc is None or doc.version != version:
            return None
        started, cpu = time.perf_counter(), time.process_time()
        outcome = self.lint_now(uri, text)
        ms = (time.perf_counter() - started) * 1000
        cpu_ms = (time.process_time() - cpu) * 1000  # the server's CPU time meanwhile: the lint's, near enough
        self.lint_ms = [*self.lint_ms[-999:], round(ms, 1)]
        self.lint_cpu_ms = [*self.lint_cpu_ms[-999:], round(cpu_ms, 1)]
        log.info("linted %s version %s in %.0f ms (%.0f ms of CPU)", uri, version, ms, cpu_ms)
        return outcome

    def publish(self, uri: str, version: int | None, text: str, result: core.LintResult) -> None:
        if result.problem:
            log.info("%s: %s", uri, result.problem)
        self.results[uri] = (version, text, result.findings)
        lines = text.splitlines(True) or [""]
        diagnostics = [self.diagnostic(f, lines) for f in result.findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    # -- conversions -----------------------------------------------------------------------
    def to_range(self, lines, start: core.Pos, end: core.Pos) -> types.Range:
        codec = self.workspace.position_codec
        padded = list(lines) + [""] * (max(start[0], end[0]) + 1 - len(lines))
        return codec.range_to_client_units(
            padded, ServerTextRange(ServerTextPosition(*start), ServerTextPosition(*end))
        )

    def finding_range(self, f: Finding, lines) -> types.Range:
        return self.to_range(lines, (f.line - 1, f.column - 1), (max(f.end_line, f.line) - 1, max(f.end_column - 1, 0)))

    def diagnostic(self, f: Finding, lines) -> types.Diagnostic:
        href = core.rule_page_uri(f.rule) if f.rule else None
        return types.Diagnostic(
            range=self.finding_range(f, lines),
            message=f"{f.name}: {f.message}" + (f" ({mode_words(f)})" if f.mode else ""),
            severity=types.DiagnosticSeverity.Warning if f.severity == "warning" else types.DiagnosticSeverity.Error,
            code=f.rule,
            code_description=types.CodeDescription(href=href) if href else None,
            source="torchlint",
            data={"rule": f.rule, "line": f.line, "column": f.column, "mode": f.mode},
        )

    def edits_to_lsp(self, old: str, edits: list[core.TextEdit]) -> list[types.TextEdit]:
        lines = old.splitlines(True) or [""]
        return [types.TextEdit(range=self.to_range(lines, e.start, e.end), new_text=e.new_text) for e in edits]

    def current(self, uri: str) -> tuple[str, list[Finding]]:
        """The document's text and findings, linting it now if the last result is older."""
        doc = self.workspace.get_text_document(uri)
        text = doc.source
        last = self.results.get(uri)
        if last is not None and last[1] == text:
            return text, last[2]
        result, affected = self.lint_now(uri, text)
        for other in affected:
            self.schedule(other, 0)
        return text, result.findings

    def with_settings(self, compute, uri: str, text: str, default):
        """``compute(text, path, settings)`` for the document; ``default`` if it fails."""
        path = self.path_of(uri)
        settings, _ = self.settings.get(path)
        try:
            return compute(text, path, settings)
        except Exception:
            log.exception("torchlint: %s failed on %s", compute.__name__, uri)
            return default

    def fixes(self, uri: str, text: str) -> list[core.FixChoice]:
        cached = self._fixes.get(uri)
        if cached is not None and cached[0] == text:
            return cached[1]
        found = self.with_settings(core.fixes_for, uri, text, [])
        self._fixes[uri] = (text, found)
        return found


def _overlaps(f: Finding, rng: types.Range) -> bool:
    """Whether the finding's lines meet the requested range's lines (0-based range)."""
    return f.line - 1 <= rng.end.line and max(f.end_line, f.line) - 1 >= rng.start.line


def create_server(debounce: float = DEFAULT_DEBOUNCE) -> TorchlintServer:
    server = TorchlintServer(debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: TorchlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: TorchlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: TorchlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: TorchlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls._pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.results.pop(uri, None)
        ls._fixes.pop(uri, None)
        ls.parsers.pop(uri, None)
        ls.facts_used.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        path = ls.path_of(uri)
        await ls.refresh_later(lambda project: project.close_buffer(path))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched(ls: TorchlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(c.uri.endswith(("pyproject.toml", "torchlint.toml")) for c in params.changes):
            for uri in list(ls.workspace.text_documents):
                ls.schedule(uri, 0)
            return
        sources = [ls.path_of(c.uri) for c in params.changes if c.uri.endswith((".py", ".pyi"))]
        if sources:  # saved, created or deleted on disk: what the workspace's regions are made of
            moved = any(c.type != types.FileChangeType.Changed for c in params.changes)
            await ls.refresh_later(lambda project: project.files_changed(sources, moved))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: TorchlintServer, params: types.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watch = caps.did_change_watched_files if caps is not None else None
        if watch is not None and watch.dynamic_registration:
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="torchlint-config",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[
                                    types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                                    types.FileSystemWatcher(glob_pattern="**/torchlint.toml"),
                                    types.FileSystemWatcher(glob_pattern="**/*.py"),
                                ]
                            ),
                        )
                    ]
                )
            )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: TorchlintServer, params: types.HoverParams) -> types.Hover | None:
        text, findings = ls.current(params.text_document.uri)
        lines = text.splitlines(True) or [""]
        pos = params.position
        for f in findings:
            rng = ls.finding_range(f, lines)
            if (rng.start.line, rng.start.character) <= (pos.line, pos.character) <= (rng.end.line, rng.end.character):
                page = core.rule_page_text(f.rule) if f.rule else None
                body = f"**{f.rule} {f.name}**: {f.message}\n\n---\n\n{page}" if page else f"**{f.rule}** {f.message}"
                return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=body), range=rng)
        return None

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL_KIND]
        ),
    )
    def code_action(ls: TorchlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        text, findings = ls.current(uri)
        lines = text.splitlines(True) or [""]
        only = params.context.only
        want_quick = not only or any(str(k).startswith("quickfix") for k in only)
        want_all = not only or any(FIX_ALL_KIND.startswith(str(k)) for k in only)
        actions: list[types.CodeAction] = []
        if want_quick:
            here = [f for f in findings if _overlaps(f, params.range)]
            fixes = {(c.code, c.line, c.column): c for c in ls.fixes(uri, text)} if here else {}
            for f in here:
                diag = [ls.diagnostic(f, lines)]
                choice = fixes.get((f.rule, f.line, f.column)) if f.rule is not None else None
                if choice is not None:
                    unsafe = choice.applicability != "safe"
                    actions.append(
                        types.CodeAction(
                            title=f"{f.rule}: {choice.description}" + (" (unsafe)" if unsafe else ""),
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=diag,
                            is_preferred=not unsafe,
                            edit=types.WorkspaceEdit(
                                changes={uri: ls.edits_to_lsp(text, core.text_edits(text, choice.new_text))}
                            ),
                        )
                    )
            for f in here:
                edit = core.ignore_edit(text, f)
                if edit is not None:
                    actions.append(
                        types.CodeAction(
                            title=f"{f.rule}: add `# torchlint: ignore[{f.rule}]`",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[ls.diagnostic(f, lines)],
                            edit=types.WorkspaceEdit(changes={uri: ls.edits_to_lsp(text, [edit])}),
                        )
                    )
        if want_all and findings:
            new = ls.with_settings(core.fix_all, uri, text, text)
            if new != text:
                actions.append(
                    types.CodeAction(
                        title="torchlint: fix all safe findings",
                        kind=FIX_ALL_KIND,
                        edit=types.WorkspaceEdit(changes={uri: ls.edits_to_lsp(text, core.text_edits(text, new))}),
                    )
                )
        return actions

    @server.feature("torchlint/stats")
    def stats(ls: TorchlintServer, params) -> dict:
        return {
            "lint_runs": ls.lint_runs,
            "pending": len(ls._pending),
            "lint_ms": ls.lint_ms,
            "lint_cpu_ms": ls.lint_cpu_ms,
            "project_builds": sum(p.builds for p in ls.projects.values()),
        }

    return server


def serve(debounce: float = DEFAULT_DEBOUNCE, log_file: str | None = None) -> None:
    """Run the server on stdin/stdout until the client says exit."""
    if log_file:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    # load libcst, the rules and the fixers now, not on the first keystroke
    import torchlint.fixes.rounds
    import torchlint.static.engine  # noqa: F401
    from torchlint.fixes import all_fixers
    from torchlint.rules import all_rules

    all_rules()
    all_fixers()
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    create_server(debounce).start_io()
