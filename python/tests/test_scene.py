"""Scenes: the built-ins with their parameters, files, JSON text."""

import pytest

import hooke


def test_every_built_in_is_listed_with_its_parameters():
    listed = {b["name"]: b for b in hooke.scenes()}
    assert {"string", "cloth", "jelly", "oscillator", "walker", "inchworm", "balloon"} <= set(listed)
    for name, b in listed.items():
        assert b["description"]
        names = [p["name"] for p in b["params"]]
        assert "dt" in names and "integrator" in names, name
        s = hooke.scene(name)
        assert s.nodes > 0 and s.springs > 0 and s.name == name


def test_parameters_are_keywords():
    s = hooke.scene("cloth", width=8, height=6, k=250.0, integrator="verlet")
    assert (s.nodes, s.integrator) == (48, "verlet")


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"width": -3}, "cloth.width", "below the minimum 2"),
        ({"widht": 3}, "cloth.widht", "unknown parameter; cloth takes width, height"),
        ({"integrator": "rk5"}, "cloth.integrator", '"rk5" is not one of explicit-euler'),
        ({"pin": True}, "cloth.pin", "true"),
    ],
)
def test_bad_parameters_raise_scene_error(params, field, words):
    with pytest.raises(hooke.SceneError) as e:
        hooke.scene("cloth", **params)
    assert words in str(e.value) and e.value.field == field
    assert isinstance(e.value, ValueError)


def test_a_parameter_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="width: give a number or a name"):
        hooke.scene("cloth", width=[8])


def test_unknown_built_in_names_the_built_ins():
    with pytest.raises(hooke.SceneError, match="built-ins: cloth"):
        hooke.scene("clothe")


def test_json_round_trip_and_files(tmp_path):
    s = hooke.scene("jelly", nx=3, ny=3, nz=3)
    text = s.to_json()
    assert hooke.Scene.from_json(text).to_json() == text
    path = tmp_path / "jelly.json"
    s.save(path)
    t = hooke.load(path)
    assert (t.nodes, t.springs, t.to_json()) == (s.nodes, s.springs, text)


def test_a_missing_file_is_a_scene_error_naming_it(tmp_path):
    with pytest.raises(hooke.SceneError) as e:
        hooke.load(tmp_path / "nope.json")
    assert "nope.json" in str(e.value) and e.value.file.endswith("nope.json")


def test_bad_scene_files_give_the_cli_messages(bad_scenes, cli, tmp_path, monkeypatch):
    """The table of the CLI's own malformed-scene test: `hooke.load` raises SceneError with
    exactly the line `hooke check` prints after "error: "."""
    monkeypatch.chdir(tmp_path)
    assert len(bad_scenes) >= 20
    for i, case in enumerate(bad_scenes):
        name = f"bad{i}.json"
        (tmp_path / name).write_text(case["body"])
        out = cli(["check", name], tmp_path)
        assert out.returncode == 2, (case["what"], out.stderr)
        cli_message = out.stderr.strip().removeprefix("error: ")
        with pytest.raises(hooke.SceneError) as e:
            hooke.load(name)
        assert str(e.value) == cli_message, case["what"]
        assert case["expect"] in str(e.value)
        assert e.value.file == name
