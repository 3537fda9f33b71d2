"""Evolves the built-in walker's gait with CMA-ES, each generation run through hooke.sweep.

The walker (seed 004) strides by a sensor-controller loop: a length sensor on one of its
muscles switches four controllers, each setting its muscle's rest length after a delay.
The genome is each controller's delay (steps), weight on the sensor and rest length; the
fitness is how far the centre of mass travels in `--duration` simulated seconds (a
variant that diverges, or stretches a spring past 100%, scores nothing).

    pip install "./python[evolve]"            # cma; add [ray] for --ray
    python python/examples/evolve_walker.py --generations 30 --out evolve-walker [--ray [ADDRESS]]

Writes OUT/best.json (a scene the CLI and the studio open), OUT/fitness.png (best and mean
distance per generation) and OUT/best.gif.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib

import numpy as np

import hooke
from hooke.sweeps import build

#: The genome: per controller, log(delay / 300 steps), weight − 2, and the rest length's
#: relative change (through tanh, within ±30%).
GENES_PER_CONTROLLER = 3
MAX_STRAIN = 1.0


def decode(genome: np.ndarray, base: dict) -> dict[str, object]:
    """Scene paths and values for a genome."""
    values: dict[str, object] = {}
    for c, controller in enumerate(base["controllers"]):
        g = genome[GENES_PER_CONTROLLER * c : GENES_PER_CONTROLLER * (c + 1)]
        values[f"controllers[{c}].delay"] = int(np.clip(round(300 * math.exp(g[0])), 20, 3000))
        values[f"controllers[{c}].weights.stretched"] = float(2.0 + g[1])
        values[f"controllers[{c}].rest"] = float(controller["rest"] * (1 + 0.3 * math.tanh(g[2])))
    return values


def fitness(table) -> np.ndarray:
    """Distance travelled [m], 0 for a variant that diverged or overstretched."""
    ok = (table["status"] == "ok") & (table["max_strain"] <= MAX_STRAIN)
    return np.where(ok, table["com_distance"].fillna(0.0), 0.0)


def evolve(generations: int, popsize: int, seed: int, duration: float, backend: str = "local",
           address: str | None = None, sigma: float = 0.5, log=print):
    """Runs CMA-ES; returns (baseline distance, best distance, best values, per-generation
    (best, mean) distances)."""
    import cma

    walker = hooke.scene("walker")
    base = json.loads(walker.to_json())
    baseline = float(hooke.sweep(walker, [{}], ["com_distance"], duration=duration)["com_distance"].iloc[0])
    log(f"built-in walker: {baseline:.3f} m in {duration:g} s")
    dims = GENES_PER_CONTROLLER * len(base["controllers"])
    es = cma.CMAEvolutionStrategy(np.zeros(dims), sigma, {"popsize": popsize, "seed": seed, "verbose": -9})
    best = (baseline, {})
    history = []
    for generation in range(generations):
        genomes = es.ask()
        designs = [decode(np.asarray(g), base) for g in genomes]
        table = hooke.sweep(walker, designs, ["com_distance", "max_strain"], duration=duration,
                            backend=backend, address=address)
        distance = fitness(table)
        es.tell(genomes, list(-distance))
        top = int(np.argmax(distance))
        if distance[top] > best[0]:
            best = (float(distance[top]), designs[top])
        history.append((float(distance.max()), float(distance.mean())))
        log(f"generation {generation + 1}: best {distance.max():.3f} m, mean {distance.mean():.3f} m "
            f"(best so far {best[0]:.3f} m, {best[0] / baseline:.1f}× the built-in)")
    return baseline, best[0], best[1], history


def plot(history, baseline: float, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = np.arange(1, len(history) + 1)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(gens, [b for b, _ in history], "o-", label="best of the generation")
    ax.plot(gens, [m for _, m in history], "s--", label="mean of the generation")
    ax.axhline(baseline, color="grey", lw=1, label="built-in walker")
    ax.axhline(2 * baseline, color="grey", lw=1, ls=":", label="twice the built-in")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("generation")
    ax.set_ylabel("distance travelled [m]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def follow_gif(scene, path: pathlib.Path, seconds: float, fps: int = 12) -> None:
    """A GIF of the first `seconds` with the camera following the walker (each frame
    framed on it: over the whole run it travels hundreds of body lengths)."""
    from PIL import Image

    sim = hooke.Simulation(scene)
    frames = [Image.fromarray(sim.render(360, 240))]
    for _ in range(round(seconds * fps)):
        sim.run(1.0 / fps)
        frames.append(Image.fromarray(sim.render(360, 240)))
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=round(1000 / fps), loop=0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--generations", type=int, default=30)
    ap.add_argument("--popsize", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds per evaluation [s]")
    ap.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="evaluate on Ray")
    ap.add_argument("--out", default="evolve-walker")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    baseline, best, values, history = evolve(
        args.generations, args.popsize, args.seed, args.duration,
        backend="local" if args.ray is None else "ray", address=args.ray or None,
    )
    scene = build(hooke.scene("walker").to_json(), values)
    scene.save(out / "best.json")
    plot(history, baseline, out / "fitness.png")
    follow_gif(scene, out / "best.gif", seconds=min(3.0, args.duration))
    print(f"best: {best:.3f} m in {args.duration:g} s, {best / baseline:.2f}× the built-in walker's "
          f"{baseline:.3f} m; wrote {out / 'best.json'}, {out / 'fitness.png'}, {out / 'best.gif'}")
    print(json.dumps(values, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
