"""python/examples/curtain_shape.py: a stiff curtain's rest lengths designed through
backward Euler at 1/30 s so that it hangs in a wanted shape (a smaller curtain and fewer
iterations than the example's)."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

try:
    import scipy  # noqa: F401 - the example's optimiser
except ImportError:
    raise ImportError("the curtain example needs scipy: pip install './python[grad]' (cargo xtask test installs it)") from None

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "curtain_shape.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("curtain_shape", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["curtain_shape"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_the_designed_curtain_hangs_in_the_wanted_shape(example):
    steps = 45
    doc = example.curtain(12, steps)
    assert doc["settings"]["integrator"] == "backward-euler"
    assert doc["settings"]["dt"] == pytest.approx(1 / 30)
    target = example.hang(example.with_rest(doc, example.swag(doc)), steps)
    first = example.hang(example.with_rest(doc, example.woven(doc)), steps)
    d = example.design(doc, target, steps, iterations=25)
    final = example.hang(example.with_rest(doc, d.rest), steps)

    def rms(x):
        return float(np.sqrt(np.mean(np.sum((x - target) ** 2, axis=1))))

    print(len(d.losses), rms(first), rms(final), d.worst_residual)
    assert rms(first) > 0.03  # the wanted shape is 3 cm and more away as woven
    assert rms(final) < rms(first) / 20
    assert d.losses[-1] < 1e-3 * d.losses[0]
    # Every step's adjoint solve converged (GMRES's tolerance).
    assert d.worst_residual <= 1e-12
