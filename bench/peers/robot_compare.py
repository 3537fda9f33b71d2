"""DiffTaichi's mass-spring robot trained by hooke and by DiffTaichi's own script, one
after the other on the same machine, from the same initial weights, with the same update.

    python robot_compare.py --difftaichi DIFFTAICHI/examples --taichi-python PY \
        --iterations 100 --out DIR

Run with the Python that has hooke (and matplotlib); `PY` has taichi 1.7.4 (`cargo xtask
robot` sets both up). hooke trains with python/examples/difftaichi_robot.py, DiffTaichi
with difftaichi_robot.py beside this file. Prints the table (also DIR/robot.md) and plots
both trainings (DIR/robot.png).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "python" / "examples" / "difftaichi_robot.py"


def cpu() -> str:
    """The processor's model name."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(cmd: list[str]) -> None:
    print("==>", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)


def table(h: dict, t: dict, iterations: int, loads: tuple[str, str]) -> str:
    """The comparison as Markdown."""
    hs, ts = statistics.median(h["seconds"]), statistics.median(t["seconds"])
    tape = statistics.median(t["tape_seconds"])
    last = lambda d: statistics.mean(d["distance"][-10:])  # noqa: E731
    rows = [
        ("head travel after the last update [m]", f"{h['final_distance']:.4f}", f"{t['final_distance']:.4f}"),
        ("best travel during training [m]", f"{max(h['distance']):.4f}", f"{max(t['distance']):.4f}"),
        ("mean travel, last 10 iterations [m]", f"{last(h):.4f}", f"{last(t):.4f}"),
        ("median time an iteration [ms]", f"{hs * 1e3:.1f}", f"{ts * 1e3:.1f}"),
        ("  of which forward + backward [ms]", "", f"{tape * 1e3:.1f}"),
    ]
    out = [
        f"DiffTaichi's robot C, {iterations} iterations from the same initial weights; "
        f"{cpu()}, {os.cpu_count()} cores; load {loads[0]} before, {loads[1]} after",
        "",
        "| | hooke | DiffTaichi (Taichi 1.7.4) |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
        f"hooke's iteration is {ts / hs:.1f}× faster than DiffTaichi's whole iteration "
        f"and {tape / hs:.1f}× faster than its forward and backward passes alone.",
    ]
    return "\n".join(out)


def plot(h: dict, t: dict, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(t["distance"], label="DiffTaichi (Taichi 1.7.4)", color="tab:blue")
    ax.plot(h["distance"], label="hooke", color="tab:red")
    ax.set_xlabel("iteration")
    ax.set_ylabel("head travel in 2.72 s [m]")
    ax.set_title("DiffTaichi's mass-spring robot C, same weights and update")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--difftaichi", type=pathlib.Path, required=True, help="DiffTaichi's examples folder")
    ap.add_argument("--taichi-python", required=True)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    before = load()
    n = str(args.iterations)
    run([sys.executable, str(EXAMPLE), "--iterations", n, "--out", str(args.out / "hooke")])
    taichi_json = args.out / "difftaichi.json"
    run([args.taichi_python, str(HERE / "difftaichi_robot.py"), str(args.difftaichi),
         "--iterations", n, "--out", str(taichi_json)])
    h = json.loads((args.out / "hooke" / "robot.json").read_text())
    t = json.loads(taichi_json.read_text())
    text = table(h, t, args.iterations, (before, load()))
    print("\n" + text)
    (args.out / "robot.md").write_text(text + "\n")
    plot(h, t, args.out / "robot.png")
    print(f"(also in {args.out / 'robot.md'}; plot {args.out / 'robot.png'})")


if __name__ == "__main__":
    main()
