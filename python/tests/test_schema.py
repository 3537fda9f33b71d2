"""`hooke schema` and `hooke check` agree (issue 18): every case of the bad-input catalogue
and every valid scene is judged alike by the JSON Schema — through an independent
validator, the `jsonschema` package (draft 2020-12) — and by the command line, but for the
cross-field rules a schema cannot state, which docs/scene-format.md lists as check-only."""

import json
import pathlib

import jsonschema
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The catalogue's cases that only `hooke check` can reject: an index that names no node
# (or no vertex of a mesh collider), a spring joining a node to itself, box axes that are
# not orthonormal, a pinned node moving without an anchor path to move it.
CHECK_ONLY = {
    "spring to missing node",
    "mesh face past the vertices",
    "spring to itself",
    "anchor to missing node",
    "box axes not orthonormal",
    "pinned node moving",
}


def strict_json(text):
    """JSON as the format reads it: NaN and Infinity are not JSON numbers."""

    def refuse(name):
        raise ValueError(f"{name} is not a JSON number")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def validator(cli, tmp_path_factory):
    out = cli(["schema"], tmp_path_factory.mktemp("schema"))
    assert out.returncode == 0, out.stderr
    schema = json.loads(out.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check_accepts(cli, tmp_path, text):
    path = tmp_path / "scene.json"
    path.write_text(text)
    return cli(["check", path], tmp_path).returncode == 0


def test_schema_and_check_agree_on_every_bad_input(validator, cli, bad_scenes, tmp_path):
    judged = 0
    for case in bad_scenes:
        try:
            value = strict_json(case["body"])
        except ValueError:
            assert not check_accepts(cli, tmp_path, case["body"]), case["what"]
            continue  # not JSON: no schema judges it
        schema_ok = validator.is_valid(value)
        check_ok = check_accepts(cli, tmp_path, case["body"])
        assert not check_ok, f"{case['what']}: hooke check accepts a bad input"
        if case["what"] in CHECK_ONLY:
            assert schema_ok, f"{case['what']} is listed as check-only, yet the schema rejects it"
        else:
            errors = [e.message for e in validator.iter_errors(value)]
            assert not schema_ok, f"{case['what']}: the schema accepts what hooke check rejects"
            assert errors
        judged += 1
    assert judged >= 30


def valid_scenes(cli, tmp_path):
    """Every built-in scene, the scene files in scenes/, and checkpoints with the state's
    every field (the walker's controllers, the inchworm's muscles, a torn cloth)."""
    out = cli(["scene", "--list"], tmp_path)
    names = [line.split(" — ")[0] for line in out.stdout.splitlines() if " — " in line]
    assert len(names) >= 10
    scenes = {n: cli(["scene", n], tmp_path).stdout for n in names}
    for path in (ROOT / "scenes").glob("*.json"):
        scenes[path.name] = path.read_text()
    for name in ["walker", "inchworm", "tear"]:
        run = cli(["run", name, "--steps", "300", "-q", "-o", f"run-{name}"], tmp_path)
        assert run.returncode == 0, run.stderr
        scenes[f"{name} final.json"] = (tmp_path / f"run-{name}" / "final.json").read_text()
    return scenes


def test_every_valid_scene_passes_both(validator, cli, tmp_path):
    for name, text in valid_scenes(cli, tmp_path).items():
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(strict_json(text))]
        assert not errors, f"{name}: {errors[:3]}"
        assert check_accepts(cli, tmp_path, text), name


def test_the_schema_key_is_accepted_by_both(validator, cli, tmp_path):
    scene = strict_json(cli(["scene", "oscillator"], tmp_path).stdout)
    scene["$schema"] = "./hooke-scene.schema.json"
    assert validator.is_valid(scene)
    assert check_accepts(cli, tmp_path, json.dumps(scene))
