"""What each command was given, as one object, and the settings a `check` run makes of it.

A command collects its options into one of these dataclasses (the field names are the
options' parameter names, so ``CheckArgs(**params)`` builds it) and hands that object on;
:func:`check_settings` lays the command line over the config file (command line wins).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from torchlint.config import (
    ConfigError,
    Settings,
    check_run_options,
    check_torch_version,
    codes_option,
    config_start,
    load_settings,
    override,
    parse_size,
    select_override,
)

if TYPE_CHECKING:
    from torchlint.pipeline import CheckOptions


@dataclass
class CheckArgs:
    """`torchlint check` (and `torchlint baseline`, which takes a part of these)."""

    paths: tuple[str, ...] = ()
    fmt: str = "text"
    select: str | None = None
    ignore: str | None = None
    extend_select: str | None = None
    extend_ignore: str | None = None
    no_static: bool = False
    no_dynamic: bool = False
    targets: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    input_sets: tuple[str, ...] = ()
    inputs_from: str | None = None
    input_sets_from: str | None = None
    train: bool = False
    module_mode: str | None = None
    half: bool = False
    timeout: float | None = None
    max_memory: str | None = None
    cost_calls: int | None = None
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    mode: str | None = None
    device: str | None = None
    max_cudagraph_skips: int | None = None
    baseline: str | None = None
    config_file: str | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    jobs: int | None = None
    no_cache: bool = False
    cache_dir: str | None = None
    stdin_filename: str | None = None
    add_noqa: bool = False
    torch_version: str | None = None
    shard: str | None = None
    no_project: bool = False
    follow_imports: bool = False
    statistics: bool = False
    exit_zero: bool = False
    output_file: str | None = None
    quiet: bool = False
    verbose: bool = False

    @property
    def fixing(self) -> bool:
        """--fix or --diff: the fixes are computed (and written, for --fix)."""
        return self.fix or self.diff

    @property
    def reads_stdin(self) -> bool:
        """The source comes from stdin: `-` as the only path, or --stdin-filename and no path."""
        return tuple(self.paths) == ("-",) or (self.stdin_filename is not None and not self.paths)

    def check_usage(self) -> None:
        """Options that make no sense together: a :class:`~torchlint.config.ConfigError`
        saying which, before anything is read."""
        if self.add_noqa and self.fixing:
            raise ConfigError("--add-noqa cannot be combined with --fix or --diff")
        if self.stdin_filename is not None and not self.reads_stdin:
            raise ConfigError("--stdin-filename names the source read from stdin: give `-` as the only path")
        if self.reads_stdin and (self.fixing or self.add_noqa):
            raise ConfigError("--fix, --diff and --add-noqa rewrite files: not with a source read from stdin")

    def check_against(self, settings: Settings) -> None:
        """Options that need what they apply to (declared targets, the static pass): a
        ConfigError saying what is missing."""
        declared = bool(self.targets or settings.targets)
        if (self.mode or self.device) and not declared:
            raise ConfigError(
                "--mode and --device apply to dynamic targets: give a --target (or [[tool.torchlint.targets]])"
            )
        if self.reads_stdin and self.no_static:
            raise ConfigError("a source read from stdin is checked by the static pass: drop --no-static")
        if self.no_static and (self.no_dynamic or not declared):
            raise ConfigError("nothing to do: --no-static and no dynamic targets")
        if (self.inputs or self.input_sets or self.inputs_from or self.input_sets_from) and not self.targets:
            raise ConfigError("--input, --input-set, --inputs-from and --input-sets-from need a --target")

    def check_options(
        self, settings: Settings, *, stdin: tuple[str, str] | None, progress: Any, shard: tuple[int, int] | None
    ) -> CheckOptions:
        """The pipeline's options for this command line (``stdin``: the name and text read)."""
        from torchlint.pipeline import CheckOptions

        return CheckOptions(
            paths=self.paths or (".",),
            settings=settings,
            static=not self.no_static,
            stdin=stdin,
            dynamic=False if self.no_dynamic else None,
            cli_targets=cli_targets(self),
            train=self.train,
            progress=progress,
            # --fix/--diff rewrite files and want fixes: they never read the cache
            use_cache=not (self.no_cache or self.fixing),
            mark_fixes=True,  # per file, in the pass, cached with the findings
            shard=shard,
        )

    def shard_of(self) -> tuple[int, int] | None:
        """--shard K/N as (K, N); a ConfigError when it does not read as one."""
        if not self.shard:
            return None
        from torchlint.shards import parse_shard

        try:
            return parse_shard(self.shard)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


