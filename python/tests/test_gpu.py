"""backend="gpu" (issue 16): Simulation and step_many on the GPU through wgpu — Mesa's
lavapipe in CI — against the CPU."""

import numpy as np
import pytest

import hooke


def gap(a, b):
    """The largest distance between two position arrays [m]."""
    return float(np.max(np.linalg.norm(a.astype(np.float64) - b.astype(np.float64), axis=1)))


def test_a_gpu_simulation_steps_like_the_cpu():
    scene = hooke.scene("cloth", width=16, height=16)
    cpu, gpu = hooke.Simulation(scene), hooke.Simulation(scene, backend="gpu")
    assert "on the GPU" in repr(gpu)
    for _ in range(3):
        cpu.step(300)
        gpu.step(300)
        assert (gpu.steps, gpu.time) == (cpu.steps, cpu.time)
        assert gap(gpu.positions, cpu.positions) < 1e-4
    assert gap(cpu.positions, hooke.Simulation(scene).positions) > 0.01, "it moved"


def test_setting_the_state_from_python_reaches_the_gpu():
    scene = hooke.scene("cloth", width=8, height=8)
    cpu, gpu = hooke.Simulation(scene), hooke.Simulation(scene, backend="gpu")
    unkicked = hooke.Simulation(scene, backend="gpu")
    for s in (cpu, gpu, unkicked):
        s.step(50)
    kick = np.zeros((64, 3), dtype=cpu.velocities.dtype)
    kick[:, 2] = 0.5
    for s in (cpu, gpu):
        s.set_velocities(s.velocities + kick)
    for s in (cpu, gpu, unkicked):
        s.step(100)
    assert gap(gpu.positions, cpu.positions) < 1e-4
    assert gap(gpu.positions, unkicked.positions) > 1e-3, "the kick was stepped from"


def test_recorded_frames_come_back_from_the_gpu():
    scene = hooke.scene("string")
    cpu, gpu = hooke.Simulation(scene), hooke.Simulation(scene, backend="gpu")
    for s in (cpu, gpu):
        s.record(25)
        s.step(200)
    a, b = cpu.trajectory(), gpu.trajectory()
    assert a.shape == b.shape == (9, 80, 3)
    assert max(gap(p, q) for p, q in zip(a, b)) < 1e-4


def test_step_many_on_the_gpu_is_one_batch_equal_to_the_single_runs():
    scenes = [hooke.scene("cloth", width=10 + i, height=8) for i in range(3)]
    scenes.append(hooke.scene("cloth-on-sphere", nodes=10, collisions="off"))
    batched = [hooke.Simulation(s) for s in scenes]
    hooke.step_many(batched, 400, backend="gpu")
    for s, b in zip(scenes, batched):
        alone = hooke.Simulation(s, backend="gpu")
        alone.step(400)
        assert b.steps == 400
        assert np.array_equal(alone.positions, b.positions), "bit for bit"
        cpu = hooke.Simulation(s)
        cpu.step(400)
        assert gap(cpu.positions, b.positions) < 1e-3


def test_what_the_gpu_does_not_cover_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="does not cover node collisions"):
        hooke.Simulation(hooke.scene("cloth-on-sphere"), backend="gpu")
    with pytest.raises(ValueError, match="backward-euler integrator"):
        hooke.Simulation(hooke.scene("cloth"), integrator="backward-euler", backend="gpu")
    with pytest.raises(ValueError, match='"tpu" is not a backend'):
        hooke.Simulation(hooke.scene("cloth"), backend="tpu")
    sims = [hooke.Simulation(hooke.scene("cloth")), hooke.Simulation(hooke.scene("balloon"))]
    with pytest.raises(ValueError, match="balloon: the GPU backend does not cover gas pressure"):
        hooke.step_many(sims, 10, backend="gpu")
    assert sims[0].steps == 0, "nothing stepped"


def test_a_diverging_gpu_run_raises_diverged_error():
    sim = hooke.Simulation(hooke.scene("cloth", width=6, height=6), dt=0.05, backend="gpu")
    with pytest.raises(hooke.DivergedError) as e:
        sim.step(2000)
    # Read back once, at the end of the call: by then the numbers may have overflowed.
    assert e.value.cause in ("non-finite", "growing") and e.value.step is not None
    sim = hooke.Simulation(hooke.scene("cloth", width=6, height=6), dt=0.01, backend="gpu")
    with pytest.raises(hooke.DivergedError) as e:
        for _ in range(500):
            sim.step(1)  # read back every step: the growth watchdog stops it before overflow
    assert e.value.cause == "growing", str(e.value)


def test_muscles_on_the_gpu_follow_set_actuation_like_the_cpu():
    """The Gymnasium inchworm (each muscle on its own channel) driven by actuation values
    set between steps, as hooke.envs drives it."""
    from hooke.envs import inchworm_scene

    scene = inchworm_scene()
    cpu, gpu = hooke.Simulation(scene), hooke.Simulation(scene, backend="gpu")
    assert gpu.channels >= 2
    for k in range(4):
        u = np.array([0.8 - 0.5 * k, -0.6 + 0.4 * k] + [0.3] * (gpu.channels - 2))
        for s in (cpu, gpu):
            s.set_actuation(u)
            s.step(250)
        assert gap(gpu.positions, cpu.positions) < 1e-3
