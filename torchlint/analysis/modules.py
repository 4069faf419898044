"""Which dotted module a file is, and which file an import names, without importing anything.

A file's module name comes from walking up its folders while they hold ``__init__.py``
(``pkg/sub/mod.py`` with both folders packages is ``pkg.sub.mod``). Under a source root (the
``src`` setting, default the project root and its ``src/`` folder) a file is also known by its
path from that root, so namespace packages (folders without ``__init__.py``) and src layouts
resolve too. Imports are resolved against the files being checked first, then by looking for
``a/b.py`` or ``a/b/__init__.py`` in the folders where the project's top-level packages live
and in the source roots. Installed third-party packages (site-packages) are searched only when
``follow_imports`` is on; ``torch`` is never followed (the rules know its names already).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Iterable, Sequence

#: packages never read as project code, even with follow-imports
NEVER_FOLLOW = frozenset({"torch", "numpy", "builtins", "typing", "functools", "logging"})


def _is_identifier_path(parts: Sequence[str]) -> bool:
    return all(p.isidentifier() for p in parts)


def package_walk(path: str, folders: dict[str, tuple[list[str], str]] | None = None) -> tuple[str, str]:
    """(dotted name, the folder its top package sits in) by walking up ``__init__.py``;
    ``folders`` remembers each folder's walk (files of one folder share it)."""
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    stem = name[:-3] if name.endswith(".py") else name
    packages, top = _folder_walk(folder, folders if folders is not None else {})
    parts = packages if stem == "__init__" else packages + [stem]
    return ".".join(parts), top


def _folder_walk(folder: str, memo: dict[str, tuple[list[str], str]]) -> tuple[list[str], str]:
    """The package names from the top package down to ``folder``, and the top's parent."""
    hit = memo.get(folder)
    if hit is None:
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            parent, pkg = os.path.split(folder)
            if not pkg:  # the filesystem's root
                hit = ([""], parent)
            else:
                above, top = _folder_walk(parent, memo)
                hit = (above + [pkg], top)
        else:
            hit = ([], folder)
        memo[folder] = hit
    return hit


def relative_base(module: str, is_package: bool, level: int) -> str | None:
    """The package ``from <level dots> import`` starts from, for a file named ``module``."""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    return ".".join(parts[: len(parts) - (level - 1)]) if level > 1 else ".".join(parts)


def site_dirs() -> list[str]:
    """The installed-packages folders of this interpreter (for follow-imports)."""
    out = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p and os.path.isdir(p) and p not in out:
            out.append(os.path.realpath(p))
    for p in sys.path:
        if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p):
            rp = os.path.realpath(p)
            if rp not in out:
                out.append(rp)
    return out


class ModuleMap:
    """Files <-> dotted modules for one run.

    ``files``: the files being checked (each gets its names). ``roots``: source roots.
    ``follow_imports``: also resolve imports into installed packages.
    """

    def __init__(self, files: Iterable[str], roots: Sequence[str] = (), follow_imports: bool = False) -> None:
        self.by_name: dict[str, str] = {}
        self.names: dict[str, list[str]] = {}
        self.follow_imports = follow_imports
        self.roots = [os.path.abspath(r) for r in roots if os.path.isdir(r)]
        self.search: list[str] = list(self.roots)
        self.project_tops: set[str] = set()
        self._missing: set[str] = set()
        self._folders: dict[str, tuple[list[str], str]] = {}
        for path in files:
            self.add(path)
        if follow_imports:
            for d in site_dirs():
                if d not in self.search:
                    self.search.append(d)

    def add(self, path: str) -> list[str]:
        path = os.path.abspath(path)
        if path in self.names:
            return self.names[path]
        names: list[str] = []
        dotted, top_folder = package_walk(path, self._folders)
        if dotted:
            names.append(dotted)
            self.project_tops.add(dotted.split(".")[0])
            if top_folder not in self.search:
                self.search.append(top_folder)
        for root in self.roots:
            if path.startswith(root + os.sep):
                rel = os.path.relpath(path, root)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                if rel and _is_identifier_path(rel):
                    name = ".".join(rel)
                    if name not in names:
                        # a namespace package above the walk's top: the longer name is the one
                        # relative imports start from
                        longer = bool(dotted) and name.endswith("." + dotted)
                        names.insert(0, name) if longer else names.append(name)
                    self.project_tops.add(rel[0])
        self.names[path] = names
        for name in names:
            self.by_name.setdefault(name, path)
        return names

    def module_of(self, path: str) -> str:
        names = self.names.get(os.path.abspath(path)) or self.add(path)
        return names[0] if names else ""

    def find(self, module: str) -> str | None:
        """The file of dotted ``module`` (checked files first, then the search folders; never
        one of :data:`NEVER_FOLLOW`'s, whatever a project file is named: a test double of
        ``torch`` in a folder of the project is not torch)."""
        top = module.split(".")[0]
        if top in NEVER_FOLLOW:
            return None
        hit = self.by_name.get(module)
        if hit is not None or not module:
            return hit
        if module in self._missing:
            return None
        if top not in self.project_tops and not self.follow_imports:
            self._missing.add(module)
            return None
        parts = module.split(".")
        for folder in self.search:
            base = os.path.join(folder, *parts)
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    candidate = os.path.abspath(candidate)
                    self.by_name[module] = candidate
                    self.names.setdefault(candidate, [module])
                    return candidate
        self._missing.add(module)
        return None
