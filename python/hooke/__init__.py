"""hooke: mass-spring simulation (strings, cloth, jelly, balloons, soft creatures).

Scenes come from files (:func:`load`), the built-ins (:func:`scene`, listed by
:func:`scenes`) or JSON text (:meth:`Scene.from_json`); a :class:`Simulation` steps one
with the GIL released (:func:`step_many` steps many at once on every core) and gives positions and velocities as numpy arrays of shape
(nodes, 3) in the build's float type (``hooke.PRECISION``: ``"f32"`` or ``"f64"``).

Errors: :class:`SceneError` (a ``ValueError``) names the file, field path, index and value
exactly as ``hooke check`` does; :class:`DivergedError` (a ``RuntimeError``, also named
:data:`DivergenceError`) carries the divergence report: the cause (a non-finite state, or
the watchdog's energy from nothing, kept and growing), step, node, spring,
the energy audit and its recent readings, the last good step and a stable step to try.
:meth:`Simulation.audit` gives the energy audit: what drove and dissipated the energy, and
the residual no term explains.

Gradients: ``with sim.tape() as t: sim.step(n)`` records a rollout; ``t.backward(dx=…,
dv=…)`` goes back from the loss's gradient at the end (and at every step through
``per_step``), and ``t.grad("springs[*].k")`` reads the gradient with respect to any
differentiable field by its scene path; :func:`gradcheck` checks them against finite
differences. :class:`NotDifferentiableError` names a feature the gradient cannot go through.

:func:`sweep` runs many variants of a scene (a grid or any list of parameter values at
scene paths such as ``springs[*].k``) and returns a pandas DataFrame of their metrics.
"""

from importlib.metadata import version as _version

from ._native import (
    PRECISION,
    DivergedError,
    NotDifferentiableError,
    Scene,
    SceneError,
    Simulation,
    Tape,
    load,
    scene,
    scenes,
    step_many,
)
from .gradients import gradcheck
from .sweeps import sweep

DivergenceError = DivergedError
__version__ = _version("hooke")

__all__ = [
    "PRECISION",
    "DivergedError",
    "DivergenceError",
    "NotDifferentiableError",
    "Scene",
    "SceneError",
    "Simulation",
    "Tape",
    "gradcheck",
    "load",
    "scene",
    "scenes",
    "step_many",
    "sweep",
]

# The Gymnasium environments (hooke/Walker-v0, hooke/Inchworm-v0), registered when
# gymnasium is installed.
if __import__("importlib.util").util.find_spec("gymnasium") is not None:
    from . import envs  # noqa: F401
