"""The tour of docs/python.md, as a script that runs: scenes, a simulation, numpy arrays in
and out, the energy audit, a recording, a checkpoint, an error, a sweep and a picture.
The wheel's test runs it in a fresh virtualenv on a machine path without Rust.

    python python/examples/tour.py [OUT_DIR]
"""

import pathlib
import sys
import tempfile

import numpy as np

import hooke

ROOT = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)

print(f"hooke {hooke.__version__} ({hooke.PRECISION}): {len(hooke.scenes())} built-in scenes")
s = hooke.scene("cloth", width=32, height=32, k=500.0)  # parameters as keywords
s = hooke.load(ROOT / "scenes" / "cloth-12.json")  # or a scene file
s = hooke.Scene.from_json(s.to_json())  # or JSON text
print(f"scene: {s.nodes} nodes, {s.springs} springs, dt {s.dt} s, {s.integrator}")

sim = hooke.Simulation(s, integrator="verlet", dt=2e-4)
sim.step(1000)
x = sim.positions  # (nodes, 3) [m]
assert x.shape == (s.nodes, 3) and np.isfinite(x).all()
sim.set_positions(x + [0, 0.01, 0])
energy, audit = sim.energy(), sim.audit()
print(f"t = {sim.time:.3f} s after {sim.steps} steps: E = {energy['total']:.4f} J, "
      f"audit residual {audit['residual']:.2e} J")
strains = sim.spring_strains()
print(f"largest |strain| {np.abs(strains).max():.4f}")

sim.record(every=10)
sim.step(200)
trajectory = sim.trajectory()
print(f"recorded {trajectory.shape[0]} frames of {trajectory.shape[1]} nodes")

cp = sim.checkpoint()
cp.save(out / "here.json")
again = hooke.Simulation(hooke.load(out / "here.json"))
again.step(100)
sim.step(100)
assert np.array_equal(again.positions, sim.positions), "a checkpoint resumes bit for bit"
print("checkpoint resumed bit for bit")

try:
    hooke.scene("cloth", width=-3)
except hooke.SceneError as e:
    print(f"refused as expected: {e}")
else:
    raise SystemExit("a negative width was accepted")

table = hooke.sweep(hooke.scene("oscillator"), {"springs[0].k": [25, 100]}, ["period"],
                    duration=3.0)
periods = table["period"].to_numpy()
assert abs(periods[1] / periods[0] - 0.5) < 0.01, periods  # T ∝ 1/√k
print(f"sweep: periods {periods.round(3)} s")

picture = sim.render(width=320, height=240)
assert picture.shape == (240, 320, 3) and picture.dtype == np.uint8
sim.render_gif(out / "tour.gif")
print(f"wrote {out / 'here.json'} and {out / 'tour.gif'}")
print("tour done")
