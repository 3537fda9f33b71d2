"""Runs DiffTaichi's own mass-spring robot script and times each training iteration.

    python difftaichi_robot.py DIFFTAICHI/examples --iterations 100 --out robot-taichi.json

`DIFFTAICHI/examples` is a checkout of https://github.com/taichi-dev/difftaichi's
examples folder (the script has no licence to copy it here). `mass_spring.py` runs
unchanged but for the edits below, made on a copy and printed: no GUI (there is no
display); after training, one more rollout without frames whose loss is printed (the
script renders that rollout); the forward and backward pass timed and printed; and, in
versions before the repository's "API update", the one line without which Taichi 1.7's
loss is NaN. It trains robot C (`2 train`: time of impact on, as the script's `train`
task does) for `--iterations` iterations with its own `--iters` option.

Each iteration's time is the time between the script's successive `Iter=` lines (an
iteration's forward, backward, gradient norm and weight update, as the script does
them), read as the lines arrive; the first iteration, which compiles Taichi's kernels, is
reported apart; `tape_seconds` are the forward and backward passes alone. Writes the
losses, the head's travel (−loss − its start, 0.2 m: `distance` per iteration, before
its update, and `final_distance` after the last update) and the times as JSON.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

#: (what the script says, what the copy says, whether it must be there).
EDITS = [
    ('gui = ti.GUI("Mass Spring Robot", (512, 512), background_color=0xFFFFFF)',
     "gui = None  # edited: no GUI", True),
    ("optimize(toi=True, visualize=True)", "optimize(toi=True, visualize=False)", True),
    ("forward('final{}'.format(options.robot_id))",
     "forward(visualize=False); print('Final loss=', loss[None])  # edited: no frames", True),
    ("        with ti.ad.Tape(loss):\n            forward(visualize=visualize)\n",
     "        _t = __import__('time').perf_counter()  # edited: timed\n"
     "        with ti.ad.Tape(loss):\n            forward(visualize=visualize)\n"
     "        print('Tape seconds=', __import__('time').perf_counter() - _t)  # edited\n", True),
    ("ti.root.dense(ti.l, max_steps).dense(ti.i, n_objects)",
     "ti.root.dense(ti.i, max_steps).dense(ti.j, n_objects)", False),
]
#: Robot C (20 masses, 46 springs) in the script's list of robots.
ROBOT = 2
#: Where the head starts [m].
HEAD_START = 0.2


def edited(source: str) -> str:
    """The script with EDITS made; raises when one that must apply does not."""
    for old, new, required in EDITS:
        if old in source:
            source = source.replace(old, new)
            print(f"edited: {old!r} -> {new!r}", file=sys.stderr)
        elif required:
            raise SystemExit(f"mass_spring.py: {old!r} not found; is this DiffTaichi's script?")
    return source


def run(examples: pathlib.Path, iterations: int) -> dict:
    """Runs the edited script; returns its losses and iteration times."""
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        shutil.copy(examples / "mass_spring_robot_config.py", work)
        (work / "mass_spring.py").write_text(edited((examples / "mass_spring.py").read_text()))
        cmd = [sys.executable, "-u", "mass_spring.py", str(ROBOT), "train", "--iters", str(iterations)]
        start = time.perf_counter()
        stamps, losses, tapes, final = [], [], [], None
        with subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, text=True) as p:
            for line in p.stdout:
                if line.startswith("Iter="):
                    stamps.append(time.perf_counter())
                    losses.append(float(line.split("Loss=")[1]))
                elif line.startswith("Tape seconds="):
                    tapes.append(float(line.split("=")[1]))
                elif line.startswith("Final loss="):
                    final = float(line.split("=")[1])
                    stamps.append(time.perf_counter())  # the last iteration ended
        if p.returncode != 0:
            raise SystemExit(f"mass_spring.py failed with exit code {p.returncode}")
    if final is None or len(losses) != iterations:
        raise SystemExit("mass_spring.py did not print every iteration and the final loss")
    # Iteration i ends when iteration i + 1's line is printed; the last, roughly, when the
    # final rollout is (its update and that rollout's forward pass: not counted).
    seconds = [b - a for a, b in zip(stamps[:-2], stamps[1:-1])]
    return {
        "loss": losses,
        "distance": [-loss - HEAD_START for loss in losses],
        "final_distance": -final - HEAD_START,
        "first_seconds": stamps[0] - start,
        "seconds": seconds,
        "tape_seconds": tapes[1:],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("examples", type=pathlib.Path, help="DiffTaichi's examples folder")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    args = ap.parse_args()
    result = run(args.examples, args.iterations)
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