@dataclass
class RunArgs:
    """`torchlint run PROGRAM...`."""

    program: tuple[str, ...] = ()
    fmt: str = "text"
    select: str | None = None
    ignore: str | None = None
    paths: tuple[str, ...] = ()
    no_static: bool = False
    timeout: float | None = None
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    baseline: str | None = None
    config_file: str | None = None
    records_dir: str | None = None
    statistics: bool = False
    exit_zero: bool = False
    output_file: str | None = None
    quiet: bool = False
    verbose: bool = False


@dataclass
class MergeArgs:
    """`torchlint merge REPORT.json...`."""

    reports: tuple[str, ...] = ()
    fmt: str = "text"
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    baseline: str | None = None
    config_file: str | None = None
    statistics: bool = False
    exit_zero: bool = False
    output_file: str | None = None
    quiet: bool = False


def check_paths(paths: Sequence[str]) -> None:
    """A path that does not exist is a usage error, said before any work (a mistyped path
    would otherwise be reported after every declared target ran)."""
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise ConfigError("\n".join(f"{p}: no such file or directory" for p in missing))


def run_settings(args: RunArgs) -> Settings:
    """`torchlint run`'s settings: the config with the command line over it."""
    return override(
        load_settings(args.config_file),
        select=codes_option(args.select, "--select"),
        ignore=codes_option(args.ignore, "--ignore"),
        max_graph_breaks=args.max_graph_breaks,
        max_recompiles=args.max_recompiles,
        baseline=args.baseline,
    )


def merge_settings(args: MergeArgs) -> Settings:
    """`torchlint merge`'s settings: the config's gates with the command line's over them."""
    return override(
        load_settings(args.config_file),
        max_graph_breaks=args.max_graph_breaks,
        max_recompiles=args.max_recompiles,
        baseline=args.baseline,
    )


def check_settings(args: CheckArgs) -> Settings:
    """The config that applies to the paths (or to ``--stdin-filename``), with the command
    line over it. Raises :class:`~torchlint.config.ConfigError` naming the bad value."""
    name = args.stdin_filename
    settings = load_settings(args.config_file, start=config_start([name] if name else args.paths))
    settings = select_override(
        settings,
        select=codes_option(args.select, "--select"),
        ignore=codes_option(args.ignore, "--ignore"),
        extend_select=codes_option(args.extend_select, "--extend-select"),
        extend_ignore=codes_option(args.extend_ignore, "--extend-ignore"),
    )
    settings = override(
        settings,
        max_graph_breaks=args.max_graph_breaks,
        max_recompiles=args.max_recompiles,
        baseline=args.baseline,
        timeout=args.timeout,
        mode=args.mode,
        device=args.device,
        max_cudagraph_skips=args.max_cudagraph_skips,
        cost_calls=args.cost_calls,
    )
    memory = args.max_memory
    settings = override(settings, max_memory=parse_size(memory, "--max-memory") if memory else None)
    settings = override(
        settings,
        jobs=args.jobs,
        cache_dir=os.path.abspath(args.cache_dir) if args.cache_dir else None,
        project=False if args.no_project else None,
        follow_imports=True if args.follow_imports else None,
        train=True if args.train else None,
        module_mode=args.module_mode,
        half=True if args.half else None,
    )
    if args.torch_version is not None:
        settings = override(settings, torch_version=check_torch_version(args.torch_version, "--torch-version"))
    if args.mode or args.device:
        check_run_options(settings, "--mode/--device")
    return settings


def cli_targets(args: CheckArgs) -> list[dict[str, Any]]:
    """The ``--target`` options as target tables (the config's keys), each with the inputs given."""
    tables = []
    for target in args.targets:
        table: dict[str, Any] = {"target": target}
        if args.inputs:
            table["input"] = list(args.inputs)
        if args.input_sets:
            table["input-sets"] = list(args.input_sets)
        if args.inputs_from:
            table["inputs-from"] = args.inputs_from
        if args.train:
            table["train"] = True
        if args.input_sets_from:
            table["input-sets-from"] = args.input_sets_from
        tables.append(table)
    return tables
