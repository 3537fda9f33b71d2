"""Energy of the cloth-on-sphere showcase against time, plotted with matplotlib.

    pip install matplotlib
    python python/examples/energy_plot.py [out.png]
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import hooke  # noqa: E402


def main(out: str = "energy.png") -> None:
    sim = hooke.Simulation(hooke.scene("cloth-on-sphere", nodes=24))
    t, rows = [], []
    for _ in range(100):
        sim.run(0.02)
        t.append(sim.time)
        rows.append(sim.energy())
    for key in ("kinetic", "gravity", "spring", "total"):
        plt.plot(t, [r[key] for r in rows], label=key)
    plt.xlabel("time [s]")
    plt.ylabel("energy [J]")
    plt.title("cloth on a sphere")
    plt.legend()
    plt.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
