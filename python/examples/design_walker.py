"""Designs the built-in walker's controllers by gradients through a smooth relaxation of
its sensors, beside CMA-ES (evolve_walker.py) on the rollouts each needs.

The walker (seed 004) strides by a loop of a binary length sensor and four controllers
that switch their springs' rest lengths after a delay. Its distance is piecewise constant
in the controllers' weights and delays (they move it only where a switch moves), so a
gradient needs a relaxation. Here each controller becomes an actuation-channel muscle
driven by a differentiable copy of the loop, a ``torch.nn.Module`` with a memory run
inside ``hooke.torch.rollout``:

* the sensor: s = σ((ℓ − 0.135 m)/τ_s), ℓ the sensed spring's length (binary: ℓ ≥ 0.135);
* the controller's call: c = σ((w·s − 1)/τ_c) (binary: w·s > 1);
* the delay: a pure delay line of the calls read at the fractional delay d (linear
  between its two neighbouring steps), which is what the binary debounce does to a clean
  call; the muscle's rest length L·(1 + u) with u = a·(L_alt/L − 1), a the delayed call.

At the built-in values the relaxed walker travels what the binary one does (0.481 m in
10 s, to 0.01%). The genome is evolve_walker.py's: per controller log(delay/300 steps),
weight − 2 and the alternate rest length's change (tanh, within ±30%); its delays are
clamped to [20, 999] steps (the delay line's length) where CMA-ES's reach 3 000. Each
iteration goes back through a window of the relaxed rollout (Adam on the normalised
gradient, as DiffTaichi normalises its own) and scores the result on the binary walker
over the full duration.

    pip install "./python[torch,evolve]"
    python python/examples/design_walker.py --iterations 25 --out design-walker

Writes OUT/distance.png (the best distance against rollouts for both methods) and
OUT/history.json.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time

import numpy as np
import torch

import hooke
from hooke.sweeps import build
from hooke.torch import rollout

#: The delay line's length [steps]: delays are clamped below it.
MAX_DELAY = 999
#: The sensor's switching length [m] (the built-in walker's sensor minimum).
SENSOR_MIN = 0.135


def walker_parts(walker: hooke.Scene) -> dict:
    """The built-in walker's controlled springs, their rest lengths and alternate ones."""
    doc = json.loads(walker.to_json())
    sensor = doc["sensors"][0]
    springs = [c["spring"] for c in doc["controllers"]]
    return {
        "doc": doc,
        "sensed": (doc["springs"][sensor["spring"]]["a"], doc["springs"][sensor["spring"]]["b"]),
        "springs": springs,
        "rest": [doc["springs"][s]["rest"] for s in springs],
        "alternate": [c["rest"] for c in doc["controllers"]],
    }


def relaxed_scene(parts: dict) -> hooke.Scene:
    """The walker with its sensors and controllers replaced by one channel muscle (amplitude
    1) on each controlled spring."""
    doc = json.loads(json.dumps(parts["doc"]))
    doc.pop("sensors")
    doc.pop("controllers")
    doc["muscles"] = [{"spring": s, "amplitude": 1.0, "channel": c} for c, s in enumerate(parts["springs"])]
    return hooke.Scene.from_json(json.dumps(doc))


