"""DiffTaichi's mass-spring robot, rebuilt in hooke and trained by gradients through it.

The robot is robot C of DiffTaichi's ``examples/mass_spring.py`` (Hu et al., ICLR 2020):
20 unit masses on a 5 cm lattice, 46 springs of 3·10⁴ N/m, 8 of them muscles whose rest
length is L₀·(1 + 0.15·a), a ∈ (−1, 1), on sticky ground under gravity 4.8 m/s², with
the velocity damped by e^(−15·dt) each step; 681 steps at dt = 4 ms. Its controller is
DiffTaichi's network: 10 sine waves of the time, each node's offset from the centre and
its velocity (×0.05), and the goal's offset from the centre → 32 tanh units → one tanh
output per spring. The loss is −x of the head (node 0) at the end: training makes it walk
right. Each iteration records one rollout on a tape, goes back through it (the network
in the loop: each step's ∂L/∂a reaches the weights and, through the feedback inputs, the
state), and moves the weights by 0.2 along the normalised gradient, as DiffTaichi does.

The physics in hooke's terms: symplectic Euler; ``air_drag`` (1 − e^(−15·dt))/dt, which
is DiffTaichi's v ← e^(−15·dt)·v + dt·f for unit masses; the ground a plane at
y = 0.1 m with restitution 0 and roughness 10⁹ (a node that reaches it stops: DiffTaichi's
sticky ground); muscles on channels 0–7. DiffTaichi's spring adds 10⁻⁴ m to every length
(ℓ + 10⁻⁴ against the target); hooke's rest lengths are L₀ − 10⁻⁴, the same to first order.
The network's weights start as DiffTaichi's do (numpy's generator seeded 0, drawn in the
same order), so both trainings start from the same robot and controller.

    python python/examples/difftaichi_robot.py --iterations 100 --out runs/robot

Writes OUT/robot.json (the distance per iteration, the time per iteration, the distance
after the last update) and, with matplotlib, OUT/robot.png: the distance per iteration
and the trained robot's gait.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time
from dataclasses import dataclass, field

import numpy as np

import hooke

DT = 0.004
#: Steps of a rollout: DiffTaichi's ``steps = 2048 // 3`` states, so 681 steps.
STEPS = 2048 // 3 - 1
GRAVITY = 4.8
GROUND = 0.1
DAMPING = 15.0
STIFFNESS = 3e4
MUSCLE = 0.15
#: DiffTaichi adds this to every spring's length [m].
LENGTH_EPSILON = 1e-4
SINES = 10
OMEGA = 10.0
HIDDEN = 32
GOAL = (0.9, 0.2)
HEAD = 0
#: The step DiffTaichi moves the weights by each iteration (norm of the update).
STEP_NORM = 0.2


@dataclass
class Robot:
    """Nodes (x, y) [m] and springs (a, b, rest [m], muscle amplitude), in DiffTaichi's
    order."""

    nodes: list[tuple[float, float]] = field(default_factory=list)
    springs: list[tuple[int, int, float, float]] = field(default_factory=list)
    _lattice: dict[tuple[int, int], int] = field(default_factory=dict)

    def point(self, i: int, j: int) -> int:
        """The node at lattice point (i, j), added at (0.1 + 0.05·i, 0.1 + 0.05·j)."""
        if (i, j) not in self._lattice:
            self._lattice[(i, j)] = len(self.nodes)
            self.nodes.append((i * 0.05 + 0.1, j * 0.05 + 0.1))
        return self._lattice[(i, j)]

    def spring(self, a: int, b: int, muscle: float) -> None:
        """A spring from a to b at their distance, unless one joins them already."""
        if any({a, b} == {s[0], s[1]} for s in self.springs):
            return
        (xa, ya), (xb, yb) = self.nodes[a], self.nodes[b]
        self.springs.append((a, b, math.hypot(xa - xb, ya - yb), muscle))

    def square(self, i: int, j: int, muscle: float = 0.0) -> None:
        """A lattice square: its two vertical sides muscles (when `muscle` ≠ 0), then every
        pair of its corners joined."""
        a, b = self.point(i, j), self.point(i, j + 1)
        c, d = self.point(i + 1, j), self.point(i + 1, j + 1)
        self.spring(a, b, muscle)
        self.spring(c, d, muscle)
        for p in (a, b, c, d):
            for q in (a, b, c, d):
                if p != q:
                    self.spring(p, q, 0.0)

    @property
    def muscles(self) -> list[int]:
        """The springs that are muscles, in order (muscle k reads channel k)."""
        return [s for s, spring in enumerate(self.springs) if spring[3] != 0.0]


def robot_c() -> Robot:
    """DiffTaichi's robot C: 20 nodes, 46 springs, 8 muscles."""
    r = Robot()
    for i, j, muscle in [(2, 0, MUSCLE), (0, 0, MUSCLE), (0, 1, MUSCLE), (0, 2, 0), (1, 2, 0),
                         (2, 1, MUSCLE), (2, 2, 0), (2, 3, 0), (2, 4, 0)]:
        r.square(i, j, muscle)
    return r


