"""python/examples/difftaichi_robot.py: DiffTaichi's mass-spring robot in hooke, its
controller in the loop differentiated through the tape's per-step ∂L/∂u, and a short
training (the example's full 100 iterations run in `cargo xtask robot`)."""

import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

import hooke

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "difftaichi_robot.py"


@pytest.fixture(scope="module")
def robot():
    spec = importlib.util.spec_from_file_location("difftaichi_robot", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["difftaichi_robot"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_the_robot_is_difftaichis_robot_c(robot):
    r = robot.robot_c()
    assert (len(r.nodes), len(r.springs)) == (20, 46)
    assert r.muscles == [0, 1, 6, 7, 12, 13, 27, 28]
    assert r.nodes[robot.HEAD] == (0.2, 0.1)
    # Every spring at its nodes' distance; the muscles the lattice's vertical sides.
    for a, b, rest, muscle in r.springs:
        (xa, ya), (xb, yb) = r.nodes[a], r.nodes[b]
        assert rest == pytest.approx(np.hypot(xa - xb, ya - yb), abs=1e-15)
        if muscle:
            assert xa == pytest.approx(xb) and rest == pytest.approx(0.05)


def _loss(robot, scene, net, steps):
    sim = hooke.Simulation(scene)
    return -float(robot.forward(sim, net, robot.robot_c().muscles, steps).head[-1, 0])


def _check(robot, scene, steps, rtol):
    """The tape's ∂L/∂(weights) along a random direction against central differences of
    the closed-loop rollout."""
    r = robot.robot_c()
    net = robot.Network.initial(len(r.nodes), len(r.springs))
    _, grads, _ = robot.loss_and_gradient(scene, net, r.muscles, steps)
    rng = np.random.default_rng(3)
    direction = [rng.standard_normal(w.shape) for w in net.arrays()]
    tape = sum(float(np.sum(g * d)) for g, d in zip(grads, direction))

    def at(eps):
        moved = robot.Network(*[w + eps * d for w, d in zip(net.arrays(), direction)])
        return _loss(robot, scene, moved, steps)

    eps = 3e-3
    differences = (at(eps) - at(-eps)) / (2 * eps)
    print(tape, differences)
    assert tape == pytest.approx(differences, rel=rtol)
    return tape


def test_the_controller_in_the_loop_is_differentiated(robot):
    # Without the ground (the contact set cannot change), 200 steps: the feedback inputs'
    # share (∂π/∂x)ᵀ·du goes back through every state. float32 differences: 1e-3.
    doc = json.loads(robot.scene(robot.robot_c()).to_json())
    del doc["ground"]
    free = hooke.Scene.from_json(json.dumps(doc))
    _check(robot, free, 200, 1e-3)


def test_without_the_feedback_term_the_gradient_is_wrong(robot):
    # The same check with the state's share of the controller dropped fails: the test
    # above sees it.
    doc = json.loads(robot.scene(robot.robot_c()).to_json())
    del doc["ground"]
    free = hooke.Scene.from_json(json.dumps(doc))
    original = robot.Backward.at_step

    def weights_only(self, step, x, v, du):
        if len(du):
            self.through_network(step, du)
        return None, None

    robot.Backward.at_step = weights_only
    try:
        with pytest.raises(AssertionError):
            _check(robot, free, 200, 1e-3)
    finally:
        robot.Backward.at_step = original


def test_a_per_step_callable_with_three_arguments_gets_no_du(robot):
    sim = hooke.Simulation(robot.scene(robot.robot_c()))
    with sim.tape() as t:
        for _ in range(5):
            sim.set_actuation(np.full(8, 0.5))
            sim.step(1)
    seen, seen4 = [], []

    def three(step, x, v):
        seen.append(step)
        return None, None

    def four(step, x, v, du):
        seen4.append((step, du.copy()))
        return None, None

    t.backward(dx=np.ones((20, 3)), per_step=three)
    assert seen == [5, 4, 3, 2, 1]
    t.backward(dx=np.ones((20, 3)), per_step=four)
    assert [s for s, _ in seen4] == [5, 4, 3, 2, 1]
    assert len(seen4[0][1]) == 0  # no step starts at the final state
    du = np.array([d for _, d in seen4[1:]])
    # The same ∂L/∂u as grad("control.actuation") for steps 2..5 (open loop: nothing adds).
    assert du == pytest.approx(t.grad("control.actuation")[4:0:-1], rel=1e-12, abs=0)


def test_ten_iterations_walk_the_robot_as_far_as_difftaichis_do(robot):
    # DiffTaichi's own script reaches 0.19 m after 10 iterations (its iteration 9 travels
    # 0.186 m; hooke's 0.187 m on the machine that wrote this); untrained, 0.012 m.
    h = robot.train(10, log=lambda *_: None)
    assert h["distance"][0] == pytest.approx(0.0122, abs=1e-3)
    assert h["final_distance"] > 0.17
    assert all(b > a for a, b in zip(h["distance"][:6], h["distance"][1:6]))