class RelaxedControllers(torch.nn.Module):
    """The walker's sensor-controller loop, relaxed (see the module docs): τ_s [m] and τ_c
    set how sharp the sensor and the call are."""

    def __init__(self, parts: dict, tau_s: float = 1e-3, tau_c: float = 0.05):
        super().__init__()
        n = len(parts["springs"])
        self.genome = torch.nn.Parameter(torch.zeros(n, 3, dtype=torch.float64))
        self.tau_s, self.tau_c = tau_s, tau_c
        self.sensed = parts["sensed"]
        self.rest = torch.tensor(parts["rest"], dtype=torch.float64)
        self.alternate = torch.tensor(parts["alternate"], dtype=torch.float64)

    def values(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Each controller's delay [steps], weight on the sensor and alternate rest length [m]."""
        g = self.genome
        delay = torch.clamp(300.0 * torch.exp(g[:, 0]), 20.0, MAX_DELAY - 1.0)
        return delay, 2.0 + g[:, 1], self.alternate * (1.0 + 0.3 * torch.tanh(g[:, 2]))

    def initial_state(self) -> torch.Tensor:
        """The delay line: every controller's calls, the latest first (none before the start)."""
        return torch.zeros(len(self.rest), MAX_DELAY + 1, dtype=torch.float64)

    def forward(self, x: torch.Tensor, v: torch.Tensor, line: torch.Tensor):
        delay, weight, alternate = self.values()
        a, b = self.sensed
        sensor = torch.sigmoid((torch.linalg.norm(x[b] - x[a]) - SENSOR_MIN) / self.tau_s)
        call = torch.sigmoid((weight * sensor - 1.0) / self.tau_c)
        line = torch.cat([call[:, None], line[:, :-1]], dim=1)
        whole = torch.floor(delay).detach().long()
        frac = delay - whole
        rows = torch.arange(len(delay))
        active = (1.0 - frac) * line[rows, whole] + frac * line[rows, whole + 1]
        return active * (alternate / self.rest - 1.0), line


def binary_values(policy: RelaxedControllers) -> dict[str, object]:
    """The binary walker's scene paths and values for the relaxed controllers' genome."""
    delay, weight, alternate = (t.detach().numpy() for t in policy.values())
    values: dict[str, object] = {}
    for c in range(len(delay)):
        values[f"controllers[{c}].delay"] = int(round(float(delay[c])))
        values[f"controllers[{c}].weights.stretched"] = float(weight[c])
        values[f"controllers[{c}].rest"] = float(alternate[c])
    return values


def travel(scene: hooke.Scene, steps: int) -> float:
    """How far the centre of the nodes moves along x in ``steps`` steps [m]."""
    sim = hooke.Simulation(scene)
    start = float(sim.positions[:, 0].mean())
    sim.step(steps)
    return float(sim.positions[:, 0].mean()) - start


def relaxed_travel(scene: hooke.Scene, policy: RelaxedControllers, steps: int) -> torch.Tensor:
    """The relaxed walker's travel in ``steps`` steps [m], differentiable in the genome."""
    xs, _ = rollout(scene, steps, policy=policy)
    centre = xs[:, :, 0].mean(dim=1)
    return centre[-1] - centre[0]


def design(iterations: int, window: int, steps: int, lr: float = 0.03, sharpness: tuple[float, float] = (1e-3, 0.05),
           log=print) -> list[dict]:
    """Gradient ascent (Adam on the normalised gradient) of the relaxed walker's travel over
    ``window`` steps, each iterate scored on the binary walker over ``steps``; an iterate
    that scores worse than the best so far is undone (the genome back to the best, the
    step halved, Adam restarted): where the gradient of a hopping gait explodes, its
    direction is noise. Returns one record per iteration: the binary walker's travel, the
    relaxed one's, the gradient's norm and the genome. ``sharpness`` is (τ_s [m], τ_c)."""
    walker = hooke.scene("walker")
    parts = walker_parts(walker)
    scene = relaxed_scene(parts)
    policy = RelaxedControllers(parts, *sharpness)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    history: list[dict] = []
    best = (-math.inf, policy.genome.detach().clone())
    for it in range(iterations):
        started = time.perf_counter()
        distance = travel(build(walker.to_json(), binary_values(policy)), steps)
        if distance < best[0]:
            lr /= 2
            with torch.no_grad():
                policy.genome.copy_(best[1])
            opt = torch.optim.Adam(policy.parameters(), lr=lr)
        else:
            best = (distance, policy.genome.detach().clone())
        opt.zero_grad()
        relaxed = relaxed_travel(scene, policy, window)
        (-relaxed).backward()
        norm = float(policy.genome.grad.norm())
        if math.isfinite(norm) and norm > 0:
            policy.genome.grad /= norm
            opt.step()
        history.append({"binary": distance, "relaxed": relaxed.item(), "gradient_norm": norm, "lr": lr,
                        "genome": policy.genome.detach().numpy().tolist()})
        log(f"iteration {it}: binary walker {distance:.3f} m (best {best[0]:.3f} m), relaxed "
            f"{relaxed.item():.3f} m in {window} steps, |gradient| {norm:.3g}, step {lr:.3g} "
            f"({time.perf_counter() - started:.1f} s)")
    return history


def cma_history(generations: int, popsize: int, duration: float, log=print) -> list[tuple[float, float]]:
    """evolve_walker.py's CMA-ES (beside this file): (best, mean) distance per generation."""
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import evolve_walker

    _, _, _, history = evolve_walker.evolve(generations, popsize, 1, duration, log=log)
    return history


def plot(grad: list[dict], cma: list[tuple[float, float]], popsize: int, baseline: float,
         path: pathlib.Path) -> None:
    """Left: the best binary distance so far against rollouts, both methods; right: the
    gradient's norm at each iteration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, norms) = plt.subplots(1, 2, figsize=(9.6, 3.8), gridspec_kw={"width_ratios": [3, 2]})
    its = np.arange(1, len(grad) + 1)
    ax.plot(its, np.maximum.accumulate([h["binary"] for h in grad]), "o-", ms=3,
            label="gradients through the relaxation\n(an iteration: a relaxed window, its\nbackward pass, a scoring rollout)")
    if cma:
        best_cma = np.maximum.accumulate([b for b, _ in cma])
        ax.plot(popsize * np.arange(1, len(cma) + 1), best_cma, "s-", ms=3,
                label=f"CMA-ES ({popsize} rollouts a generation)")
    ax.axhline(baseline, color="grey", lw=1, label="built-in walker")
    ax.set_xscale("log")
    ax.set_xlabel("rollouts (CMA-ES) or iterations (gradients)")
    ax.set_ylabel("best distance in 10 s so far [m]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    norms.semilogy(its, [h["gradient_norm"] for h in grad], "o-", ms=3, color="C0")
    norms.set_xlabel("iteration")
    norms.set_ylabel("|∂(relaxed travel)/∂genome|")
    norms.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=25)
    ap.add_argument("--window", type=int, default=3000, help="steps the gradient goes back through")
    ap.add_argument("--lr", type=float, default=0.03, help="Adam's first step size")
    ap.add_argument("--tau-sensor", type=float, default=1e-3, help="the sensor's sharpness τ_s [m]")
    ap.add_argument("--tau-call", type=float, default=0.05, help="the call's sharpness τ_c")
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds each design is scored on [s]")
    ap.add_argument("--generations", type=int, default=30, help="CMA-ES generations to compare with (0: none)")
    ap.add_argument("--popsize", type=int, default=12)
    ap.add_argument("--out", default="design-walker")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    steps = round(args.duration / hooke.scene("walker").dt)
    grad = design(args.iterations, args.window, steps, args.lr, (args.tau_sensor, args.tau_call))
    cma = cma_history(args.generations, args.popsize, args.duration, log=lambda *a: None) if args.generations else []
    baseline = grad[0]["binary"]
    (out / "history.json").write_text(json.dumps({"gradients": grad, "cma": cma}, indent=1))
    plot(grad, cma, args.popsize, baseline, out / "distance.png")
    best = max(h["binary"] for h in grad)
    print(f"gradients: best {best:.3f} m in {args.duration:g} s after {len(grad)} iterations")
    if cma:
        reached = next((args.popsize * (g + 1) for g, (b, _) in enumerate(cma) if b >= best), None)
        print(f"CMA-ES: {max(b for b, _ in cma):.3f} m after {args.popsize * len(cma)} rollouts; "
              f"it first reached {best:.3f} m after {reached} rollouts")
    print(f"wrote {out / 'distance.png'}, {out / 'history.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
