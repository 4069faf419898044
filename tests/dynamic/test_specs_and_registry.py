"""Input specs, target references and the GB registry: no torch needed for parsing."""

import pytest

from torchlint.dynamic.gb_registry import GraphBreakRegistry, load_registry, registry_path
from torchlint.dynamic.specs import ScalarSpec, SpecError, TensorSpec, TupleSpec, parse_input, parse_input_set
from torchlint.dynamic.targets import TargetError, make_target, parse_ref, target_from_config


@pytest.mark.parametrize(
    "text, expected",
    [
        ("f32[8,3,224,224]", TensorSpec("float32", (8, 3, 224, 224))),
        ("i64[2,16]:0..1000", TensorSpec("int64", (2, 16), 0.0, 1000.0)),
        ("bool[4]", TensorSpec("bool", (4,))),
        ("f16[2, 3]", TensorSpec("float16", (2, 3))),
        ("bf16[1]", TensorSpec("bfloat16", (1,))),
        ("f32", TensorSpec("float32", ())),
        ("int:3", ScalarSpec(3)),
        ("3", ScalarSpec(3)),
        ("0.5", ScalarSpec(0.5)),
        ("true", ScalarSpec(True)),
        ("(f32[2], i64[3]:0..5)", TupleSpec((TensorSpec("float32", (2,)), TensorSpec("int64", (3,), 0.0, 5.0)))),
    ],
)
def test_specs_parse(text, expected):
    assert parse_input(text) == expected
    assert parse_input(str(expected)) == expected  # str() round-trips


def test_input_set_splits_on_semicolons():
    assert parse_input_set("f32[2,16]; i64[2,16]:0..100") == [
        TensorSpec("float32", (2, 16)),
        TensorSpec("int64", (2, 16), 0.0, 100.0),
    ]


@pytest.mark.parametrize(
    "bad, words",
    [
        ("x32[2]", "unknown dtype"),
        ("f32[2,a]", "dimension 'a'"),
        ("f32[2", "cannot read"),
        ("i64[2]:5..1", "empty range"),
        ("bool[2]:0..1", "no range"),
        ("", "empty"),
        ("int:x", "not a valid int"),
        ("i32[2]:0.5..3", "integers"),
        ("(f32[2]", "must end with"),
    ],
)
def test_bad_spec_is_one_line_naming_it(bad, words):
    with pytest.raises(SpecError) as info:
        parse_input(bad)
    message = str(info.value)
    assert "\n" not in message and repr(bad) in message and words in message


def test_target_refs():
    ref = parse_ref("models/net.py:build(num_classes=10, names=('a', 'b'))")
    assert (ref.path, ref.name, ref.called, ref.kwargs_dict) == (
        "models/net.py",
        "build",
        True,
        {"num_classes": 10, "names": ("a", "b")},
    )
    assert parse_ref("C:/x/net.py:Net").path == "C:/x/net.py"
    with pytest.raises(TargetError, match="literals"):
        parse_ref("net.py:build(n=os.getcwd())")
    with pytest.raises(TargetError, match="PATH:NAME"):
        parse_ref("net.py")


def test_target_from_config_keys_and_errors():
    spec = target_from_config(
        {"target": "m.py:Net", "input": ["f32[2,16]"], "input-sets": ["f32[2,32]"], "max-graph-breaks": 2},
        base_dir="/proj",
    )
    assert spec.name == "m.py:Net" and spec.ref.path == "/proj/m.py"
    assert [len(c) for c in spec.input_sets] == [1, 1]  # the gate reads max-graph-breaks from the table
    with pytest.raises(TargetError, match="unknown key `inptus`"):
        target_from_config({"target": "m.py:Net", "inptus": []})
    with pytest.raises(SpecError):
        make_target("m.py:Net", ["f32[2,x]"])


def test_registry_reads_the_installed_torch_or_degrades():
    registry = load_registry()
    if registry_path() is None:
        assert len(registry) == 0 and registry.lookup("Data-dependent branching") is None
        return
    entry = registry.lookup("Data-dependent branching")
    assert entry.code.startswith("GB") and entry.explanation and not entry.explanation.startswith('"')
    text = "Encountered graph break when attempting to trace CALL:\n\nDynamic shape operator\n  Explanation: x"
    assert registry.find_in_text(text).gb_type == "Dynamic shape operator"


def test_registry_missing_file(tmp_path):
    assert len(load_registry(str(tmp_path / "nope.json"))) == 0
    reg = GraphBreakRegistry(
        {
            "GB9999": [
                {"Gb_type": "A thing", "Explanation": "_explanation", "Hints": ["hint one"]},
                {"Gb_type": "A thing", "Explanation": "Because.", "Hints": []},
            ]
        }
    )
    assert reg.lookup("A thing").explanation == "Because." and reg.lookup("A thing").code == "GB9999"


def test_package_import_does_not_import_torch():
    import subprocess
    import sys

    code = (
        "import sys, torchlint.dynamic, torchlint.dynamic.process, torchlint.dynamic.target_pass, "
        "torchlint.dynamic.results, torchlint.dynamic.targets, torchlint.dynamic.specs, "
        "torchlint.dynamic.answer, torchlint.dynamic.gb_registry, torchlint.dynamic.recompiles, "
        "torchlint.merge, torchlint.gate; print(sys.modules.get('torch') is not None)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
