"""Gradients from Python: `with sim.tape() as t`, `t.backward`, `t.grad(path)`, the
errors, and `hooke.gradcheck` (central differences along random directions, Warp's
semantics) — on a small sheet whose gradients float32 differences can resolve."""

import json

import numpy as np
import pytest

import hooke

N = 4  # the sheet is N × N nodes


def sheet(integrator="symplectic-euler"):
    """A small sheet hanging from two corners and thrown about: stiffnesses, damping,
    masses and initial velocities that differ, a light wind. Soft and moving, so that
    every parameter moves the loss well above float32's rounding."""
    rng = np.random.default_rng(5)
    nodes, springs = [], []
    for j in range(N):
        for i in range(N):
            n = len(nodes)
            pinned = j == 0 and i in (0, N - 1)
            v = [0.0, 0.0, 0.0] if pinned else rng.uniform(-0.5, 0.5, 3).tolist()
            node = {"x": [0.1 * i, 0.0, 0.1 * j], "v": v, "mass": 0.05 + 0.01 * ((i + j) % 3)}
            if pinned:
                node["pinned"] = True
            nodes.append(node)
            if i + 1 < N:
                springs.append({"a": n, "b": n + 1, "k": 40.0 + 5 * i, "c": 0.02})
            if j + 1 < N:
                springs.append({"a": n, "b": n + N, "k": 30.0 + 5 * j, "c": 0.03})
    doc = {
        "format": "hooke/1",
        "name": "sheet",
        "settings": {"dt": 2e-3, "integrator": integrator, "wind": [0.2, 0.0, 0.0], "air_drag": 0.01},
        "nodes": nodes,
        "springs": springs,
    }
    return hooke.Scene.from_json(json.dumps(doc))


def recorded(steps=30):
    sim = hooke.Simulation(sheet())
    with sim.tape() as t:
        sim.step(steps)
    return sim, t


def test_the_tape_records_the_steps_and_gives_gradients_by_scene_path():
    sim, t = recorded()
    assert t.steps == 30 and sim.steps == 30
    n = sim.nodes
    t.backward(dx=np.tile([0.0, 1.0 / n, 0.0], (n, 1)))
    k = t.grad("springs[*].k")
    assert k.dtype == np.float64 and k.shape == (sheet().springs,)
    assert t.grad("nodes[*].x").shape == (n, 3)
    assert t.grad("nodes[*].x[1]").shape == (n,)
    assert t.grad("nodes[5].v").shape == (3,)
    assert t.grad("springs[2].rest") == t.grad("springs[*].rest")[2]
    # A pinned node is held at rest: its velocity is not a parameter.
    assert np.all(t.grad("nodes[0].v") == 0.0)
    assert np.all(np.isfinite(k)) and np.any(k != 0)


def test_a_loss_at_every_step_adds_up():
    sim, t = recorded(steps=10)
    n = sim.nodes
    a = np.random.default_rng(1).standard_normal((n, 3))
    t.backward(dx=a)
    final_only = t.grad("springs[*].k")
    seen = []

    def at_last_step(step, x, v):
        seen.append(step)
        assert x.shape == (n, 3) and v.shape == (n, 3)
        return (a, None) if step == 10 else (None, None)

    t.backward(per_step=at_last_step)
    assert seen == list(range(10, 0, -1))
    np.testing.assert_array_equal(t.grad("springs[*].k"), final_only)


def test_gradcheck_passes_on_the_sheet_and_fails_on_a_wrong_gradient():
    # Warp's rtol, and no absolute slack: every kind is checked on its own size.
    result = hooke.gradcheck(sheet(), 100, atol=0.0, rtol=1e-2)
    print(result)
    assert result.passed, str(result)
    assert not result.skipped
    assert [r.path for r in result.rows] == list(hooke.gradients.PATHS)

    def wrong(x, v):  # the loss's gradient is off by a factor: the check must notice
        a = np.ones_like(x)
        return float(np.sum(a * x)), 1.5 * a, np.zeros_like(v)

    bad = hooke.gradcheck(sheet(), 100, wrt=["nodes[*].x"], loss=wrong, atol=0.0)
    assert not bad.passed, str(bad)


