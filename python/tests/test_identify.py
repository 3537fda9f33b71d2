"""python/examples/identify_cloth.py: a 32×32 cloth's stiffness, damping and four nodes'
masses, known only to the recording, recovered from positions alone by gradients through
hooke and L-BFGS (a shorter recording than the example's, 300 steps)."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

try:
    import scipy  # noqa: F401 - the example's optimiser
except ImportError:
    raise ImportError("the identification example needs scipy: pip install './python[grad]' (cargo xtask test installs it)") from None

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "identify_cloth.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("identify_cloth", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["identify_cloth"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_stiffness_damping_and_masses_are_recovered_within_one_percent(example):
    m0 = example.default_mass()
    truth = example.Cloth(150.0, 0.08, (4 * m0, 3 * m0, 6 * m0, 2.5 * m0))
    guess = example.Cloth(100.0, 0.03, (m0, m0, m0, m0))
    fit = example.identify(truth, guess, steps=300, every=4, iterations=60)
    errors = fit.found.vector() / truth.vector() - 1.0
    print(fit.iterations, fit.evaluations, errors)
    # The guess was 33% (k), 62% (c) and 50-83% (masses) off.
    assert np.all(np.abs(guess.vector() / truth.vector() - 1.0) > 0.3)
    assert np.all(np.abs(errors) < 0.01), errors
    assert fit.losses[-1] < 1e-6 * fit.losses[0]


def test_the_gradient_is_that_of_the_loss(example):
    # Central differences of L along k and along c (f32 rollouts: a loose bound).
    m0 = example.default_mass()
    truth = example.Cloth(150.0, 0.08, (4 * m0, 3 * m0, 6 * m0, 2.5 * m0))
    seen = example.record(truth, 100, 4)
    at = example.Cloth(120.0, 0.05, (2 * m0, 2 * m0, 2 * m0, 2 * m0))
    _, grad = example.loss_and_gradient(at, seen, 4)
    for j, eps in [(0, 0.5), (1, 2e-3)]:
        up, down = at.vector(), at.vector()
        up[j] += eps
        down[j] -= eps
        fd = (example.loss_and_gradient(example.Cloth.of(up), seen, 4)[0]
              - example.loss_and_gradient(example.Cloth.of(down), seen, 4)[0]) / (2 * eps)
        assert grad[j] == pytest.approx(fd, rel=2e-2), (j, grad[j], fd)


def test_the_example_writes_its_plot(example, tmp_path):
    assert example.main(["--steps", "40", "--every", "4", "--iterations", "2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "identify.png").read_bytes()[:4] == b"\x89PNG"