def scene(robot: Robot) -> hooke.Scene:
    """The robot as a hooke scene (see the module docs)."""
    doc = {
        "format": "hooke/1",
        "name": "difftaichi-robot",
        "settings": {
            "dt": DT,
            "gravity": [0.0, -GRAVITY, 0.0],
            "air_drag": (1.0 - math.exp(-DAMPING * DT)) / DT,  # per unit mass
        },
        "nodes": [{"x": [x, y, 0.0], "mass": 1.0} for x, y in robot.nodes],
        "springs": [
            {"a": a, "b": b, "k": STIFFNESS, "rest": rest - LENGTH_EPSILON}
            for a, b, rest, _ in robot.springs
        ],
        "muscles": [
            {"spring": s, "amplitude": robot.springs[s][3], "channel": k}
            for k, s in enumerate(robot.muscles)
        ],
        "ground": {"offset": GROUND, "roughness": 1e9, "restitution": 0.0},
    }
    return hooke.Scene.from_json(json.dumps(doc))


@dataclass
class Network:
    """DiffTaichi's controller: inputs → 32 tanh → one tanh per spring."""

    w1: np.ndarray  # (hidden, inputs)
    b1: np.ndarray  # (hidden,)
    w2: np.ndarray  # (springs, hidden)
    b2: np.ndarray  # (springs,)

    @staticmethod
    def initial(nodes: int, springs: int, seed: int = 0) -> Network:
        """DiffTaichi's initial weights: numpy's generator seeded `seed`, drawn weight by
        weight in its order; biases 0."""
        rng = np.random.RandomState(seed)
        inputs = SINES + 4 * nodes + 2
        w1 = np.empty((HIDDEN, inputs))
        for i in range(HIDDEN):
            for j in range(inputs):
                w1[i, j] = rng.randn() * math.sqrt(2 / (HIDDEN + inputs)) * 2
        w2 = np.empty((springs, HIDDEN))
        for i in range(springs):
            for j in range(HIDDEN):
                w2[i, j] = rng.randn() * math.sqrt(2 / (HIDDEN + springs)) * 3
        return Network(w1, np.zeros(HIDDEN), w2, np.zeros(springs))

    def arrays(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2, self.b2]


def sines(steps: int) -> np.ndarray:
    """The sine inputs of each step: (steps, 10)."""
    t = np.arange(steps)[:, None] * DT
    return np.sin(OMEGA * t + 2 * math.pi / SINES * np.arange(SINES)[None, :])


@dataclass
class Rollout:
    """What a rollout keeps for the backward pass: each step's inputs, hidden units and
    outputs; and the nodes' path."""

    inputs: np.ndarray
    hidden: np.ndarray
    outputs: np.ndarray
    positions: np.ndarray  # (steps + 1, nodes, 2)

    @property
    def head(self) -> np.ndarray:
        """The head's path: (steps + 1, 2)."""
        return self.positions[:, HEAD]