def test_gradcheck_passes_on_stable_springs():
    # The sheet's springs as Nissen's stable springs (cs, cd within 1/(n + 1) for the
    # four springs a node has at most), but one Hooke spring. float32 differences along a
    # direction whose terms cancel resolve about 1e-4 of these losses, so Warp's default
    # tolerances (atol 1e-3, rtol 1e-2); the tape itself is checked in f64 to 1e-6 by
    # crates/hooke/tests/gradients_stable.rs.
    doc = json.loads(sheet().to_json())
    for s, spring in enumerate(doc["springs"][1:]):
        spring.update(kind="stable", cs=0.1 + 0.01 * (s % 5), cd=0.1 + 0.02 * (s % 3))
        del spring["k"], spring["c"]
    scene = hooke.Scene.from_json(json.dumps(doc))
    wrt = hooke.gradients.STABLE_PATHS + ("nodes[*].mass",)
    result = hooke.gradcheck(scene, 50, wrt=wrt)
    print(result)
    assert [r.path for r in result.rows] == list(wrt)
    assert result.passed, result
    # A Hooke spring has no cs: the check leaves it without one (the scene stays valid).
    assert json.loads(scene.to_json())["springs"][0].get("cs") is None


def test_gradcheck_passes_on_a_string_shaken_by_an_anchor():
    # The built-in string (seed 000), softened and damped so that float32 differences
    # resolve every kind (at c = 0.05 the damping moves this loss by 4e-4, below their
    # noise), its end moved along a sine path (seed 002's anchors); Warp's default
    # tolerances. The tape is checked in f64 to 1e-6 by tests/gradients_anchors.rs.
    doc = json.loads(hooke.scene("string", nodes=8, anchor="end", k=200.0, c=0.5).to_json())
    path = {"type": "sine", "amplitude": [0.03, 0.01, 0.0], "frequency": 1.5}
    doc["anchors"] = [{"node": 0, "path": path}]
    scene = hooke.Scene.from_json(json.dumps(doc))
    result = hooke.gradcheck(scene, 100)
    print(result)
    assert len(result.rows) == 6 and result.passed, result


def test_gradcheck_passes_through_verlet():
    # Velocity Verlet carries the acceleration from step to step; the tape goes back
    # through it (and through the first step's own evaluation of it). Warp's default
    # tolerances; checked in f64 to 1e-5 over 1 000 steps by crates/hooke/tests/gradients.rs.
    result = hooke.gradcheck(sheet("verlet"), 100)
    print(result)
    assert len(result.rows) == 6 and result.passed, result


def test_gradcheck_passes_through_fast_mass_spring():
    # Fast mass-spring differentiated by the adjoint method: the gradient is that of the
    # solved step, so its local/global iterations run to convergence here (200 a step at
    # 1/60 s; its default 10 leave a step that differs by what they did not solve). Warp's
    # default tolerances; the tape is checked in f64 to 1e-5 over 1 000 steps by
    # crates/hooke/tests/gradients.rs.
    doc = json.loads(sheet("fast-mass-spring").to_json())
    doc["settings"].update(dt=1 / 60, iterations=200)
    scene = hooke.Scene.from_json(json.dumps(doc))
    result = hooke.gradcheck(scene, 60)
    print(result)
    assert len(result.rows) == 6 and result.passed, result


