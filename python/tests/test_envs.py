"""The Gymnasium environments and pictures."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hooke
import hooke.envs


@pytest.mark.parametrize("name", ["hooke/Walker-v0", "hooke/Inchworm-v0"])
def test_the_environments_pass_check_env(name):
    env = gym.make(name, render_mode="rgb_array")
    check_env(env.unwrapped, skip_render_check=False)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    frame = env.render()
    assert frame.shape == (360, 480, 3) and frame.dtype == np.uint8
    env.close()


def test_a_random_walker_episode_runs_to_its_time_limit():
    env = gym.make("hooke/Walker-v0", episode_seconds=1.0)
    obs, _ = env.reset(seed=1)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        total += r
        steps += 1
        done = term or trunc
    assert not term and steps == 25 and np.isfinite(total)


def test_walking_forward_is_rewarded():
    """Two muscles squeezed out of phase make the walker move; the reward is its centre of
    mass's velocity, so summed over an episode it is the distance per control interval."""
    env = hooke.envs.WalkerEnv(episode_seconds=4.0)
    env.reset(seed=0)
    xs = [env._com_x()]
    rewards = []
    for k in range(env.max_actions):
        phase = 2 * np.pi * k * env.control_dt
        _, r, _, _, info = env.step(np.array([np.sin(phase), np.sin(phase + np.pi / 2)]))
        rewards.append(info["progress"])
        xs.append(env._com_x())
    assert sum(rewards) * env.control_dt == pytest.approx(xs[-1] - xs[0], rel=1e-3, abs=1e-6)


def test_the_vector_env_equals_the_single_envs():
    n = 4
    vec = hooke.envs.VectorCreatureEnv(lambda: hooke.envs.WalkerEnv(episode_seconds=0.4), n)
    singles = [hooke.envs.WalkerEnv(episode_seconds=0.4) for _ in range(n)]
    obs, _ = vec.reset(seed=10)
    for i, env in enumerate(singles):
        o, _ = env.reset(seed=10 + i)
        assert np.array_equal(obs[i], o)
    rng = np.random.default_rng(0)
    for _ in range(9):
        actions = rng.uniform(-1, 1, size=(n, 2)).astype(np.float32)
        obs, rewards, terms, truncs, _ = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, _ = env.step(actions[i])
            assert np.array_equal(obs[i], o) and r == rewards[i] and (term, trunc) == (terms[i], truncs[i])
    obs, _, _, truncs, infos = vec.step(np.zeros((n, 2)))
    assert truncs.all() and set(infos["final_obs"]) == set(range(n)), "episodes of 10 actions end together"


def test_render_and_gif(tmp_path):
    sim = hooke.Simulation(hooke.scene("cloth", width=10, height=10))
    img = sim.render(width=200, height=150, style="solid", camera=(30, 20))
    assert img.shape == (150, 200, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20, "a picture, not a blank"
    with pytest.raises(ValueError, match="render_gif: fewer than 2 frames"):
        sim.render_gif(tmp_path / "none.gif")
    sim.record(100)
    sim.step(1000)
    sim.render_gif(tmp_path / "cloth.gif", width=160, height=120)
    data = (tmp_path / "cloth.gif").read_bytes()
    assert data[:6] == b"GIF89a" and len(data) > 1000
    with pytest.raises(ValueError, match="camera"):
        sim.render(camera="top")
    with pytest.raises(ValueError, match="style"):
        sim.render(style="glossy")


def test_the_examples_run(tmp_path):
    import importlib.util
    import pathlib

    examples = pathlib.Path(__file__).resolve().parents[1] / "examples"
    names = ["walker_random"]
    if importlib.util.find_spec("matplotlib") is not None:
        names.append("energy_plot")
    for name in names:
        spec = importlib.util.spec_from_file_location(name, examples / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out = tmp_path / f"{name}.{'gif' if name == 'walker_random' else 'png'}"
        module.main(str(out))
        assert out.stat().st_size > 1000