def inputs_of(x: np.ndarray, v: np.ndarray, wave: np.ndarray) -> np.ndarray:
    """The network's inputs at positions `x` and velocities `v` ((nodes, 2))."""
    center = x.mean(axis=0)
    features = np.concatenate([x - center, v], axis=1) * 0.05  # per node: dx, dy, vx, vy
    return np.concatenate([wave, features.ravel(), np.asarray(GOAL) - center])


def forward(sim: hooke.Simulation, net: Network, muscles: list[int], steps: int) -> Rollout:
    """Runs `steps` steps, the network setting the muscles before each."""
    n = sim.nodes
    waves = sines(steps)
    ins = np.empty((steps, waves.shape[1] + 4 * n + 2))
    hid = np.empty((steps, HIDDEN))
    out = np.empty((steps, net.w2.shape[0]))
    path = np.empty((steps + 1, n, 2))
    for t in range(steps):
        x, v = sim.positions[:, :2], sim.velocities[:, :2]
        path[t] = x
        ins[t] = inputs_of(x, v, waves[t])
        hid[t] = np.tanh(net.w1 @ ins[t] + net.b1)
        out[t] = np.tanh(net.w2 @ hid[t] + net.b2)
        sim.set_actuation(out[t, muscles])
        sim.step(1)
    path[steps] = sim.positions[:, :2]
    return Rollout(ins, hid, out, path)


class Backward:
    """The network's part of the backward pass. ``at_step`` is the tape's per-step callback:
    with ∂L/∂a of the step starting at a state it goes back through the network, keeps
    the gradient at its pre-activations for the weights, and returns the feedback inputs'
    share (∂a/∂x)ᵀ·∂L/∂a and (∂a/∂v)ᵀ·∂L/∂a for the state."""

    def __init__(self, net: Network, rollout: Rollout, muscles: list[int]):
        self.net, self.r, self.muscles = net, rollout, muscles
        steps = rollout.inputs.shape[0]
        self.g_out = np.zeros((steps, net.w2.shape[0]))  # ∂L/∂(output pre-activation)
        self.g_hidden = np.zeros((steps, HIDDEN))  # ∂L/∂(hidden pre-activation)

    def through_network(self, t: int, du: np.ndarray) -> np.ndarray:
        """Keeps step t's pre-activation gradients; returns ∂L/∂(inputs)."""
        g = self.g_out[t]
        g[self.muscles] = du * (1.0 - self.r.outputs[t, self.muscles] ** 2)
        gh = (self.net.w2[self.muscles].T @ g[self.muscles]) * (1.0 - self.r.hidden[t] ** 2)
        self.g_hidden[t] = gh
        return self.net.w1.T @ gh

    def at_step(self, step: int, x: np.ndarray, v: np.ndarray, du: np.ndarray):
        if len(du) == 0:  # the final state: no step starts there
            return None, None
        g_in = self.through_network(step, du)
        n = x.shape[0]
        g_nodes = g_in[SINES:SINES + 4 * n].reshape(n, 4) * 0.05
        g_center = -g_nodes[:, :2].sum(axis=0) - g_in[SINES + 4 * n:]
        dx, dv = np.zeros((n, 3)), np.zeros((n, 3))
        dx[:, :2] = g_nodes[:, :2] + g_center / n
        dv[:, :2] = g_nodes[:, 2:]
        return dx, dv

    def weights(self) -> list[np.ndarray]:
        """∂L/∂(w1, b1, w2, b2), summed over the steps."""
        return [self.g_hidden.T @ self.r.inputs, self.g_hidden.sum(axis=0),
                self.g_out.T @ self.r.hidden, self.g_out.sum(axis=0)]