def test_fast_mass_springs_own_contact_steps_have_gradients():
    # The sheet swings down onto the ground under fast mass-spring at 1/60 s: its own
    # contact steps, friction springs to anchors carried from step to step (the adjoint
    # in grad/friction_anchors.rs). Checked against differences in f64 to 1e-5 by
    # crates/hooke/tests/gradients_implicit_contact.rs; in float32 a contact step is
    # solved only to about 1e-4 and central differences of contact scatter (as under
    # backward Euler, docs/gradients.md), so here the tape must go back through every
    # step, its adjoint solves solved.
    doc = json.loads(sheet("fast-mass-spring").to_json())
    doc["settings"].update(dt=1 / 60, iterations=2000)
    doc["ground"] = {"normal": [0.0, 1.0, 0.0], "offset": -0.2, "roughness": 0.3,
                     "static_roughness": 0.5}
    for node in doc["nodes"]:
        node["radius"] = 0.01
    sim, on_ground = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc))), []
    with sim.tape() as t:
        for _ in range(40):
            sim.step(1)
            on_ground.append(int((sim.positions[:, 1] < -0.19 + 1e-4).sum()))
    assert max(on_ground) >= 4 and sum(n > 0 for n in on_ground) >= 20, on_ground
    t.backward(dx=np.ones((N * N, 3)))
    assert np.all(t.adjoint_residuals <= 1e-9), t.adjoint_residuals
    assert t.step_residuals.shape == (40,) and np.max(t.step_residuals) <= 1e-3
    for path in ("springs[*].k", "springs[*].rest", "nodes[*].mass", "nodes[*].x"):
        assert np.all(np.isfinite(t.grad(path))) and np.any(t.grad(path) != 0), path


def test_gradcheck_passes_through_a_moving_collider():
    # The sheet falls onto a ball rising under it (a collider on a linear path, with
    # friction): from the 29th of the 100 steps on, up to 8 of its 16 nodes lie on the
    # ball. Warp's default tolerances; the contact adjoint is checked in f64 to 1e-5 on
    # the ground, a terrain, a ball, a tilted box and a moving capsule by
    # crates/hooke/tests/gradients_contact.rs.
    doc = json.loads(sheet().to_json())
    ball = {"shape": "sphere", "center": [0.15, -0.2, 0.25], "radius": 0.15, "roughness": 0.4,
            "path": {"type": "linear", "velocity": [0.0, 0.3, 0.0]}}
    doc["colliders"] = [ball]
    for node in doc["nodes"]:
        node["radius"] = 0.01
    scene = hooke.Scene.from_json(json.dumps(doc))
    sim, on_ball = hooke.Simulation(scene), []
    for _ in range(100):
        sim.step(1)
        centre = np.array(ball["center"]) + np.array([0.0, 0.3 * sim.time, 0.0])
        gap = np.linalg.norm(sim.positions - centre, axis=1) - 0.16
        on_ball.append(int((gap < 1e-5).sum()))
    assert max(on_ball) >= 6 and sum(n > 0 for n in on_ball) >= 60, on_ball
    result = hooke.gradcheck(scene, 100)
    print(result)
    assert len(result.rows) == 6 and result.passed, result


def test_the_gas_of_a_balloon_has_a_gradient():
    # Seed 002's balloon skin (an icosphere filled with an ideal gas) without its string,
    # in zero gravity, squashed by 10% so that it pulses: its final mean radius against
    # its gas's n·R·T, by the tape and by central differences (float32: rtol 1e-2). (On
    # the string, whose damped ropes slacken and tighten, the loss has kinks that float32
    # differences cannot step over.) The tape is checked in f64 to 1e-5 over 1 000 steps,
    # with both gas laws and three integrators, by crates/hooke/tests/gradients_gas.rs.
    doc = json.loads(hooke.scene("balloon").to_json())
    n = 1 + max(i for f in doc["surfaces"][0]["faces"] for i in f)
    doc["nodes"] = doc["nodes"][:n]
    for node in doc["nodes"]:
        node["x"][1] *= 0.9
    doc["springs"] = [s for s in doc["springs"] if max(s["a"], s["b"]) < n]
    doc["settings"].update(gravity=[0.0, 0.0, 0.0], fields=[])

    def radius(nrt):
        doc["surfaces"][0]["pressure"]["nrt"] = nrt
        sim = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc)))
        with sim.tape() as t:
            sim.step(300)
        x = sim.positions.astype(np.float64)
        return float(np.mean(np.linalg.norm(x - x.mean(0), axis=1))), t, x

    _, t, x = radius(20.0)
    u = (x - x.mean(0)) / np.linalg.norm(x - x.mean(0), axis=1)[:, None]
    t.backward(dx=(u - u.mean(0)) / n)  # d(mean radius)/dx, the centre's share included
    tape = t.grad("surfaces[0].pressure.nrt")
    assert t.grad("surfaces[*].pressure.nrt").shape == (1,)
    assert t.grad("surfaces[0].pressure.volume") == 0.0  # an ideal gas has no target
    differences = (radius(20.1)[0] - radius(19.9)[0]) / 0.2
    print(f"d(radius)/d(nRT): tape {tape:.6e}, differences {differences:.6e}")
    assert abs(tape - differences) <= 1e-2 * abs(differences), (tape, differences)


