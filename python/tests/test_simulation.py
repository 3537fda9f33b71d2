"""Simulation: stepping, numpy in and out, energy, strains, pinning, checkpoints, errors."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hooke

REAL = np.float32 if hooke.PRECISION == "f32" else np.float64


def test_positions_and_velocities_are_numpy_arrays():
    sim = hooke.Simulation(hooke.scene("cloth", width=5, height=4))
    x, v = sim.positions, sim.velocities
    assert x.shape == v.shape == (20, 3) and x.dtype == v.dtype == REAL
    sim.step(10)
    assert (sim.steps, sim.time) == (10, pytest.approx(10 * sim.dt))
    assert not np.array_equal(sim.positions, x), "a copy, not a view that moves"


@pytest.mark.parametrize("k", [10.0, 100.0, 1000.0, 10000.0])
@pytest.mark.parametrize("mass", [0.5, 2.0])
def test_oscillator_period_is_two_pi_root_m_over_k(k, mass):
    """The oscillator's moving node swings with the closed-form period T = 2π√(m/k)
    (gravity only moves the equilibrium); measured from the upward crossings of its mean
    height over ten periods, within 0.5%."""
    sim = hooke.Simulation(hooke.scene("oscillator", k=k, mass=mass))
    period = 2 * math.pi * math.sqrt(mass / k)
    sim.record(1)
    sim.run(10.5 * period)
    y = sim.trajectory()[:, 1, 1].astype(np.float64)
    y -= y.mean()
    up = np.nonzero((y[:-1] < 0) & (y[1:] >= 0))[0]
    crossings = up + (-y[up] / (y[up + 1] - y[up]))  # linear interpolation, in steps
    measured = np.diff(crossings).mean() * sim.dt
    assert measured == pytest.approx(period, rel=0.005)


@pytest.mark.parametrize(
    "scene",
    [
        ("oscillator", {}),
        ("cloth", {"width": 12, "height": 10}),
        ("cloth-on-sphere", {"nodes": 12}),
        ("walker", {}),
        ("jelly", {"nx": 3, "ny": 3, "nz": 3, "integrator": "backward-euler"}),
    ],
    ids=lambda s: s[0],
)
def test_the_same_steps_give_the_clis_final_state_bit_for_bit(scene, cli, tmp_path):
    name, params = scene
    steps = 300
    args = ["run", name, "--steps", steps, "--out", tmp_path, "--quiet"]
    for k, v in params.items():
        args += ["-p", f"{k}={v}"]
    out = cli(args, tmp_path)
    assert out.returncode == 0, out.stderr
    sim = hooke.Simulation(hooke.scene(name, **params))
    sim.step(steps)
    ref = hooke.Simulation(hooke.load(tmp_path / "final.json"))
    assert ref.steps == sim.steps == steps
    assert np.array_equal(sim.positions, ref.positions)
    assert np.array_equal(sim.velocities, ref.velocities)


@pytest.mark.parametrize("integrator", ["symplectic-euler", "verlet", "rk4", "backward-euler", "xpbd"])
def test_integrator_and_dt_overrides_as_the_cli(integrator, cli, tmp_path):
    out = cli(["run", "oscillator", "--integrator", integrator, "--dt", "0.002", "--steps", 200,
               "--out", tmp_path, "--quiet"], tmp_path)
    assert out.returncode == 0, out.stderr
    sim = hooke.Simulation(hooke.scene("oscillator"), integrator=integrator, dt=0.002)
    sim.step(200)
    ref = hooke.Simulation(hooke.load(tmp_path / "final.json"))
    assert np.array_equal(sim.positions, ref.positions)


def test_threads_do_not_change_the_result():
    runs = []
    for threads in (1, 2, None):
        sim = hooke.Simulation(hooke.scene("cloth", width=24, height=24), threads=threads)
        sim.step(200)
        runs.append(sim.positions)
    assert all(np.array_equal(runs[0], r) for r in runs[1:])


def test_a_checkpoint_resumes_bit_for_bit(tmp_path):
    sim = hooke.Simulation(hooke.scene("walker"))
    sim.step(500)
    cp = sim.checkpoint()
    cp.save(tmp_path / "cp.json")
    sim.step(500)
    again = hooke.Simulation(hooke.load(tmp_path / "cp.json"))
    assert again.steps == 500
    again.step(500)
    assert np.array_equal(again.positions, sim.positions)
    assert np.array_equal(again.velocities, sim.velocities)
    # The energy audit goes on from the checkpoint: the same books, to the bit.
    assert again.audit() == sim.audit()


def test_energy_and_strains():
    sim = hooke.Simulation(hooke.scene("oscillator", k=100.0, mass=1.0, amplitude=0.1))
    e = sim.energy()
    assert set(e) >= {"kinetic", "gravity", "spring", "pressure", "total"}
    assert e["total"] == pytest.approx(e["kinetic"] + e["gravity"] + e["spring"] + e["pressure"] + e["field"])
    # At rest, stretched by the weight mg/k plus the amplitude below the equilibrium.
    stretch = 9.81 * 1.0 / 100.0 + 0.1
    assert sim.spring_lengths()[0] == pytest.approx(1.0 + stretch, rel=1e-5)
    assert sim.spring_strains()[0] == pytest.approx(stretch, rel=1e-5)
    assert e["spring"] == pytest.approx(0.5 * 100.0 * stretch**2, rel=1e-5)


def test_set_positions_and_velocities():
    sim = hooke.Simulation(hooke.scene("cloth", width=4, height=4))
    x = sim.positions + 0.25
    sim.set_positions(x.astype(np.float64))  # any float type is converted
    assert np.array_equal(sim.positions, x.astype(REAL))
    sim.set_velocities(np.ones((16, 3)))
    assert np.all(sim.velocities == 1)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (np.zeros((15, 3)), "shape (15, 3) does not match (16, 3)"),
        (np.zeros((16, 2)), "shape (16, 2) does not match (16, 3)"),
        (np.zeros(48), "expected an array of numbers of shape (16, 3)"),
        (np.full((16, 3), np.nan), "positions[0, 0]: NaN is not finite"),
        (np.array([["a"] * 3] * 16), "expected an array of real numbers, got ndarray of shape (16, 3) and dtype <U1"),
        (np.ones((16, 3), dtype=complex), "expected an array of real numbers"),
        ("nodes", "expected an array of numbers"),
    ],
)
def test_bad_positions_are_refused_and_change_nothing(value, words):
    sim = hooke.Simulation(hooke.scene("cloth", width=4, height=4))
    before = sim.positions
    with pytest.raises(ValueError) as e:
        sim.set_positions(value)
    assert words.lower() in str(e.value).lower()
    assert np.array_equal(sim.positions, before)


@settings(max_examples=150, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.int64, np.complex128, np.bool_]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=20),
        elements=None,
    )
)
def test_any_array_is_taken_whole_or_refused_whole(a):
    """Wrong shapes, types, NaN and infinities: set_positions either takes the array as it
    is (the right shape, finite numbers) or raises ValueError and changes nothing; never a
    crash, never a partly written state."""
    sim = hooke.Simulation(hooke.scene("cloth", width=4, height=4))
    before = sim.positions
    try:
        sim.set_positions(a)
    except ValueError:
        assert np.array_equal(sim.positions, before)
        return
    assert a.shape == (16, 3) and a.dtype.kind in "iuf"
    assert np.array_equal(sim.positions, a.astype(REAL))
    assert np.all(np.isfinite(sim.positions))


def test_pin_and_unpin():
    sim = hooke.Simulation(hooke.scene("cloth", width=4, height=4, pin="none"))
    sim.pin(5)
    here = sim.positions[5]
    sim.step(100)
    assert np.array_equal(sim.positions[5], here)
    sim.unpin(5)
    sim.step(100)
    assert not np.array_equal(sim.positions[5], here)
    with pytest.raises(IndexError, match="node 16: the scene has 16 nodes"):
        sim.pin(16)


MUSCLE = """{"format": "hooke/1", "settings": {"dt": 0.001, "gravity": [0, 0, 0]},
  "nodes": [{"x": [0, 0, 0], "pinned": true}, {"x": [1, 0, 0], "mass": 1}],
  "springs": [{"a": 0, "b": 1, "k": 100, "c": 5}],
  "muscles": [{"spring": 0, "amplitude": 0.5, "channel": 0}]}"""


def test_actuation_sets_a_muscles_rest_length():
    """A muscle on channel 0 with amplitude 0.5: actuation 1 makes the rest length
    L·(1 + 0.5) = 1.5 m, and the damped spring settles there."""
    sim = hooke.Simulation(hooke.Scene.from_json(MUSCLE))
    assert sim.channels == 1
    sim.set_actuation([1.0])
    sim.run(5.0)
    assert sim.spring_lengths()[0] == pytest.approx(1.5, abs=1e-4)
    assert sim.spring_strains()[0] == pytest.approx(0.0, abs=1e-4)
    with pytest.raises(ValueError, match="2 values for 1 channels"):
        sim.set_actuation([1.0, 0.0])
    with pytest.raises(ValueError, match=r"actuation\[0\]: NaN is not finite"):
        sim.set_actuation([float("nan")])


def test_sensors_are_read():
    sim = hooke.Simulation(hooke.scene("walker"))
    sim.step(10)
    s = sim.sensors()
    assert s.ndim == 1 and len(s) > 0 and set(np.unique(s)) <= {0.0, 1.0}


def test_divergence_raises_with_a_diagnosis():
    sim = hooke.Simulation(hooke.scene("cloth", width=8, height=8, k=1e5), integrator="explicit-euler", dt=0.01)
    with pytest.raises(hooke.DivergedError) as e:
        sim.step(10_000)
    err = e.value
    assert isinstance(err, RuntimeError)
    assert "diverged" in str(err) and err.integrator == "explicit-euler" and err.dt == pytest.approx(0.01)
    assert err.node is not None and err.suggested_dt is not None and err.suggested_dt < 0.01
    assert np.all(np.isfinite(sim.positions)), "the last good state is kept"
    assert sim.steps == err.step


def test_bad_overrides():
    s = hooke.scene("oscillator")
    with pytest.raises(hooke.SceneError, match="integrator: .*rk5"):
        hooke.Simulation(s, integrator="rk5")
    with pytest.raises(ValueError, match="dt: -1"):
        hooke.Simulation(s, dt=-1.0)
    with pytest.raises(ValueError, match="threads: 0"):
        hooke.Simulation(s, threads=0)
    with pytest.raises(hooke.SceneError, match="settings.substeps"):
        hooke.Simulation(s, substeps=0)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_creating_and_dropping_ten_thousand_simulations_keeps_memory_flat():
    scene = hooke.scene("cloth", width=8, height=8)

    def churn(n):
        for _ in range(n):
            sim = hooke.Simulation(scene, threads=1)
            sim.step(2)
            _ = sim.positions
            del sim

    churn(1000)  # warm-up: allocator pools, the shared thread pool
    before = _rss_bytes()
    churn(10_000)
    growth = _rss_bytes() - before
    print(f"resident memory growth over 10,000 simulations: {growth / 1e6:.2f} MB")
    assert growth < 4e6


def test_step_many_equals_stepping_one_by_one():
    def sims():
        return [hooke.Simulation(hooke.scene("walker", length=0.12 + 0.01 * i)) for i in range(6)] + [
            hooke.Simulation(hooke.scene("cloth", width=10, height=10))
        ]

    together, alone = sims(), sims()
    hooke.step_many(together, 400)
    for s in alone:
        s.step(400)
    for a, b in zip(together, alone):
        assert a.steps == b.steps == 400
        assert np.array_equal(a.positions, b.positions) and np.array_equal(a.velocities, b.velocities)


def test_step_many_reports_the_first_diverged_and_steps_the_rest():
    good = hooke.Simulation(hooke.scene("oscillator"))
    bad = hooke.Simulation(hooke.scene("cloth", width=6, height=6, k=1e5), integrator="explicit-euler", dt=0.01)
    with pytest.raises(hooke.DivergedError) as e:
        hooke.step_many([good, bad, good2 := hooke.Simulation(hooke.scene("oscillator"))], 2000)
    assert e.value.index == 1
    assert good.steps == good2.steps == 2000


def test_step_many_refuses_a_simulation_twice():
    sim = hooke.Simulation(hooke.scene("oscillator"))
    with pytest.raises(ValueError, match=r"sims\[1\]: this simulation is already in the list"):
        hooke.step_many([sim, sim], 10)
    assert sim.steps == 0


def test_there_is_one_sensor_value_per_sensor_from_the_start():
    sim = hooke.Simulation(hooke.scene("walker"))
    assert sim.sensors().tolist() == [0.0]
    sim.step(1)
    assert len(sim.sensors()) == 1


@settings(max_examples=150, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.int64, np.complex128, np.bool_]),
        shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
        elements=None,
    )
)
def test_any_actuation_is_taken_whole_or_refused_whole(a):
    """set_actuation on the one-channel muscle: the right length of finite real numbers is
    taken; anything else raises ValueError and the muscle keeps its value."""
    sim = hooke.Simulation(hooke.Scene.from_json(MUSCLE))
    sim.set_actuation([0.5])
    sim.step(10)
    try:
        sim.set_actuation(a)
    except ValueError:
        sim.step(1)
        ref = hooke.Simulation(hooke.Scene.from_json(MUSCLE))
        ref.set_actuation([0.5])
        ref.step(11)
        assert np.array_equal(sim.positions, ref.positions), "a refused value changed nothing"
        return
    assert a.shape == (1,) and a.dtype.kind in "iuf" and np.isfinite(a).all()


def test_the_audit_balances_the_books():
    sim = hooke.Simulation(hooke.scene("cloth", width=12, height=12))
    sim.run(0.5)
    a = sim.audit()
    assert a["damping"] < 0 and a["air"] < 0, a
    assert a["now"] - a["start"] == pytest.approx(a["work_in"] - a["work_out"] + a["residual"], abs=1e-9)
    assert abs(a["relative_residual"]) < 0.01, a
    assert a["numerical"] == 0 and a["gain"] <= a["stake"], a


def test_the_audit_books_backward_eulers_numerical_dissipation():
    sim = hooke.Simulation(hooke.scene("cloth", width=12, height=12), integrator="backward-euler", dt=1 / 60)
    sim.run(1.0)
    a = sim.audit()
    assert a["numerical"] < 0, a
    assert a["now"] - a["start"] == pytest.approx(a["work_in"] - a["work_out"] + a["residual"], abs=1e-9)
    assert abs(a["relative_residual"]) < 0.05, a


def test_the_watchdog_raises_a_divergence_error_with_its_report():
    sim = hooke.Simulation(hooke.scene("cloth-on-sphere"), integrator="implicit-midpoint", dt=1 / 60)
    with pytest.raises(hooke.DivergenceError) as e:
        sim.run(3.0)
    err = e.value
    assert err.cause == "energy-gain", str(err)
    assert err.history and err.last_good is not None and err.audit is not None
    assert "backward-euler" in str(err)


def quarter_turns_about_y(a):
    """The unit quaternion (x, y, z, w) of a turn by `a` rad about +y, and its matrix."""
    q = [0.0, math.sin(a / 2), 0.0, math.cos(a / 2)]
    r = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    return q, r


def test_a_collider_placed_by_the_program_carries_the_cloth_and_is_kept_in_a_checkpoint():
    # The sphere under the cloth, lifted 0.2 m and turned a quarter turn about its own
    # vertical axis over 0.4 s (backward Euler at 1/60 s): a pose turns about the scene's
    # origin, so the translation that keeps the centre c on its axis is c + lift − R·c
    # (or `about=c`, checked at the end). The cloth on it goes up with it, no faster than
    # the sphere's surface moves, the work it does is booked (the watchdog lets the run go
    # on), and a checkpoint keeps it.
    scene = hooke.scene("cloth-on-sphere", nodes=12)
    c = np.array(json.loads(scene.to_json())["colliders"][0]["center"], dtype=float)
    sim = hooke.Simulation(scene, integrator="backward-euler", dt=1 / 60)
    sim.step(60)  # the cloth lands on the sphere
    y_before = sim.positions[:, 1].max()
    steps = 24
    for s in range(1, steps + 1):
        q, r = quarter_turns_about_y(0.5 * math.pi * s / steps)
        lift = np.array([0.0, 0.2 * s / steps, 0.0])
        sim.place_collider(0, c + lift - r @ c, q)
        sim.step()
        # The sphere's surface moves at most ω·0.3 m + 0.5 m/s = 1.7 m/s.
        assert np.linalg.norm(sim.velocities, axis=1).max() < 2.5
    t, q = sim.collider_pose(0)
    assert np.allclose(t, c + [0.0, 0.2, 0.0] - quarter_turns_about_y(math.pi / 2)[1] @ c, atol=1e-5)
    assert np.allclose(q, [0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)], atol=1e-6)
    assert sim.positions[:, 1].max() > y_before + 0.15
    # Lifting the cloth is work put in, booked: kinematic (m·g·Δh and the cloth's speed).
    assert sim.audit()["kinematic"] > 0.1
    resumed = hooke.Simulation(sim.checkpoint())
    t2, q2 = resumed.collider_pose(0)
    assert np.array_equal(t, t2) and np.array_equal(q, q2)
    resumed.step(5)
    sim.step(5)
    assert np.array_equal(resumed.positions, sim.positions)
    sim.place_collider(0, [0.0, 0.3, 0.0], q, about=c)
    sim.step()
    assert np.allclose(sim.collider_pose(0)[0], t + [0.0, 0.1, 0.0], atol=1e-5)
    with pytest.raises(hooke.SceneError, match=r"control.colliders\[3\]: 3 is not a collider"):
        sim.place_collider(3, [0.0, 0.0, 0.0])
    with pytest.raises(hooke.SceneError, match="not a unit quaternion"):
        sim.place_collider(0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0])
    with pytest.raises(IndexError, match="1 is not a collider"):
        sim.collider_pose(1)
