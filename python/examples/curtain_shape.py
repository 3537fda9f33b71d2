"""Designs a curtain's rest lengths so that it hangs in a wanted shape, by gradients
through backward Euler at frame-sized steps.

A stiff curtain (the built-in ``cloth`` in the vertical plane, pinned along its top,
backward Euler at dt = 1/30 s) hangs under gravity. The wanted shape is a swag: the
curtain drawn up in the middle of its lower edge, as it hangs when its middle columns'
vertical springs are shorter — rest lengths the design does not know. Starting from the
curtain as woven (every rest length its initial distance), the example finds rest
lengths L = L₀·e^θ (one θ per spring) minimising the mean squared distance between the
curtain after T steps and the wanted shape,

    L(θ) = 1/N · Σ_nodes |x_T(θ) − x̂|²,

by L-BFGS (scipy), with ∂L/∂θ = ∂L/∂L·L from one tape per evaluation: backward Euler is
differentiated by the adjoint method, one linear solve with the step's own matrix a
step (docs/gradients.md), and ``t.adjoint_residuals`` says each solve converged.

    pip install "./python[grad]"              # scipy
    python python/examples/curtain_shape.py --out runs/curtain

Writes OUT/curtain.png: the loss per evaluation, and the curtain as woven, as designed and
the wanted shape.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time
from dataclasses import dataclass

import numpy as np

import hooke

DT = 1.0 / 30.0


def curtain(n: int, steps: int) -> dict:
    """The curtain as a scene document: n×n nodes, pinned along the top."""
    built = hooke.scene("cloth", width=n, height=n, integrator="backward-euler", dt=DT,
                        plane="vertical", pin="top", k=2000.0)
    doc = json.loads(built.to_json())
    doc["settings"]["duration"] = steps * DT
    return doc


def with_rest(doc: dict, rest: np.ndarray) -> hooke.Scene:
    """The curtain with these rest lengths [m]."""
    out = json.loads(json.dumps(doc))
    for spring, length in zip(out["springs"], rest.tolist()):
        spring["rest"] = length
    return hooke.Scene.from_json(json.dumps(out))


def woven(doc: dict) -> np.ndarray:
    """Each spring's initial distance [m]: the curtain as woven."""
    x = np.array([node["x"] for node in doc["nodes"]])
    a = np.array([s["a"] for s in doc["springs"]])
    b = np.array([s["b"] for s in doc["springs"]])
    return np.linalg.norm(x[a] - x[b], axis=1)


def swag(doc: dict, depth: float = 0.2) -> np.ndarray:
    """Rest lengths that draw the lower edge up in the middle: each spring's woven length,
    its vertical part shortened by up to `depth` (a share) towards the middle columns."""
    x = np.array([node["x"] for node in doc["nodes"]])
    a = np.array([s["a"] for s in doc["springs"]])
    b = np.array([s["b"] for s in doc["springs"]])
    d = x[a] - x[b]
    span = np.ptp(x[:, 0]) / 2
    middle = (x[a, 0] + x[b, 0]) / 2 - x[:, 0].mean()
    shrink = depth * np.exp(-((middle / (0.5 * span)) ** 2))
    d[:, 1] *= 1.0 - shrink
    return np.linalg.norm(d, axis=1)


def hang(scene: hooke.Scene, steps: int) -> np.ndarray:
    """The curtain's positions after `steps` steps: (nodes, 3)."""
    sim = hooke.Simulation(scene)
    sim.step(steps)
    return sim.positions.astype(np.float64)


@dataclass
class Design:
    """What :func:`design` found."""

    rest: np.ndarray  # the rest lengths [m]
    losses: list  # per evaluation [m²]
    worst_residual: float  # the largest adjoint residual of any step of any evaluation
    seconds: float


def design(doc: dict, target: np.ndarray, steps: int, iterations: int) -> Design:
    """Rest lengths from the woven ones by L-BFGS on L(θ) (module docs)."""
    from scipy.optimize import minimize

    base = woven(doc)
    losses: list = []
    worst = [0.0]

    def loss_and_gradient(theta: np.ndarray) -> tuple[float, np.ndarray]:
        rest = base * np.exp(theta)
        sim = hooke.Simulation(with_rest(doc, rest))
        with sim.tape() as t:
            sim.step(steps)
        x = sim.positions.astype(np.float64)
        n = len(x)
        gap = x - target
        loss = float(np.sum(gap * gap) / n)
        t.backward(dx=2.0 * gap / n)
        worst[0] = max(worst[0], float(np.max(t.adjoint_residuals)))
        losses.append(loss)
        return loss, np.asarray(t.grad("springs[*].rest")) * rest

    start = time.perf_counter()
    # Tolerances far below the loss's scale: stop after `iterations`, not at scipy's
    # defaults (made for losses of order 1).
    found = minimize(loss_and_gradient, np.zeros(len(base)), jac=True, method="L-BFGS-B",
                     options={"maxiter": iterations, "gtol": 1e-14, "ftol": 1e-15})
    return Design(base * np.exp(found.x), losses, worst[0], time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=24, help="nodes a side (24)")
    ap.add_argument("--steps", type=int, default=60, help="steps of 1/30 s (60: 2 s)")
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/curtain"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    doc = curtain(args.nodes, args.steps)
    target = hang(with_rest(doc, swag(doc)), args.steps)
    first = hang(with_rest(doc, woven(doc)), args.steps)
    d = design(doc, target, args.steps, args.iterations)
    final = hang(with_rest(doc, d.rest), args.steps)
    rms = lambda x: float(np.sqrt(np.mean(np.sum((x - target) ** 2, axis=1))))  # noqa: E731
    print(f"{len(d.losses)} evaluations in {d.seconds:.1f} s; distance from the wanted shape "
          f"(RMS over nodes) {rms(first) * 1e3:.1f} mm as woven, {rms(final) * 1e3:.2f} mm as "
          f"designed; worst adjoint residual {d.worst_residual:.1e}")
    try:
        plot(d, (first, final, target), args.out / "curtain.png")
    except ImportError:
        print("(no matplotlib: no plot)")


def plot(d: Design, shapes: tuple, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first, final, target = shapes
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.semilogy(d.losses)
    a.set_xlabel("evaluation (one run and its tape)")
    a.set_ylabel("mean squared distance [m²]")
    a.set_title("L-BFGS through backward Euler at 1/30 s")
    n = round(len(target) ** 0.5)
    for x, style, label in [(first, dict(color="0.7", lw=0.6), "as woven"),
                            (target, dict(color="tab:orange", lw=2.5, alpha=0.6), "wanted"),
                            (final, dict(color="tab:blue", lw=0.8), "designed")]:
        grid = x.reshape(n, n, 3)
        for k in range(n):
            b.plot(grid[k, :, 0], grid[k, :, 1], **style)
            b.plot(grid[:, k, 0], grid[:, k, 1], **style)
        b.plot([], [], label=label, **style)
    b.set_title("the curtain hanging, front")
    b.set_xlabel("x [m]")
    b.set_aspect("equal")
    b.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