def test_the_walkers_controllers_have_gradients():
    # Seed 004's walker floating in zero gravity: its controllers switch on after their
    # 300-step delay as its length sensor reads, and the tape takes the switches where the
    # run had them. A loss of its state after 800 steps against the controllers' alternate
    # rest lengths, by the tape and by central differences small enough to move no switch
    # (float32: rtol 1e-2). Checked in f64 to 1e-5 over 1 500 steps by
    # crates/hooke/tests/gradients_controllers.rs.
    doc = json.loads(hooke.scene("walker").to_json())
    doc["settings"]["gravity"] = [0.0, 0.0, 0.0]
    del doc["ground"]
    w = np.random.default_rng(0).standard_normal((4, 3))

    def loss(rests):
        for c, r in zip(doc["controllers"], rests):
            c["rest"] = r
        sim = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc)))
        with sim.tape() as t:
            sim.step(800)
        return float(np.sum(w * sim.positions)), t

    rests = np.array([c["rest"] for c in doc["controllers"]])
    _, t = loss(rests)
    t.backward(dx=w)
    g = t.grad("controllers[*].rest")
    assert g.shape == (4,) and np.all(g != 0), g
    assert np.all(t.grad("controllers[*].k") == 0.0)  # the walker's set no stiffness
    d, e = np.array([1.0, -0.5, 0.3, 0.8]), 3e-4
    differences = (loss(rests + e * d)[0] - loss(rests - e * d)[0]) / (2 * e)
    tape = float(g @ d)
    print(f"dL/d(rest)·d: tape {tape:.6e}, differences {differences:.6e}")
    assert abs(tape - differences) <= 1e-2 * abs(differences), (tape, differences)


def test_a_feature_without_a_gradient_is_named():
    sim = hooke.Simulation(sheet("xpbd"))
    with pytest.raises(hooke.NotDifferentiableError, match="xpbd") as e:
        with sim.tape():
            sim.step(1)
    assert e.value.feature == "settings.integrator"


def test_an_edit_inside_the_block_ends_the_recording():
    sim = hooke.Simulation(sheet())
    with pytest.raises(RuntimeError, match="edited"):
        with sim.tape():
            sim.step(2)
            sim.set_positions(sim.positions)
            sim.step(1)
    with pytest.raises(RuntimeError, match="already recording"):
        with sim.tape():
            with sim.tape():
                pass


def test_bad_inputs_get_clear_errors():
    sim, t = recorded(steps=3)
    with pytest.raises(ValueError, match=r"dx: shape \(2, 3\) does not match \(16, 3\)"):
        t.backward(dx=np.zeros((2, 3)))
    with pytest.raises(RuntimeError, match="no gradients yet"):
        t.grad("springs[*].k")
    t.backward()
    with pytest.raises(ValueError, match="gradients are kept for"):
        t.grad("springs[*].break_strain")
    with pytest.raises(IndexError, match="index 99 is out of range"):
        t.grad("nodes[99].mass")
    with pytest.raises(ValueError, match="per_step: expected a pair"):
        t.backward(per_step=lambda step, x, v: 3.0)
    with pytest.raises(RuntimeError, match="nothing recorded yet"):
        hooke.Simulation(sheet()).tape().backward()


