"""Project-wide facts for the language server: the saved files of the workspace, with the open
buffers in place of their saved text.

``torchlint check`` decides compiled regions over all the files it checks
(:mod:`torchlint.analysis.project`): a helper called from a ``forward`` in another file is a
region, a class is an ``nn.Module`` through a base in another file. The server does the same
for the project each open document belongs to (the folder of its pyproject.toml, else the
workspace folder): every Python file under it is summarised once (``ast``, no libcst; kept
per file, re-read when its size or modification time changes; kept between sessions in the
project's cache, shared with ``torchlint check``, so an editor opened on a big project that
was checked before does not summarise it again) and an open buffer's summary replaces its
file's. The regions are worked out again only when some summary changed -- a
base class, an import, a call added or removed, never an edit inside an expression or a
comment -- and then :meth:`WorkspaceProject.facts` may differ for documents other than the
one edited: the server re-lints those.
"""

from __future__ import annotations

import ast
import os
import threading
from typing import TYPE_CHECKING

from torchlint.analysis.summary import Summary, summarize
from torchlint.config import Settings
from torchlint.files import FileProblem, discover, display_path, read_source
from torchlint.static.installed_breaks import followable, is_module_class, with_breaks
from torchlint.static.modes import has_training_loop, loss_roots, modes_to_check, settings_for

if TYPE_CHECKING:
    from torchlint.analysis.project import Project
    from torchlint.findings import Finding

#: files summarised for one project at most (a bigger workspace is analysed over its first ones)
MAX_FILES = 20_000


