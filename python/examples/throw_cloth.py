"""Throws a cloth so that it comes to rest on a target, by gradients through backward Euler
at frame-sized steps and its contact with the ground.

A cloth (the built-in ``cloth``, unpinned, lying flat 5 cm above the ground) is thrown
level: every node is given one velocity v = (vx, 0, vz). It falls under backward Euler at
dt = 1/60 s, lands on the ground (roughness 0.4), slides and is held by friction. The
example finds the throw whose cloth comes to rest with its centre on a target on the
ground, c(v) = ĉ (c the mean of the nodes' final positions along x and z), by Newton's
method on (vx, vz): the Jacobian ∂c/∂v comes from one tape per iteration, gone back
through twice (∂cₓ/∂v, ∂c_z/∂v: each Σ_nodes ∂/∂v₀ of the tape's gradient). The
tape goes back through the contact planes that each step solved with the springs, with
their friction (docs/gradients.md, "Contacts under backward Euler").

    python python/examples/throw_cloth.py --out runs/throw

Writes OUT/throw.png: the miss per iteration, and where the cloth came to rest for the
first throw, the last, and the target.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time
from dataclasses import dataclass, field

import numpy as np

import hooke

DT = 1.0 / 60.0
#: Steps of a throw: 1.5 s, enough for the cloth to land, slide and stop.
STEPS = 90


def cloth(n: int) -> dict:
    """The thrown cloth as a scene document: n×n nodes 0.3 m across, unpinned, flat 5 cm
    above the ground, each node 5 mm in radius; backward Euler at 1/60 s."""
    built = hooke.scene("cloth", width=n, height=n, size=0.3, k=300.0, pin="none",
                        integrator="backward-euler", dt=DT)
    doc = json.loads(built.to_json())
    low = min(node["x"][1] for node in doc["nodes"])
    for node in doc["nodes"]:
        node["x"][1] += 0.055 - low
        node["radius"] = 0.005
    doc["ground"] = {"normal": [0.0, 1.0, 0.0], "offset": 0.0, "roughness": 0.4}
    doc["settings"]["duration"] = STEPS * DT
    return doc


def thrown(doc: dict, v: np.ndarray) -> hooke.Scene:
    """The cloth with every node thrown at `v` [m/s]."""
    doc = json.loads(json.dumps(doc))
    for node in doc["nodes"]:
        node["v"] = [float(c) for c in v]
    return hooke.Scene.from_json(json.dumps(doc))


def centre(x: np.ndarray) -> np.ndarray:
    """The mean of the positions along x and z [m]."""
    return x[:, [0, 2]].mean(axis=0)


def landing(doc: dict, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the cloth thrown at `v` comes to rest, c(v) (x and z), its Jacobian
    ∂c/∂(vx, vz) (2×2) from one recorded throw gone back through twice, and the final
    positions."""
    sim = hooke.Simulation(thrown(doc, v))
    with sim.tape() as t:
        sim.step(STEPS)
    x = sim.positions
    n = len(x)
    jacobian = np.zeros((2, 2))
    for row, axis in enumerate((0, 2)):
        dx = np.zeros((n, 3))
        dx[:, axis] = 1.0 / n
        t.backward(dx=dx)
        assert max(t.adjoint_residuals) <= 1e-9, "every step's adjoint solved"
        jacobian[row] = t.grad("nodes[*].v").sum(axis=0)[[0, 2]]
    return centre(x), jacobian, x


@dataclass
class Throw:
    """The search: the throw per iteration, its miss, and where the cloth ended."""

    v: list[np.ndarray] = field(default_factory=list)
    miss: list[float] = field(default_factory=list)
    rest: list[np.ndarray] = field(default_factory=list)
    seconds: float = 0.0


def throw(doc: dict, target: np.ndarray, v0: np.ndarray, iterations: int, largest: float = 0.5) -> Throw:
    """Newton's method on c(v) = ĉ from the throw `v0`: each iteration solves
    J·Δv = ĉ − c(v) with the Jacobian J = ∂c/∂v from the tape, a step at most `largest`
    [m/s] long."""
    result, v = Throw(), v0.astype(float).copy()
    started = time.perf_counter()
    for i in range(1, iterations + 1):
        c, jacobian, x = landing(doc, v)
        miss = float(np.linalg.norm(c - target))
        result.v.append(v.copy())
        result.miss.append(miss)
        result.rest.append(x)
        print(f"{i:3d}: v = ({v[0]:+.4f}, {v[2]:+.4f}) m/s along x, z; {miss * 1000:8.3f} mm from the target")
        step = np.linalg.solve(jacobian, target - c)
        step *= min(1.0, largest / max(np.linalg.norm(step), 1e-300))
        v[[0, 2]] += step
    result.seconds = time.perf_counter() - started
    return result


def plot(result: Throw, target: np.ndarray, path: pathlib.Path) -> None:
    """The miss per iteration, and the cloth at rest after the first and the last throw."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2))
    a.semilogy(range(1, len(result.miss) + 1), np.array(result.miss) * 1000, "o-")
    a.set_xlabel("Newton iteration")
    a.set_ylabel("distance from the target [mm]")
    a.set_title("throwing a cloth onto a target (backward Euler, 1/60 s)")
    for x, label, style in [(result.rest[0], "first throw", "C1."), (result.rest[-1], "last throw", "C0.")]:
        b.plot(x[:, 0], x[:, 2], style, label=label, markersize=3)
    b.plot(*target, "k+", markersize=14, label="target")
    b.set_aspect("equal")
    b.set_xlabel("x [m]")
    b.set_ylabel("z [m]")
    b.set_title("where the cloth came to rest, seen from above")
    b.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/throw"))
    parser.add_argument("--nodes", type=int, default=12, help="nodes along each side")
    parser.add_argument("--iterations", type=int, default=8)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    doc = cloth(args.nodes)
    start = centre(np.array([n["x"] for n in doc["nodes"]]))
    target = start + np.array([0.3, -0.15])
    result = throw(doc, target, np.array([0.5, 0.0, 0.0]), args.iterations)
    print(f"{args.iterations} iterations in {result.seconds:.1f} s; the cloth rests "
          f"{result.miss[-1] * 1000:.3f} mm from the target ({result.miss[0] * 1000:.0f} mm at first)")
    plot(result, target, args.out / "throw.png")


if __name__ == "__main__":
    main()
