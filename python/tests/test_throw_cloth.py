"""python/examples/throw_cloth.py: a cloth thrown at 1/60 s under backward Euler comes to
rest on a target, the throw found by Newton's method with the Jacobian from the tape
through the ground's contact planes and their friction (a smaller cloth than the
example's)."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "throw_cloth.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("throw_cloth", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["throw_cloth"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_the_thrown_cloth_comes_to_rest_on_the_target(example):
    doc = example.cloth(8)
    assert doc["settings"]["integrator"] == "backward-euler"
    assert doc["settings"]["dt"] == pytest.approx(1 / 60)
    start = example.centre(np.array([n["x"] for n in doc["nodes"]]))
    target = start + np.array([0.25, -0.1])
    result = example.throw(doc, target, np.array([0.5, 0.0, 0.0]), iterations=7)
    print([f"{m * 1000:.3f} mm" for m in result.miss])
    assert result.miss[0] > 0.1, "the first throw misses by more than 10 cm"
    assert result.miss[-1] < 1e-3, "the last comes to rest within 1 mm of the target"
    # It lies on the ground (its nodes 5 mm in radius).
    x = result.rest[-1]
    assert np.all(np.abs(x[:, 1] - 0.005) < 1e-3), "resting on the ground"
