"""Taichi (CPU) stepping a hooke scene file: its springs, masses and dt; Hooke springs with
axial damping, gravity, symplectic Euler. Two variants, as Taichi's users write them:
`scatter` (one thread per spring, atomic adds into the node forces) and `gather` (one
thread per node, summing its springs from a CSR list: every spring computed twice, no
atomics). Prints M spring-updates/s of each (median of short batches), to set beside
`hooke bench` in the same run:

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install taichi==1.7.4 numpy
    hooke scene cloth --width 128 --height 128 -o c128.json
    /tmp/peers/bin/python bench/peers/taichi_cloth.py c128.json [SECONDS] [THREADS]

(`cargo xtask peers` does all of this.)
"""
import json
import sys

import numpy as np
import taichi as ti

from timing import spring_updates_per_second

scene = json.load(open(sys.argv[1]))
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
ti.init(arch=ti.cpu, cpu_max_num_threads=threads, default_fp=ti.f32, log_level=ti.ERROR)

nodes, springs = scene["nodes"], scene["springs"]
n, m = len(nodes), len(springs)
x0 = np.array([nd["x"] for nd in nodes], dtype=np.float32)
inv_m = np.array([0.0 if nd.get("pinned") else 1.0 / nd["mass"] for nd in nodes], dtype=np.float32)
a = np.array([s["a"] for s in springs], dtype=np.int32)
b = np.array([s["b"] for s in springs], dtype=np.int32)
rest = np.array(
    [s["rest"] if s.get("rest") is not None else np.linalg.norm(x0[s["b"]] - x0[s["a"]]) for s in springs],
    dtype=np.float32,
)
k = np.array([s["k"] for s in springs], dtype=np.float32)
c = np.array([s.get("c", 0.0) for s in springs], dtype=np.float32)
dt = float(scene["settings"]["dt"])
gravity = ti.Vector(scene["settings"]["gravity"])

# CSR: node i's springs and the sign of the force on it (+1 as end a, -1 as end b).
ends = np.concatenate([a, b])
order = np.argsort(ends, kind="stable")
csr_spring = (np.concatenate([np.arange(m), np.arange(m)])[order]).astype(np.int32)
csr_sign = np.concatenate([np.ones(m), -np.ones(m)])[order].astype(np.float32)
csr_start = np.zeros(n + 1, dtype=np.int32)
np.add.at(csr_start, ends + 1, 1)
csr_start = np.cumsum(csr_start).astype(np.int32)


def field(values, dtype=ti.f32):
    f = ti.field(dtype, shape=len(values))
    f.from_numpy(values)
    return f


X = ti.Vector.field(3, ti.f32, shape=n)
V = ti.Vector.field(3, ti.f32, shape=n)
F = ti.Vector.field(3, ti.f32, shape=n)
IM = field(inv_m)
A, B = field(a, ti.i32), field(b, ti.i32)
R, K, C = field(rest), field(k), field(c)
S_SPRING, S_SIGN, S_START = field(csr_spring, ti.i32), field(csr_sign), field(csr_start, ti.i32)


@ti.func
def spring_force(s):
    """Force on end a of spring s: -(k (l - L) + c (u . dv)) u, d = x_a - x_b."""
    d = X[A[s]] - X[B[s]]
    dv = V[A[s]] - V[B[s]]
    l = d.norm()
    f = ti.Vector([0.0, 0.0, 0.0])
    if l > 1e-9:
        u = d / l
        f = -(K[s] * (l - R[s]) + C[s] * dv.dot(u)) * u
    return f


@ti.kernel
def scatter():
    for s in range(m):
        f = spring_force(s)
        ti.atomic_add(F[A[s]], f)
        ti.atomic_sub(F[B[s]], f)


@ti.kernel
def gather():
    for i in range(n):
        f = ti.Vector([0.0, 0.0, 0.0])
        for q in range(S_START[i], S_START[i + 1]):
            f += S_SIGN[q] * spring_force(S_SPRING[q])
        F[i] = f


@ti.kernel
def integrate():
    for i in range(n):
        if IM[i] > 0.0:
            V[i] += dt * (F[i] * IM[i] + gravity)
            X[i] += dt * V[i]
        F[i] = ti.Vector([0.0, 0.0, 0.0])


for name, forces in (("scatter", scatter), ("gather", gather)):
    X.from_numpy(x0)
    V.fill(0.0)
    F.fill(0.0)

    def step():
        forces()
        integrate()

    rate, batches = spring_updates_per_second(step, ti.sync, m, seconds)
    print(
        f"taichi-cpu {name} {threads} threads, {n} nodes {m} springs: "
        f"{rate / 1e6:.1f} M spring-updates/s (median of {batches} batches)"
    )
