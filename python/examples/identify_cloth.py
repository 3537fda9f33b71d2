"""Identifies a cloth's stiffness, damping and four sewn-in weights from its motion alone,
by gradients through hooke and L-BFGS (scipy).

A 32×32 cloth (the built-in ``cloth``, two corners pinned) falls and swings. Its
stiffness k (structural; shear k/4 and bend k/20 as the built-in has them), the damping c
of every spring and the masses of four marked nodes are known only to the recording; the
example sees the recorded positions every few steps, nothing else, and fits all six by
minimising the mean squared distance between the simulated and the recorded positions,

    L(θ) = 1/(F·N) · Σ_frames Σ_nodes |x(θ) − x̂|²,

with the gradient ∂L/∂θ from one tape per evaluation (the per-step loss of
``Tape.backward``; ∂L/∂k gathers every spring's ∂L/∂kₛ·kₛ/k, ∂L/∂c every spring's
∂L/∂cₛ). The parameters are searched as logarithms of their ratio to the starting guess.

    pip install "./python[grad]"              # scipy
    python python/examples/identify_cloth.py --out identify-cloth

Writes OUT/identify.png: the loss and each parameter's relative error per iteration.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time
from dataclasses import dataclass, field

import numpy as np

import hooke

#: The nodes whose masses are identified (row 3, 9, 18, 28 of the 32×32 cloth).
MARKED = (100, 300, 600, 900)
#: The step [s]: the same for every θ, so that the fit compares like with like.
DT = 5e-4


@dataclass
class Cloth:
    """The unknowns: structural stiffness k [N/m], damping c [N·s/m] and the marked
    nodes' masses [kg]."""

    k: float
    c: float
    masses: tuple[float, ...]

    def vector(self) -> np.ndarray:
        return np.array([self.k, self.c, *self.masses])

    @staticmethod
    def of(v: np.ndarray) -> Cloth:
        return Cloth(float(v[0]), float(v[1]), tuple(float(m) for m in v[2:]))


def scene(cloth: Cloth) -> hooke.Scene:
    """The built-in cloth with these values."""
    k = cloth.k
    built = hooke.scene("cloth", k=k, k_shear=k / 4, k_bend=k / 20, c=cloth.c, dt=DT)
    doc = json.loads(built.to_json())
    for i, m in zip(MARKED, cloth.masses):
        doc["nodes"][i]["mass"] = m
    return hooke.Scene.from_json(json.dumps(doc))


def default_mass() -> float:
    """A node's mass in the built-in cloth [kg]."""
    return json.loads(hooke.scene("cloth").to_json())["nodes"][0]["mass"]


def record(cloth: Cloth, steps: int, every: int) -> np.ndarray:
    """The positions every `every` steps: (frames, nodes, 3)."""
    sim = hooke.Simulation(scene(cloth))
    frames = []
    for _ in range(steps // every):
        sim.step(every)
        frames.append(sim.positions.astype(np.float64))
    return np.array(frames)


def loss_and_gradient(cloth: Cloth, seen: np.ndarray, every: int) -> tuple[float, np.ndarray]:
    """L and ∂L/∂(k, c, masses) for the recording `seen`."""
    sim = hooke.Simulation(scene(cloth))
    steps = len(seen) * every
    with sim.tape() as t:
        sim.step(steps)
    scale = 1.0 / (seen.shape[0] * seen.shape[1])
    total = 0.0

    def per_step(step, x, _v):
        nonlocal total
        if step % every:
            return None, None
        d = x.astype(np.float64) - seen[step // every - 1]
        total += scale * float(np.sum(d * d))
        return 2.0 * scale * d, None

    t.backward(per_step=per_step)
    k_each = np.array([s["k"] for s in json.loads(scene(cloth).to_json())["springs"]])
    dk = float(np.sum(t.grad("springs[*].k") * k_each)) / cloth.k  # each family ∝ k
    dc = float(np.sum(t.grad("springs[*].c")))
    dm = t.grad("nodes[*].mass")[list(MARKED)]
    return total, np.array([dk, dc, *dm])


@dataclass
class Fit:
    """The fit's result and its history (one row per evaluation)."""

    found: Cloth
    evaluations: int
    iterations: int
    seconds: float
    losses: list[float] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)


def identify(truth: Cloth, guess: Cloth, steps: int = 800, every: int = 4,
             iterations: int = 100) -> Fit:
    """Records `truth` for `steps` steps, then fits from `guess` by L-BFGS."""
    from scipy.optimize import minimize

    seen = record(truth, steps, every)
    start = guess.vector()
    losses: list[float] = []
    values: list[np.ndarray] = []

    def objective(z: np.ndarray) -> tuple[float, np.ndarray]:
        theta = start * np.exp(z)
        loss, grad = loss_and_gradient(Cloth.of(theta), seen, every)
        losses.append(loss)
        values.append(theta)
        return loss, grad * theta  # ∂L/∂z = θ·∂L/∂θ

    began = time.perf_counter()
    # ftol = 0: run until the line search can no longer decrease the loss.
    res = minimize(objective, np.zeros(len(start)), jac=True, method="L-BFGS-B",
                   options={"maxiter": iterations, "ftol": 0.0, "gtol": 1e-14})
    found = Cloth.of(start * np.exp(res.x))
    return Fit(found, res.nfev, res.nit, time.perf_counter() - began, losses, values)


def plot(fit: Fit, truth: Cloth, path: pathlib.Path) -> None:
    """The loss and each parameter's relative error per evaluation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    top.semilogy(fit.losses, color="black")
    top.set_ylabel("loss [m²]")
    top.set_title("32×32 cloth: k, c and four masses from positions alone (L-BFGS)")
    errors = np.abs(np.array(fit.values) / truth.vector() - 1.0)
    names = ["stiffness k", "damping c"] + [f"mass of node {i}" for i in MARKED]
    for j, name in enumerate(names):
        bottom.semilogy(errors[:, j], label=name)
    bottom.axhline(0.01, color="grey", linestyle="--", linewidth=0.8)
    bottom.set_ylabel("relative error")
    bottom.set_xlabel("evaluation (one run and its tape)")
    bottom.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=800, help="steps recorded (at 0.5 ms)")
    p.add_argument("--every", type=int, default=4, help="steps between recorded frames")
    p.add_argument("--iterations", type=int, default=100, help="most L-BFGS iterations")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("identify-cloth"))
    a = p.parse_args(argv)
    m0 = default_mass()
    truth = Cloth(150.0, 0.08, (4 * m0, 3 * m0, 6 * m0, 2.5 * m0))
    guess = Cloth(100.0, 0.03, (m0, m0, m0, m0))
    fit = identify(truth, guess, a.steps, a.every, a.iterations)
    a.out.mkdir(parents=True, exist_ok=True)
    plot(fit, truth, a.out / "identify.png")
    print(f"{fit.iterations} iterations, {fit.evaluations} runs with their tapes, {fit.seconds:.1f} s")
    for name, t, g, f in zip(["k", "c"] + [f"m{i}" for i in MARKED], truth.vector(),
                             guess.vector(), fit.found.vector()):
        print(f"{name:>5}: true {t:.6g}, started at {g:.6g}, found {f:.6g} ({f / t - 1:+.2e})")
    print(f"wrote {a.out / 'identify.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