def test_muscles_and_the_actuation_of_every_step_have_gradients():
    doc = json.loads(sheet().to_json())
    doc["muscles"] = [
        {"spring": 0, "amplitude": 0.3, "channel": 0},
        {"spring": 5, "amplitude": 0.2, "frequency": 2.0, "phase": 0.5},
    ]
    sim = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc)))
    with sim.tape() as t:
        for step in range(40):
            sim.set_actuation([np.sin(0.1 * step)])  # an input of every step, recorded
            sim.step()
    n = sim.nodes
    t.backward(dx=np.random.default_rng(2).standard_normal((n, 3)))
    u = t.grad("control.actuation")
    assert u.shape == (40, 1) and np.all(np.isfinite(u)) and np.any(u != 0)
    amplitude = t.grad("muscles[*].amplitude")
    assert amplitude.shape == (2,) and np.all(amplitude != 0)
    assert t.grad("muscles[0].frequency") == 0.0  # driven by a channel, not a sine
    assert t.grad("muscles[1].phase") != 0.0


def test_the_programs_forces_of_every_step_have_gradients():
    sim = hooke.Simulation(sheet())
    n = sim.nodes
    with sim.tape() as t:
        for step in range(30):
            sim.set_forces([[0.0, 0.05 * np.sin(0.2 * step), 0.0]] * 2, nodes=[5, 10])
            sim.step()
    t.backward(dx=np.tile([0.0, 1.0, 0.0], (n, 1)))
    f = t.grad("control.forces")
    assert f.shape == (30, 2, 3)
    # Pushing a node up raises the sheet: dL/dF_y > 0 at every step.
    assert np.all(f[:, :, 1] > 0)
    with pytest.raises(IndexError, match="node 99 is not in the scene"):
        sim.set_forces([[0.0, 1.0, 0.0]], nodes=[99])
    with pytest.raises(ValueError, match=r"f: shape \(1, 3\) does not match \(16, 3\)"):
        sim.set_forces([[0.0, 1.0, 0.0]])


def test_backward_euler_has_gradients_and_says_how_well_each_step_was_solved():
    # Backward Euler at 20 ms (ten times the sheet's step), Newton run to convergence:
    # the adjoint method's gradient is that of the solved step, checked by gradcheck.
    doc = json.loads(sheet("backward-euler").to_json())
    doc["settings"].update({"dt": 2e-2, "newton_iterations": 20})
    scene = hooke.Scene.from_json(json.dumps(doc))
    sim = hooke.Simulation(scene)
    with sim.tape() as t:
        sim.step(20)
    t.backward(dx=np.ones((N * N, 3)))
    assert t.adjoint_residuals.shape == (20,)
    assert np.all(t.adjoint_residuals <= 1e-12)
    # What each adjoint solve took: a few GMRES iterations a step.
    assert t.adjoint_iterations.shape == (20,) and t.adjoint_iterations.dtype == np.uint32
    assert np.all((t.adjoint_iterations >= 1) & (t.adjoint_iterations <= 120))
    # What the run left of each step's equations: solved here (to float32's rounding)...
    assert t.step_residuals.shape == (20,)
    assert np.all(t.step_residuals <= 1e-5), t.step_residuals
    # ...and not with the defaults' one Newton iteration, which the tape reports.
    doc["settings"]["newton_iterations"] = 1
    linearised = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc)))
    with linearised.tape() as once:
        linearised.step(20)
    once.backward(dx=np.ones((N * N, 3)))
    assert np.max(once.step_residuals) > 100 * np.max(t.step_residuals), once.step_residuals
    result = hooke.gradcheck(scene, 20, wrt=["springs[*].k", "nodes[*].v"], atol=0.0, rtol=1e-2)
    print(result)
    assert result.passed, str(result)
    _, explicit = recorded()
    explicit.backward(dx=np.ones((N * N, 3)))
    assert explicit.adjoint_residuals.shape == (0,)
    assert explicit.step_residuals.shape == (0,)
