"""python/examples/design_walker.py: the walker's controllers designed by gradients through
a smooth relaxation of its sensors (a few iterations instead of the example's 25)."""

import importlib.util
import pathlib
import sys

import pytest

torch = pytest.importorskip("torch", reason="the walker's relaxation runs in PyTorch: pip install './python[torch]'")

import hooke  # noqa: E402

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "design_walker.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("design_walker", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["design_walker"] = module
    spec.loader.exec_module(module)
    return module


def test_the_relaxed_walker_walks_as_the_binary_one_at_the_built_in_values(example):
    walker = hooke.scene("walker")
    parts = example.walker_parts(walker)
    policy = example.RelaxedControllers(parts)
    steps = 3000
    binary = example.travel(walker, steps)
    with torch.no_grad():
        relaxed = example.relaxed_travel(example.relaxed_scene(parts), policy, steps).item()
    assert binary > 0.05  # it walks: 9 cm in the first 2 s
    assert relaxed == pytest.approx(binary, rel=1e-2)


def test_gradients_through_the_relaxation_lengthen_the_binary_walkers_stride(example):
    history = example.design(iterations=3, window=3000, steps=10000, log=lambda *a: None)
    built_in = history[0]["binary"]
    assert built_in == pytest.approx(0.4814, rel=1e-3)
    # Every gradient finite; the binary walker twice as far within two steps of Adam.
    assert all(h["gradient_norm"] > 0 and h["gradient_norm"] < float("inf") for h in history)
    assert max(h["binary"] for h in history[1:]) >= 2 * built_in
