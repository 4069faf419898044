"""What each command was given, as one object, and the settings a `check` run makes of it.

A command collects its options into one of these dataclasses (the field names are the
options' parameter names, so ``CheckArgs(**params)`` builds it) and hands that object on;
:func:`check_settings` lays the command line over the config file (command line wins).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from torchlint.config import (
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
