"""Checking gradients: :func:`gradcheck` compares a tape's gradients with central finite
differences along random directions, with the semantics of NVIDIA Warp's
``wp.autograd.gradcheck``: for each parameter kind θ and a random direction δ, the tape's
∂L/∂θ·δ against (L(θ + εδ) − L(θ − εδ)) / 2ε, passing when
|tape − differences| ≤ atol + rtol·|differences|.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._native import PRECISION, Scene, Simulation

#: The parameter kinds a tape gives gradients for, as scene paths (checked by default).
PATHS = (
    "springs[*].k",
    "springs[*].c",
    "springs[*].rest",
    "nodes[*].mass",
    "nodes[*].x",
    "nodes[*].v",
)
#: Nissen's stable springs' coefficients: checked when asked for in ``wrt`` (a scene's
#: other springs have none, and keep none).
STABLE_PATHS = ("springs[*].cs", "springs[*].cd")

#: The steps ε tried, as shares of each parameter's size, longest first: rounding in float32 needs longer steps than in float64. The differences
#: take the step where two neighbouring steps agree best (too long a step bends with the
#: loss's curvature, too short a one drowns in rounding).
RELATIVE_STEPS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7) if PRECISION == "f64" else (3e-2, 1e-2, 3e-3, 1e-3, 3e-4)

Loss = Callable[[np.ndarray, np.ndarray], tuple[float, np.ndarray, np.ndarray]]


@dataclass
class Row:
    """One parameter kind's check."""

    path: str
    tape: float  # the tape's ∂L/∂θ·δ
    differences: float  # the central differences' estimate of it
    eps: float  # the step ε along δ
    noise: float  # how much the estimate moved from the neighbouring step
    bound: float  # atol + rtol·|differences|

    @property
    def error(self) -> float:
        """|tape − differences|."""
        return abs(self.tape - self.differences)

    @property
    def passed(self) -> bool:
        """Whether the error is within the bound."""
        return self.error <= self.bound


