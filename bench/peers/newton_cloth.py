"""NVIDIA Newton 1.8 (on Warp, CPU) stepping a hooke scene file with its semi-implicit
solver: the scene's particles (mass 0 = pinned), springs (stiffness, damping; Newton takes
each rest length from the initial positions, as hooke's files here do), gravity, dt.
Prints M spring-updates/s (median of short batches), to set beside hooke in the same run:

    python3 -m venv /tmp/warpenv && /tmp/warpenv/bin/pip install warp-lang==1.19.0 "newton==1.8.*" numpy
    hooke scene cloth --width 128 --height 128 -o c128.json
    /tmp/warpenv/bin/python bench/peers/newton_cloth.py c128.json [SECONDS]
"""
import json
import sys

import warp as wp

import newton
from timing import spring_updates_per_second

wp.config.quiet = True
scene = json.load(open(sys.argv[1]))
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
nodes, springs = scene["nodes"], scene["springs"]
gravity = scene["settings"]["gravity"]
builder = newton.ModelBuilder(up_axis=newton.Axis.Y, gravity=tuple(gravity))
for n in nodes:
    builder.add_particle(pos=tuple(n["x"]), vel=(0.0, 0.0, 0.0), mass=0.0 if n.get("pinned") else n["mass"])
for s in springs:
    builder.add_spring(s["a"], s["b"], ke=s["k"], kd=s.get("c", 0.0), control=0.0)
model = builder.finalize(device="cpu")
solver = newton.solvers.SolverSemiImplicit(model)
s0, s1, control = model.state(), model.state(), model.control()
dt = float(scene["settings"]["dt"])


def step():
    global s0, s1
    s0.clear_forces()
    solver.step(s0, s1, control, None, dt)
    s0, s1 = s1, s0


rate, batches = spring_updates_per_second(step, wp.synchronize, len(springs), seconds)
print(f"newton-cpu {len(nodes)} nodes {len(springs)} springs: {rate / 1e6:.1f} M spring-updates/s (median of {batches} batches)")
