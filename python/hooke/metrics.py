"""The built-in metrics of :func:`hooke.sweep`, each a number per run.

A run is seen through :class:`Samples`: the simulation at its end, and the positions,
strains and energies taken at evenly spaced steps along the way (the start included).

* ``com_distance``: how far the centre of mass moved across gravity (horizontally) \\[m];
* ``final_kinetic``: the kinetic energy at the end \\[J];
* ``max_strain``: the largest |strain| of any spring at any sample (fraction of its rest
  length);
* ``energy_drift``: E(end) − E(start) of the total energy \\[J];
* ``period``: the period of the node that moves most \\[s], from the upward zero crossings
  of its displacement from its mean position along the direction it moves most (NaN with
  fewer than two crossings);
* ``diverged``: 1.0 when the run diverged, else 0.0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

BUILT_IN = ("com_distance", "final_kinetic", "max_strain", "energy_drift", "period", "diverged")
#: The built-in metrics' units, for labels.
UNITS = {"com_distance": "m", "final_kinetic": "J", "energy_drift": "J", "period": "s"}


def label(name: str) -> str:
    """A metric's name with its unit, e.g. ``period [s]``."""
    return f"{name} [{UNITS[name]}]" if name in UNITS else name


@dataclass
class Samples:
    """What a run kept along the way (one entry per sample)."""

    masses: np.ndarray
    gravity: np.ndarray
    #: Whether to keep every sample's positions (for ``period``), else the first and last.
    every_position: bool = False
    times: list[float] = field(default_factory=list)
    positions: list[np.ndarray] = field(default_factory=list)
    max_strain: list[float] = field(default_factory=list)
    energy: list[float] = field(default_factory=list)

    def take(self, sim: Any) -> None:
        """Samples `sim` now."""
        self.times.append(sim.time)
        if len(self.positions) == 2 and not self.every_position:
            self.positions.pop()
        self.positions.append(sim.positions)
        strains = np.asarray(sim.spring_strains(), dtype=np.float64)
        self.max_strain.append(float(np.abs(strains).max()) if strains.size else 0.0)
        self.energy.append(float(sim.energy()["total"]))


def com_distance(s: Samples) -> float:
    """Horizontal distance of the centre of mass from where it started \\[m]."""
    m = s.masses
    ends = (s.positions[0], s.positions[-1])
    com = [(m[:, None] * x.astype(np.float64)).sum(axis=0) / m.sum() for x in ends]
    moved = com[1] - com[0]
    g = s.gravity
    up = g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0.0, 1.0, 0.0])
    return float(np.linalg.norm(moved - moved.dot(up) * up))


def period(s: Samples) -> float:
    """Mean interval between upward zero crossings of the most-moving node's displacement
    from its mean position, along its principal direction \\[s]."""
    x = np.stack(s.positions).astype(np.float64)  # samples × nodes × 3
    spread = x.var(axis=0).sum(axis=1)
    node = int(np.argmax(spread))
    d = x[:, node, :] - x[:, node, :].mean(axis=0)
    _, _, vt = np.linalg.svd(d, full_matrices=False)
    u = d @ vt[0]
    t = np.asarray(s.times)
    up = np.nonzero((u[:-1] < 0) & (u[1:] >= 0))[0]
    # The crossing between samples k and k+1, by linear interpolation.
    crossings = t[up] + (t[up + 1] - t[up]) * (-u[up]) / (u[up + 1] - u[up])
    if len(crossings) < 2:
        return float("nan")
    return float((crossings[-1] - crossings[0]) / (len(crossings) - 1))


def value(name: str, sim: Any, s: Samples, diverged: bool) -> float:
    """Built-in metric `name` of a finished run (NaN for all but ``diverged`` when the run
    diverged)."""
    if name == "diverged":
        return 1.0 if diverged else 0.0
    if diverged:
        return float("nan")
    if name == "com_distance":
        return com_distance(s)
    if name == "final_kinetic":
        return float(sim.energy()["kinetic"])
    if name == "max_strain":
        return max(s.max_strain)
    if name == "energy_drift":
        return s.energy[-1] - s.energy[0]
    if name == "period":
        return period(s)
    raise KeyError(name)


def resolve(metrics: Any) -> list[tuple[str, str | Callable[[Any], float]]]:
    """The metrics as (column name, built-in name or callable); a single name or callable
    counts as a list of one. Raises ``ValueError`` naming an unknown metric."""
    if isinstance(metrics, str) or callable(metrics):
        metrics = [metrics]
    out: list[tuple[str, str | Callable[[Any], float]]] = []
    for m in metrics:
        if callable(m):
            out.append((getattr(m, "__name__", repr(m)), m))
        elif m in BUILT_IN:
            out.append((m, m))
        else:
            raise ValueError(
                f"metric {m!r}: not a built-in metric ({', '.join(BUILT_IN)}) "
                f"nor a callable f(sim) -> float"
            )
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"metrics: two metrics share a column name ({names})")
    return out
