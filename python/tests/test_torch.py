"""hooke.torch: a rollout as a differentiable torch function — parameters, an open-loop
actuation and a network controller in the loop get their gradients through hooke's tape,
checked against central differences of the same function (float32 differences: Warp's
tolerances), and a controller trains."""

import json

import numpy as np
import pytest
import torch

import hooke
from hooke.torch import rollout

STEPS = 120


def chain():
    """Four nodes hanging from a pinned one, thrown sideways; spring 1 a muscle on
    channel 0, spring 3 one on channel 1."""
    nodes = [{"x": [0.0, 1.0, 0.0], "mass": 0.1, "pinned": True}]
    for i in range(1, 5):
        nodes.append({"x": [0.1 * i, 1.0 - 0.02 * i, 0.0], "v": [0.0, 0.0, 0.2 * i], "mass": 0.05 + 0.01 * i})
    springs = [{"a": i, "b": i + 1, "k": 60.0 + 10 * i, "c": 0.05} for i in range(4)]
    doc = {
        "format": "hooke/1",
        "name": "chain",
        "settings": {"dt": 2e-3, "air_drag": 0.01},
        "nodes": nodes,
        "springs": springs,
        "muscles": [{"spring": 1, "amplitude": 0.3, "channel": 0}, {"spring": 3, "amplitude": 0.2, "channel": 1}],
    }
    return hooke.Scene.from_json(json.dumps(doc))


def loss_of(xs, vs):
    """A loss of the whole trajectory: the end node's final x and height, and its mean
    speed along z over the run."""
    return xs[-1, 4, 0] - 0.5 * xs[-1, 4, 1] + 0.2 * vs[:, 4, 2].mean()


def central(f, e):
    """(f(e) − f(−e)) / 2e."""
    return (f(e) - f(-e)) / (2 * e)


def agrees(tape, differences, name):
    # Warp's rtol (float32 rollouts) and no absolute slack: each check on its own size.
    print(f"{name}: tape {tape:.6e}, differences {differences:.6e}")
    assert abs(tape - differences) <= 1e-2 * abs(differences), f"{name}: {tape} against {differences}"


def test_parameters_and_an_open_loop_actuation_get_their_gradients():
    scene = chain()
    rng = np.random.default_rng(3)
    k = torch.tensor([60.0, 70.0, 80.0, 90.0], dtype=torch.float64, requires_grad=True)
    mass = torch.tensor([0.1, 0.06, 0.07, 0.08, 0.09], dtype=torch.float64, requires_grad=True)
    u = torch.tensor(0.5 * np.sin(0.05 * np.arange(2 * STEPS)).reshape(STEPS, 2), requires_grad=True)
    xs, vs = rollout(scene, STEPS, params={"springs[*].k": k, "nodes[*].mass": mass}, actuation=u)
    assert xs.shape == (STEPS + 1, 5, 3) and vs.dtype == torch.float64
    loss_of(xs, vs).backward()
    assert mass.grad[0] == 0.0  # the pinned node's mass moves nothing

    def loss_at(dk=0.0, dm=0.0, du=0.0):
        with torch.no_grad():
            p = {"springs[*].k": k + dk, "nodes[*].mass": mass + dm}
            return float(loss_of(*rollout(scene, STEPS, params=p, actuation=u + du)))

    for name, tensor, eps, shift in [
        ("springs[*].k", k, 0.5, lambda e, d: loss_at(dk=e * d)),
        ("nodes[*].mass", mass, 1e-3, lambda e, d: loss_at(dm=e * d)),
        ("actuation", u, 3e-2, lambda e, d: loss_at(du=e * d)),
    ]:
        d = torch.tensor(rng.uniform(-1, 1, tensor.shape))
        if name == "nodes[*].mass":
            d[0] = 0.0
        agrees(float((tensor.grad * d).sum()), central(lambda e: shift(e, d), eps), name)


class Policy(torch.nn.Module):
    """A small network reading the end node's position and velocity."""

    def __init__(self, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.net = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2), torch.nn.Tanh())

    def forward(self, x, v):
        return self.net(torch.cat([x[4], v[4]]))


def test_a_controller_in_the_loop_gets_its_gradient_and_trains():
    scene = chain()
    policy = Policy(0).double()
    xs, vs = rollout(scene, STEPS, policy=policy)
    loss = loss_of(xs, vs)
    loss.backward()
    assert all(torch.all(torch.isfinite(w.grad)) for w in policy.parameters())
    # Along a random direction of all the weights, against central differences of the
    # closed loop (the controller reads the state each step: its decisions move with it).
    check_weights(scene, policy, 5, "the controller's weights")

    # Training: push the end node's final x, height and speed the loss asks for.
    optimiser = torch.optim.Adam(policy.parameters(), lr=0.05)
    losses = []
    for _ in range(25):
        optimiser.zero_grad()
        loss = loss_of(*rollout(scene, STEPS, policy=policy))
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    print("losses", [round(x, 4) for x in losses])
    assert losses[-1] < losses[0] - 0.05, losses


class Filter(torch.nn.Module):
    """A controller with a memory: its channel values low-pass filtered,
    h' = h + α·(tanh(W·s + b) − h), u = h', from a learnt initial value."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.lin = torch.nn.Linear(6, 2)
        self.h0 = torch.nn.Parameter(torch.tensor([0.1, -0.1]))

    def initial_state(self):
        return 1.0 * self.h0

    def forward(self, x, v, h):
        h = h + 0.05 * (torch.tanh(self.lin(torch.cat([x[4], v[4]]))) - h)
        return h, h


def test_a_controller_with_a_memory_gets_its_gradient_through_it():
    # The gradient goes back through the memory from step to step (without that it is
    # 25 times too small here) and to the learnt initial memory.
    scene, policy = chain(), Filter().double()
    loss_of(*rollout(scene, STEPS, policy=policy)).backward()
    assert next(policy.parameters()) is policy.h0 and torch.all(policy.h0.grad != 0)
    check_weights(scene, policy, 6, "the filter's weights and initial memory")


def check_weights(scene, policy, seed, name):
    """The weights' gradients (already computed) along a random direction against central
    differences of the closed-loop rollout's loss."""
    weights = list(policy.parameters())
    rng = np.random.default_rng(seed)
    dirs = [torch.tensor(rng.uniform(-1, 1, w.shape)) for w in weights]
    tape = sum(float((w.grad * d).sum()) for w, d in zip(weights, dirs))

    def loss_at(e):
        with torch.no_grad():
            for w, d in zip(weights, dirs):
                w += e * d
            value = float(loss_of(*rollout(scene, STEPS, policy=policy)))
            for w, d in zip(weights, dirs):
                w -= e * d
        return value

    agrees(tape, central(loss_at, 1e-2), name)


def test_bad_inputs_get_clear_errors():
    scene = chain()
    with pytest.raises(ValueError, match="springs.*k.*shape"):
        rollout(scene, 3, params={"springs[*].k": torch.ones(7, dtype=torch.float64)})
    with pytest.raises(ValueError, match="not one of"):
        rollout(scene, 3, params={"springs[*].break_strain": torch.ones(4)})
    with pytest.raises(ValueError, match="either actuation"):
        rollout(scene, 3, actuation=torch.zeros(3, 2), policy=Policy(0))
    doc = json.loads(scene.to_json())
    doc["settings"]["integrator"] = "xpbd"
    with pytest.raises(hooke.NotDifferentiableError, match="xpbd"):
        rollout(hooke.Scene.from_json(json.dumps(doc)), 3)
