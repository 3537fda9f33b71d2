"""NVIDIA Warp (CPU) stepping a hooke scene file: its springs, masses and dt; Hooke springs
with axial damping gathered by atomic adds, gravity, symplectic Euler. Prints M
spring-updates/s (median of short batches), to set beside `hooke bench` in the same run:

    python3 -m venv /tmp/warpenv && /tmp/warpenv/bin/pip install warp-lang==1.19.0 numpy
    hooke scene cloth --width 128 --height 128 -o c128.json
    /tmp/warpenv/bin/python bench/peers/warp_cloth.py c128.json [SECONDS]
"""
import json, sys
import numpy as np
import warp as wp

from timing import spring_updates_per_second

wp.config.quiet = True
wp.init()
scene = json.load(open(sys.argv[1]))
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
nodes, springs = scene["nodes"], scene["springs"]
x = np.array([n["x"] for n in nodes], dtype=np.float32)
v = np.zeros_like(x)
inv_m = np.array([0.0 if n.get("pinned") else 1.0 / n["mass"] for n in nodes], dtype=np.float32)
a = np.array([s["a"] for s in springs], dtype=np.int32)
b = np.array([s["b"] for s in springs], dtype=np.int32)
rest = np.array([s["rest"] if s.get("rest") is not None else np.linalg.norm(x[s["b"]] - x[s["a"]]) for s in springs], dtype=np.float32)
k = np.array([s["k"] for s in springs], dtype=np.float32)
c = np.array([s.get("c", 0.0) for s in springs], dtype=np.float32)
dt = float(scene["settings"]["dt"])
g = wp.vec3(*scene["settings"]["gravity"])

@wp.kernel
def spring_forces(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), a: wp.array(dtype=int),
                  b: wp.array(dtype=int), rest: wp.array(dtype=float), k: wp.array(dtype=float),
                  c: wp.array(dtype=float), f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    i, j = a[s], b[s]
    d = x[j] - x[i]
    l = wp.length(d)
    if l > 1.0e-9:
        u = d / l
        fs = (k[s] * (l - rest[s]) + c[s] * wp.dot(v[j] - v[i], u)) * u
        wp.atomic_add(f, i, fs)
        wp.atomic_sub(f, j, fs)

@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3),
              inv_m: wp.array(dtype=float), g: wp.vec3, dt: float):
    i = wp.tid()
    if inv_m[i] > 0.0:
        v[i] = v[i] + dt * (f[i] * inv_m[i] + g)
        x[i] = x[i] + dt * v[i]
    f[i] = wp.vec3(0.0, 0.0, 0.0)

dev = "cpu"
X, V = wp.array(x, dtype=wp.vec3, device=dev), wp.array(v, dtype=wp.vec3, device=dev)
F = wp.zeros(len(nodes), dtype=wp.vec3, device=dev)
A, B = wp.array(a, device=dev), wp.array(b, device=dev)
R, K, C, IM = (wp.array(q, device=dev) for q in (rest, k, c, inv_m))

def step():
    wp.launch(spring_forces, dim=len(springs), inputs=[X, V, A, B, R, K, C, F], device=dev)
    wp.launch(integrate, dim=len(nodes), inputs=[X, V, F, IM, g, dt], device=dev)

rate, batches = spring_updates_per_second(step, wp.synchronize, len(springs), seconds)
print(f"warp-cpu {len(nodes)} nodes {len(springs)} springs: {rate / 1e6:.1f} M spring-updates/s (median of {batches} batches)")
