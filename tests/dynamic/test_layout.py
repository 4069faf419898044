"""The dynamic package's layout holds: no import circles through it, the parent side never
reaches torch or the child side, and nothing in it reaches back to the API or the pipeline.

Imports are read from the source (every ``import``, function-level ones included), so an
import hidden inside a function cannot bring a circle back unnoticed.
"""

from import_graph import GRAPH, MODULES, cycles, reach

PARENT = {
    "torchlint.dynamic.target_pass",
    "torchlint.dynamic.process",
    "torchlint.dynamic.results",
    "torchlint.dynamic.targets",
    "torchlint.dynamic.specs",
    "torchlint.dynamic.answer",
    "torchlint.dynamic.gb_registry",
    "torchlint.dynamic.recompiles",
    "torchlint.run.program",
    "torchlint.dynamic.cudagraph_text",
    "torchlint.dynamic.records",
    "torchlint.dynamic.costs",
}  # (read by both sides, torch-free)
CHILD = {
    "torchlint.dynamic.worker",
    "torchlint.dynamic.load",
    "torchlint.dynamic.observe",
    "torchlint.dynamic.cudagraphs",
    "torchlint.dynamic.logs",
    "torchlint.dynamic.timing",
    "torchlint.dynamic.timed_calls",
    "torchlint.run.observer",
    "torchlint.run.bootstrap.sitecustomize",
}


def test_the_two_sides_name_every_dynamic_module():
    dynamic = {m for m in MODULES if m.startswith(("torchlint.dynamic.", "torchlint.run."))} - {"torchlint.run.command"}
    assert dynamic == PARENT | CHILD


def test_the_walk_sees_torch_where_it_is_imported():
    assert "torch" in GRAPH["torchlint.dynamic.load"] and "torch" not in GRAPH["torchlint.dynamic.specs"]


def test_no_import_circle_goes_through_the_dynamic_pass_config_api_or_pipeline():
    mine = (
        "torchlint.dynamic",
        "torchlint.config",
        "torchlint.api",
        "torchlint.pipeline",
        "torchlint.merge",
        "torchlint.findings",
        "torchlint.files",
    )
    bad = [c for c in cycles() if any(m == p or m.startswith(p + ".") for m in c for p in mine)]
    assert bad == []


def test_the_parent_side_never_reaches_torch_or_the_child_side():
    for module in sorted(PARENT):
        reached = reach(module)
        assert "torch" not in reached, module
        assert not reached & CHILD, (module, sorted(reached & CHILD))


def test_the_child_side_does_not_import_the_parents_process_management():
    for module in sorted(CHILD):
        assert not reach(module) & {
            "torchlint.dynamic.target_pass",
            "torchlint.dynamic.process",
            "torchlint.dynamic.results",
        }, module


def test_nothing_in_the_dynamic_pass_imports_the_api_or_the_pipeline():
    for module in sorted(PARENT | CHILD | {"torchlint.dynamic"}):
        assert not reach(module) & {"torchlint.api", "torchlint.pipeline", "torchlint.cli"}, module