class WorkspaceProject:
    """One project root's files, summaries and regions (see the module's docstring).

    Used from the server's one lint thread; the lock only guards against a caller elsewhere.
    """

    def __init__(self, root: str, settings: Settings, scan: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.settings = settings
        #: whether the files under ``root`` count (else only the open buffers and what they import)
        self.scan = scan
        self._lock = threading.RLock()
        self._files: list[str] | None = None
        #: path -> ((mtime, size), summary) of the saved file
        self._saved: dict[str, tuple[tuple[float, int] | None, Summary | None]] = {}
        #: path -> (text, summary) of an open buffer
        self._buffers: dict[str, tuple[str, Summary | None]] = {}
        #: the files (saved or open) that compile a model and call ``.backward()``: the project
        #: trains, so training-only code is checked (as ``torchlint check`` decides it)
        self._trainers: dict[str, bool] = {}  # open buffers
        self._saved_trainers: dict[str, bool] = {}  # saved files
        #: path -> the parts of its buffer's last summary (:func:`summarize`'s ``memo``)
        self._memos: dict[str, dict] = {}
        #: module mode -> the regions worked out for it (:mod:`torchlint.static.modes`)
        self._projects: dict[str, Project] = {}
        #: path -> its facts in each mode checked
        self._facts: dict[str, dict[str, dict | None]] = {}
        #: times the regions were worked out (for tests and the benchmark)
        self.builds = 0
        self._store: object | None = None  # the cache of summaries (False: none), made when first needed
        #: (path, mode) -> (text, facts, findings) of the files :meth:`reach` linted
        self._linted: dict[tuple[str, str], tuple[str, dict | None, list[Finding]]] = {}

    # -- what changed ------------------------------------------------------------------
    def set_buffer(self, path: str, text: str, tree: ast.Module | None = None) -> bool:
        """Use ``text`` (``tree``: its ``ast``, if at hand) for ``path``; whether that changed
        what other files may see of it."""
        path = os.path.abspath(path)
        with self._lock:
            old = self._buffers.get(path)
            if old is not None and old[0] == text:
                return False
            summary = summarize(text, tree, self._memos.setdefault(path, {})) if tree is not None else summarize(text)
            if summary is None and old is not None:
                summary = old[1]  # mid-edit syntax error: keep what the file said before
            before = old[1] if old is not None else self._saved_summary(path)
            trained = self.trains()
            self._buffers[path] = (text, summary)
            self._trainers[path] = has_training_loop(text)
            if summary != before or self.trains() != trained:
                self._projects = {}
                return True
            return False

    def close_buffer(self, path: str) -> bool:
        """The buffer is closed: the saved file counts again. Whether that changed anything."""
        path = os.path.abspath(path)
        with self._lock:
            trained = self.trains()
            old = self._buffers.pop(path, None)
            self._memos.pop(path, None)
            self._trainers.pop(path, None)
            if old is not None and (old[1] != self._saved_summary(path) or self.trains() != trained):
                self._projects = {}
                return True
            return False

    def files_changed(self, paths: list[str], created_or_deleted: bool) -> None:
        """Files changed on disk (a save, a checkout, a new file): re-read them when next needed."""
        with self._lock:
            for p in paths:
                self._saved.pop(os.path.abspath(p), None)
                self._saved_trainers.pop(os.path.abspath(p), None)
            if created_or_deleted:
                self._files = None
            self._projects = {}

    # -- facts -------------------------------------------------------------------------
    def modes(self) -> tuple[str, ...]:
        """The module modes checked, as ``torchlint check`` decides them for this project:
        the ``module-mode`` setting, else both when the project trains, else eval."""
        return modes_to_check(self.settings, [self.trains()])

    def facts(self, path: str) -> dict[str, dict | None]:
        """Per module mode checked, what checking ``path`` in that mode needs from the rest of
        the project (None: ``project`` is off)."""
        modes = self.modes()
        if not self.settings.project:
            return dict.fromkeys(modes)
        path = os.path.abspath(path)
        with self._lock:
            if not self._projects:
                self._facts = {}
            if path not in self._facts:
                self._facts[path] = {mode: with_breaks(self._project(mode, modes).facts(path)) for mode in modes}
            return self._facts[path]

    def reach(self, path: str, mode: str, rules: list) -> tuple[dict | None, list[Finding]] | None:
        """``path``'s facts in ``mode`` and the findings of ``rules`` in it (its open buffer,
        else the saved file), kept until its text or facts change: what TL021 needs of a file
        that holds a method an open document's made objects call. None: not readable."""
        from torchlint.static.lint import lint_file
        from torchlint.static.modes import facts_for

        path = os.path.abspath(path)
        with self._lock:
            entry = self._buffers.get(path)
            if entry is not None:
                text: str | None = entry[0]
            else:
                try:
                    text = read_source(path) if _stamp(path) is not None else None
                except FileProblem:
                    text = None
            if text is None:
                return None
            fact = self.facts(path).get(mode)
            hit = self._linted.get((path, mode))
            if hit is not None and hit[0] == text and hit[1] == fact:
                return fact, hit[2]
            found = lint_file(path, text, rules, facts=facts_for([fact], [text], self.settings, mode)[0]).findings
            self._linted[(path, mode)] = (text, fact, found)
            return fact, found

    def trains(self) -> bool:
        """Whether the project trains its compiled model: the setting, or a file of the
        project (saved, or its open buffer) that compiles a model and calls ``.backward()``."""
        with self._lock:
            if self.settings.train:
                return True
            for path in self._workspace_files():
                if path not in self._buffers:
                    self._saved_summary(path)  # (reads the file once, and notes whether it trains)
                    if self._saved_trainers.get(path):
                        return True
            return any(self._trainers.values())

    def adopt(self, other: WorkspaceProject) -> None:
        """Take over the open buffers of the project this one replaces (its config changed)."""
        with self._lock:
            self._buffers.update(other._buffers)
            self._saved.update(other._saved)

    def _project(self, mode: str, modes: tuple[str, ...]) -> Project:
        """The regions in ``mode`` of ``modes`` (those checked): calls made only in training
        reach regions in training alone, and so do losses' forwards when both are checked."""
        key = f"{mode}:{','.join(modes)}"
        project = self._projects.get(key)
        if project is None:
            settings = settings_for(self.settings, mode, modes)
            project = self._projects[key] = self._build(settings.train, loss_roots(settings))
        return project

    def _build(self, train: bool, losses: bool) -> Project:
        from torchlint.analysis import installed
        from torchlint.analysis.modules import ModuleMap
        from torchlint.analysis.project import Project
        from torchlint.static.static_pass import source_roots

        files = self._workspace_files()
        checked = sorted(set(files) | set(self._buffers))
        for path in list(self._saved):  # files changed on disk since they were read
            if path not in self._buffers and self._saved[path][0] != _stamp(path):
                del self._saved[path]
        modmap = ModuleMap(checked, source_roots(self.settings, self.root), follow_imports=self.settings.follow_imports)
        self.builds += 1
        return Project(
            modmap,
            self._summary,
            checked,
            self._display,
            train=train,
            installed=installed.verdict,
            loss_roots=losses,
            followable=followable,
            module_base=is_module_class,
        )

    def _display(self, path: str) -> str:
        return display_path(path, self.root, absolute=False)

    def _summary(self, path: str) -> Summary | None:
        path = os.path.abspath(path)
        entry = self._buffers.get(path)
        return entry[1] if entry is not None else self._saved_summary(path)

    def _saved_summary(self, path: str) -> Summary | None:
        stamp = _stamp(path)
        hit = self._saved.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        try:
            text = read_source(path) if stamp is not None else None
        except FileProblem:
            text = None
        summary = self._summarize_saved(text) if text is not None else None
        self._saved_trainers[path] = text is not None and has_training_loop(text)
        self._saved[path] = (stamp, summary)
        return summary

    def _summarize_saved(self, text: str) -> Summary | None:
        """A saved file's summary, through the project's cache (as ``torchlint check`` keeps it)
        when the project has a root."""
        store = self._summary_store()
        if store is None:
            return summarize(text)
        from torchlint.static.sources import text_digest

        return store.summary(text_digest(text), lambda: text)

    def _summary_store(self):
        if self._store is None:
            self._store = False
            if self.scan:  # a project root (a lone file's folder gets no cache folder)
                from torchlint.config import ConfigError
                from torchlint.static.cache import Cache, default_dir

                try:
                    self._store = Cache(
                        default_dir(self.settings, self.root),
                        self.settings.selected,
                        self.settings.ignored,
                        torch_version=self.settings.static_torch_version(),
                    )
                except (ConfigError, OSError):
                    pass
        return self._store or None

    def _workspace_files(self) -> list[str]:
        if not self.scan:
            return []
        if self._files is None:
            found, _ = discover([self.root], self.settings.exclude, self.root)
            self._files = [os.path.join(self.root, f) for f in found if f.endswith((".py", ".pyi"))][:MAX_FILES]
        return self._files


def _stamp(path: str) -> tuple[float, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime, st.st_size