@dataclass
class GradCheck:
    """What :func:`gradcheck` found: one :class:`Row` per parameter kind; true when every
    row passed."""

    rows: list[Row] = field(default_factory=list)
    #: Parameter kinds not checked, with why (every value 0: no share of it to move by).
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Whether every parameter kind passed."""
        return all(r.passed for r in self.rows)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.table()

    def table(self) -> str:
        """The rows as a text table, then the kinds skipped."""
        head = f"{'parameter':<16} {'tape':>14} {'differences':>14} {'error':>9} {'bound':>9} {'noise':>9}"
        lines = [head]
        for r in self.rows:
            mark = "ok" if r.passed else "FAILED"
            lines.append(
                f"{r.path:<16} {r.tape:>14.6e} {r.differences:>14.6e} {r.error:>9.2e} "
                f"{r.bound:>9.2e} {r.noise:>9.2e}  {mark}"
            )
        lines += [f"{path:<16} not checked: {why}" for path, why in self.skipped.items()]
        return "\n".join(lines)


def gradcheck(
    scene: Scene,
    steps: int,
    wrt: Sequence[str] = PATHS,
    *,
    loss: Loss | None = None,
    eps: float | dict[str, float] | None = None,
    atol: float = 1e-3,
    rtol: float = 1e-2,
    seed: int = 0,
    **simulation: Any,
) -> GradCheck:
    """Checks the gradients of a loss of ``scene``'s state after ``steps`` steps with
    respect to each parameter kind in ``wrt`` (scene paths from :data:`PATHS`) against
    central finite differences along a random direction (Warp's ``gradcheck``).

    ``wrt`` may also name :data:`STABLE_PATHS` (Nissen's stable springs' ``cs``, ``cd``).
    ``loss(x, v)`` returns the loss and its gradients ``(L, dL/dx, dL/dv)`` at the final
    positions and velocities ((nodes, 3) arrays); by default a random linear function of
    them. ``eps`` is the step of the differences as a share of each parameter's size (one
    for all, a dict by path, or None: the step of :data:`RELATIVE_STEPS` where
    neighbouring estimates agree best; each row's ``noise`` says how far they still
    differ). A pass needs
    |tape − differences| ≤ ``atol`` + ``rtol``·|differences| for every kind (Warp's
    defaults; in float64 builds much tighter tolerances hold: the tests ask 1e-5
    relative). In float32 builds rounding limits what differences can resolve: a loss
    that moves little with a parameter (damping, often masses) over a long rollout is
    below their noise; check short rollouts, or build hooke in float64.
    ``simulation`` goes to :class:`Simulation` (``dt``, ``threads``).

    Returns a :class:`GradCheck` (true when every kind passed; ``print`` it for a table).
    """
    doc = json.loads(scene.to_json())
    if "state" in doc:
        raise ValueError("gradcheck: give a scene at its start (this one holds a state from a run)")
    known = PATHS + STABLE_PATHS
    unknown = [p for p in wrt if p not in known]
    if unknown:
        raise ValueError(f"gradcheck: no gradient for {', '.join(unknown)}; choose from {', '.join(known)}")
    rng = np.random.default_rng(seed)
    n = len(doc["nodes"])
    if loss is None:
        a, b = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))

        def loss(x: np.ndarray, v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
            return float(np.sum(a * x) + np.sum(b * v)), a, b

    sim = Simulation(scene, **simulation)
    with sim.tape() as t:
        sim.step(steps)
    _, dx, dv = loss(sim.positions.astype(np.float64), sim.velocities.astype(np.float64))
    t.backward(dx=dx, dv=dv)

    def loss_at(shifted: dict[str, Any]) -> float:
        s = Simulation(Scene.from_json(json.dumps(shifted)), **simulation)
        s.step(steps)
        return loss(s.positions.astype(np.float64), s.velocities.astype(np.float64))[0]

    result = GradCheck()
    for path in wrt:
        values = _values(doc, path)
        direction = rng.uniform(-1.0, 1.0, values.shape) * _sizes(path, values)
        if path == "nodes[*].v":
            direction[[bool(node.get("pinned")) for node in doc["nodes"]]] = 0.0  # held at rest
        if path.startswith("nodes[*]."):
            # An anchored node's state is its path's (and its mass unused): no parameter.
            direction[[a["node"] for a in doc.get("anchors", [])]] = 0.0
        if not np.any(direction):
            result.skipped[path] = "nothing to move: every value is 0 (or every node pinned)"
            continue
        tape = float(np.sum(np.asarray(t.grad(path)) * direction))

        def differences(step: float) -> float:
            plus = loss_at(_shifted(doc, path, values + step * direction))
            minus = loss_at(_shifted(doc, path, values - step * direction))
            return (plus - minus) / (2 * step)

        step, estimate, noise = _best_step(differences, _steps(eps, path))
        result.rows.append(Row(path, tape, estimate, step, noise, atol + rtol * abs(estimate)))
    return result


def _list_and_field(path: str) -> tuple[str, str]:
    """``springs[*].k`` → (``springs``, ``k``)."""
    head, name = path.split("[*].")
    return head, name


def _values(doc: dict[str, Any], path: str) -> np.ndarray:
    """The values at ``path`` in the scene document, as float64 ((n,) or (n, 3)); 0 where
    an item has none (a stable spring's ``cs`` on a Hooke spring)."""
    items, name = _list_and_field(path)
    return np.array([item.get(name, 0.0) for item in doc[items]], dtype=np.float64)


def _shifted(doc: dict[str, Any], path: str, values: np.ndarray) -> dict[str, Any]:
    """A copy of the scene document with ``values`` at ``path``."""
    out = json.loads(json.dumps(doc))
    items, name = _list_and_field(path)
    for item, value in zip(out[items], values.tolist()):
        if name in item or value != 0.0:
            item[name] = value
    return out


def _sizes(path: str, values: np.ndarray) -> np.ndarray:
    """Each parameter's size, for a direction that moves each by a share of its own: |θ|.
    Where θ = 0: a position or a velocity moves by the kind's mean size (1 where all are
    0); a stiffness, damping, rest length or mass, which cannot go below 0, stays."""
    if path in ("nodes[*].x", "nodes[*].v"):
        mean = float(np.mean(np.abs(values)))
        return np.where(values != 0, np.abs(values), mean if mean > 0 else 1.0)
    return np.abs(values)


def _steps(eps: float | dict[str, float] | None, path: str) -> list[float]:
    """The steps ε to try for ``path``: the one given, or :data:`RELATIVE_STEPS`."""
    if isinstance(eps, dict):
        eps = eps.get(path)
    return list(RELATIVE_STEPS) if eps is None else [float(eps)]


def _best_step(differences: Callable[[float], float], steps: list[float]) -> tuple[float, float, float]:
    """(ε, the estimate at ε, how far it is from the neighbouring step's) for the step
    whose estimate agrees best, relative to its size, with its longer neighbour's (the
    only step when one)."""
    estimates = [differences(e) for e in steps]
    if len(steps) == 1:
        return steps[0], estimates[0], 0.0
    gaps = [abs(estimates[i + 1] - estimates[i]) for i in range(len(steps) - 1)]
    scale = max(abs(e) for e in estimates) or 1.0
    relative = [g / max(abs(estimates[i + 1]), 1e-12 * scale) for i, g in enumerate(gaps)]
    i = int(np.argmin(relative)) + 1
    return steps[i], estimates[i], gaps[i - 1]
