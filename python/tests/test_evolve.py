"""python/examples/evolve_walker.py: CMA-ES through hooke.sweep evolves a walker that
covers at least twice the built-in walker's distance, on a small budget with a fixed
seed; the example writes its scene, plot and GIF."""

import importlib.util
import json
import pathlib

import pytest

import hooke

try:
    import cma  # noqa: F401 - the example's optimiser
except ImportError:
    raise ImportError("the evolution example needs cma: pip install './python[test]' (cargo xtask test installs it)") from None

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "evolve_walker.py"


def example():
    spec = importlib.util.spec_from_file_location("evolve_walker", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_small_evolution_doubles_the_walkers_distance():
    baseline, best, values, history = example().evolve(generations=4, popsize=8, seed=1, duration=5.0,
                                                       log=lambda *_: None)
    assert baseline > 0.1, "the built-in walker walks"
    assert best >= 2 * baseline, (baseline, best, values)
    assert len(history) == 4 and all(b >= m for b, m in history)
    # The best genome, run on its own, goes as far.
    scene = hooke.sweeps.build(hooke.scene("walker").to_json(), values)
    again = hooke.sweep(scene, [{}], ["com_distance"], duration=5.0)["com_distance"].iloc[0]
    assert again == pytest.approx(best, rel=1e-9)


def test_the_example_writes_a_scene_a_plot_and_a_gif(tmp_path):
    assert example().main(["--generations", "2", "--popsize", "6", "--duration", "2", "--out", str(tmp_path)]) == 0
    scene = hooke.load(tmp_path / "best.json")
    assert scene.nodes == 4 and json.loads(scene.to_json())["controllers"]
    assert (tmp_path / "fitness.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "best.gif").read_bytes()[:6] == b"GIF89a"