def loss_and_gradient(robot_scene: hooke.Scene, net: Network, muscles: list[int],
                      steps: int) -> tuple[float, list[np.ndarray], Rollout]:
    """One rollout on a tape and its way back: the loss −x_head(T), its gradient with
    respect to the network's arrays, and the rollout."""
    sim = hooke.Simulation(robot_scene)
    with sim.tape() as tape:
        rollout = forward(sim, net, muscles, steps)
    dx = np.zeros((sim.nodes, 3))
    dx[HEAD, 0] = -1.0
    back = Backward(net, rollout, muscles)
    tape.backward(dx=dx, per_step=back.at_step)
    back.through_network(0, tape.grad("control.actuation")[0])  # the first step's
    return -float(rollout.head[-1, 0]), back.weights(), rollout


def train(iterations: int, steps: int = STEPS, log=print) -> dict:
    """Trains DiffTaichi's way (the update's norm 0.2 each iteration). Returns the loss,
    the distance the head travelled and the seconds of each iteration (before its update),
    and the distance after the last update (`final_distance`, with its rollout and the
    trained network)."""
    robot = robot_c()
    robot_scene, muscles = scene(robot), robot.muscles
    net = Network.initial(len(robot.nodes), len(robot.springs))
    history: dict = {"loss": [], "distance": [], "seconds": []}
    for it in range(iterations):
        start = time.perf_counter()
        loss, grads, rollout = loss_and_gradient(robot_scene, net, muscles, steps)
        norm = math.sqrt(sum(float(np.sum(g * g)) for g in grads))
        scale = STEP_NORM / (norm + 1e-6)
        for w, g in zip(net.arrays(), grads):
            w -= scale * g
        history["seconds"].append(time.perf_counter() - start)
        history["loss"].append(loss)
        history["distance"].append(float(rollout.head[-1, 0] - rollout.head[0, 0]))
        log(f"iteration {it:3d}  loss {loss:+.5f}  head travelled {history['distance'][-1]:+.4f} m"
            f"  {history['seconds'][-1] * 1e3:.1f} ms")
    final = forward(hooke.Simulation(robot_scene), net, muscles, steps)
    history["final_distance"] = float(final.head[-1, 0] - final.head[0, 0])
    history["final_rollout"] = final
    history["network"] = net
    return history


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--steps", type=int, default=STEPS, help="steps per rollout (681)")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/difftaichi-robot"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    h = train(args.iterations, args.steps)
    record = {k: h[k] for k in ("loss", "distance", "seconds", "final_distance")}
    (args.out / "robot.json").write_text(json.dumps(record, indent=1))
    print(f"after {args.iterations} iterations the head travels {h['final_distance']:.4f} m; "
          f"median {np.median(h['seconds']) * 1e3:.1f} ms an iteration; wrote {args.out / 'robot.json'}")
    try:
        plot(h, args.out / "robot.png")
    except ImportError:
        print("(no matplotlib: no plot)")


def plot(h: dict, path: pathlib.Path) -> None:
    """The distance per iteration, and the trained robot every 0.2 s of its rollout."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8), width_ratios=[1, 1.6])
    a.plot(h["distance"], color="tab:red")
    a.set_xlabel("iteration")
    a.set_ylabel("head travel [m]")
    a.set_title("training (DiffTaichi's update)")
    robot, r = robot_c(), h["final_rollout"]
    b.axhline(GROUND, color="k", lw=1)
    last = len(r.head) - 1
    frames = [0, last // 3, 2 * last // 3, last]
    for k, t in enumerate(frames):
        shade = plt.cm.viridis(k / (len(frames) - 1))
        xy = r.positions[t]
        for a_, b_, _, muscle in robot.springs:
            b.plot(*zip(xy[a_], xy[b_]), color=shade, lw=1.8 if muscle else 0.7)
        top = (xy[:, 0].mean(), xy[:, 1].max() + 0.012)
        b.annotate(f"{t * DT:.2f} s", top, ha="center", fontsize=8, color=shade)
    b.plot(r.head[:, 0], r.head[:, 1], color="tab:red", lw=0.8, label="head")
    b.legend(loc="upper left", fontsize=8)
    b.set_ylim(GROUND - 0.01, r.positions[:, :, 1].max() + 0.03)  # room for the times
    b.set_aspect("equal")
    b.set_title("trained robot (muscles thick)")
    b.set_xlabel("x [m]")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
