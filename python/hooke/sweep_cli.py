"""``python -m hooke sweep``: a parameter sweep from the command line.

    python -m hooke sweep SCENE --set 'springs[*].k=100,200,400' --set settings.dt=1e-4,2e-4 \\
        --metric com_distance --duration 5 [--ray [ADDRESS]] --out DIR

SCENE is a scene file or a built-in scene's name. Writes ``DIR/results.parquet``,
``DIR/results.csv`` and ``DIR/sweep.png`` (a line per metric against one parameter, a
heatmap of the first metric over two). Exit 0 when every variant ran, 1 when some
diverged or failed (they are rows all the same), 2 on a bad argument or scene.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from typing import Any

import numpy as np

from ._native import SceneError, load, scene, scenes
from .metrics import BUILT_IN, label
from .sweeps import sweep


def parse_set(text: str) -> tuple[str, list[Any]]:
    """``PATH=V1,V2,…`` as the path and its values (numbers, true/false, JSON lists such
    as ``[0,-9.81,0]`` separated by ``;``, or words)."""
    path, sep, values = text.partition("=")
    if not sep or not path or not values:
        raise argparse.ArgumentTypeError(f"--set {text!r}: expected PATH=V1,V2,… e.g. springs[*].k=100,200")
    parts = values.split(";") if values.lstrip().startswith("[") else values.split(",")
    return path.strip(), [_value(p.strip()) for p in parts]


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _scene(name: str):
    if os.path.exists(name):
        return load(name)
    if name in {s["name"] for s in scenes()}:
        return scene(name)
    raise SceneError(f"{name}: no such scene file, nor a built-in scene ({', '.join(s['name'] for s in scenes())})")


def plot(table, params: list[str], metrics: list[str], path: pathlib.Path) -> None:
    """One parameter: each metric against it; two or more: a heatmap of the first metric
    over the first two (the mean over the others)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = table[table["status"] == "ok"]
    if len(params) == 1:
        fig, axes = plt.subplots(len(metrics), 1, figsize=(6, 2.6 * len(metrics)), squeeze=False)
        for ax, m in zip(axes[:, 0], metrics):
            ax.plot(ok[params[0]], ok[m], "o-")
            ax.set_xlabel(params[0])
            ax.set_ylabel(label(m))
            ax.grid(alpha=0.3)
    else:
        shown = table.assign(**{metrics[0]: table[metrics[0]].where(table["status"] == "ok")})
        shown = shown.assign(failed=(table["status"] != "ok").astype(float))
        cells = shown.pivot_table(index=params[1], columns=params[0], values=[metrics[0], "failed"],
                                  aggfunc="mean", dropna=False)
        grid, failed = cells[metrics[0]], cells["failed"]
        fig, ax = plt.subplots(figsize=(6.5, 5))
        image = ax.imshow(grid.values, origin="lower", aspect="auto", cmap="viridis")
        for (r, c), f in np.ndenumerate(failed.values):
            if f > 0:
                ax.text(c, r, "diverged" if f == 1 else f"{f:.0%} failed", ha="center", va="center", color="#b03030")
        ax.set_xticks(range(len(grid.columns)), [f"{c:g}" if isinstance(c, float) else str(c) for c in grid.columns])
        ax.set_yticks(range(len(grid.index)), [f"{r:g}" if isinstance(r, float) else str(r) for r in grid.index])
        ax.set_xlabel(params[0])
        ax.set_ylabel(params[1])
        fig.colorbar(image, ax=ax, label=label(metrics[0]))
    fig.suptitle(f"{len(table)} variants, {len(ok)} ok")
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hooke", description="hooke's Python commands")
    sub = ap.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep", help="run variants of a scene and tabulate their metrics")
    sw.add_argument("scene", help="a scene file or a built-in scene's name")
    sw.add_argument("--set", dest="sets", action="append", type=parse_set, required=True,
                    metavar="PATH=V1,V2", help="a scene path and its values (repeat for a grid)")
    sw.add_argument("--metric", dest="metrics", action="append", required=True, choices=BUILT_IN,
                    help="a metric to measure (repeat for several)")
    length = sw.add_mutually_exclusive_group()
    length.add_argument("--duration", type=float, help="simulated seconds per variant [s]")
    length.add_argument("--steps", type=int, help="steps per variant")
    sw.add_argument("--batch", type=int, help="variants run side by side (default: four per core)")
    sw.add_argument("--out", required=True, help="folder for results.parquet, results.csv and sweep.png")
    sw.add_argument("--resume", action="store_true", help="finish the sweep whose results are in --out")
    sw.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                    help="run on Ray: join ADDRESS ('auto', 'ray://host:10001', host:port) or start a local instance")
    args = ap.parse_args(argv)
    try:
        table = sweep(
            _scene(args.scene),
            dict(args.sets),
            args.metrics,
            duration=args.duration,
            steps=args.steps,
            batch=args.batch,
            out=args.out,
            resume=args.resume,
            backend="local" if args.ray is None else "ray",
            address=args.ray or None,
        )
    except (SceneError, ValueError, FileExistsError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    plot(table, [p for p, _ in args.sets], args.metrics, out / "sweep.png")
    failed = table[table["status"] != "ok"]
    print(f"{len(table)} variants, {len(failed)} diverged or failed: {out / 'results.parquet'}, "
          f"{out / 'results.csv'}, {out / 'sweep.png'}")
    for i, row in failed.iterrows():
        print(f"  variant {i}: {row['status']}: {row['message'].splitlines()[0] if row['message'] else ''}")
    return 1 if len(failed) else 0
