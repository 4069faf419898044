"""The static pass over many files: read, pre-filter, parse once, lint, collect errors."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Type

import libcst as cst

from torchlint.findings import FileError, Finding
from torchlint.rules import all_rules
from torchlint.rules.base import Rule
from torchlint.static.engine import lint_module
from torchlint.static.files import FileProblem, read_source

# A file can hold a compiled region only if it mentions one of these.
_CANDIDATE = re.compile(r"torch|Module|compile")


@dataclass
class FileResult:
    path: str
    findings: List[Finding] = field(default_factory=list)
    error: Optional[str] = None
    lines: int = 0


def parse_error_message(exc: Exception, source: str = "") -> str:
    if isinstance(exc, cst.ParserSyntaxError):
        # Python's own parser words syntax errors better and places them exactly.
        try:
            compile(source, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as err:
            col = f", column {err.offset}" if err.offset else ""
            return f"syntax error at line {err.lineno}{col}: {err.msg}"
        except (ValueError, RecursionError, MemoryError):
            pass
        else:
            return (f"syntax the parser does not support (line {exc.raw_line}, column "
                    f"{exc.raw_column + 1}); torchlint parses Python 3.0-3.12 grammar")
        first = str(exc.message).strip().splitlines()[0] if exc.message else "invalid syntax"
        return f"syntax error at line {exc.raw_line}, column {exc.raw_column + 1}: {first}"
    if isinstance(exc, RecursionError):
        return "expression nested too deeply for the parser"
    return f"cannot parse: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")


def check_source(source: str, path: str, rule_classes: Sequence[Type[Rule]]) -> FileResult:
    """Lint one file's text; parse problems become ``error``, never exceptions."""
    result = FileResult(path=path, lines=source.count("\n") + 1)
    if not rule_classes or not _CANDIDATE.search(source):
        return result
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError, ValueError, MemoryError) as exc:
        result.error = parse_error_message(exc, source)
        return result
    try:
        result.findings = lint_module(module, path, rule_classes, source.splitlines())
    except RecursionError:
        result.error = "code nested too deeply to analyse"
    return result


def check_file(path: str, rule_classes: Sequence[Type[Rule]]) -> FileResult:
    try:
        source = read_source(path)
    except FileProblem as exc:
        return FileResult(path=path, error=str(exc))
    return check_source(source, path, rule_classes)


def select_rules(enabled_codes: Sequence[str]) -> List[Type[Rule]]:
    wanted = set(enabled_codes)
    return [r for r in all_rules() if r.code in wanted]


def run_static(files: Sequence[str], rule_classes: Sequence[Type[Rule]]):
    """Findings and errors for ``files``, in file order."""
    findings: List[Finding] = []
    errors: List[FileError] = []
    for path in files:
        res = check_file(path, rule_classes)
        findings.extend(res.findings)
        if res.error:
            errors.append(FileError(path, res.error))
    return findings, errors
