"""Gymnasium environments on hooke's soft creatures (needs ``pip install gymnasium``).

``hooke/Walker-v0``: seed 004's four-node walker on rough ground, its two contracting
springs turned into muscles the agent drives. ``hooke/Inchworm-v0``: the inchworm's
sixteen muscles, driven by the agent instead of sines.

* observation: the node positions relative to the centre of mass [m], the node velocities
  [m/s] and the sensors' outputs (0 or 1), flattened, float32;
* action: one control value per muscle channel in [-1, 1]; a muscle's rest length is
  L·(1 + amplitude·action);
* reward: the centre of mass's forward (+x) progress per second of simulated time [m/s],
  minus ``action_cost`` times the mean squared action;
* an episode is truncated after ``episode_seconds`` of simulated time, and terminated if the
  simulation diverges (reward −10).

Registered on import of this module (``import hooke.envs``), which ``import hooke`` does
when gymnasium is installed. :class:`VectorCreatureEnv` steps many copies through
:func:`hooke.step_many`.
"""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._native import DivergedError, Scene, Simulation, step_many
from ._native import scene as builtin_scene

# The walker's two springs that its controllers contract (seed 004): muscles here.
_WALKER_MUSCLES = (2, 3)


def walker_scene(amplitude: float = 0.3) -> Scene:
    """The walker with its controllers replaced by two channel-driven muscles."""
    d = json.loads(builtin_scene("walker").to_json())
    d.pop("controllers", None)
    d["muscles"] = [{"spring": s, "amplitude": amplitude, "channel": i} for i, s in enumerate(_WALKER_MUSCLES)]
    return Scene.from_json(json.dumps(d))


def inchworm_scene() -> Scene:
    """The inchworm with each sine-driven muscle on its own channel instead."""
    d = json.loads(builtin_scene("inchworm").to_json())
    d["muscles"] = [
        {"spring": m["spring"], "amplitude": m["amplitude"], "channel": i} for i, m in enumerate(d["muscles"])
    ]
    return Scene.from_json(json.dumps(d))


class CreatureEnv(gym.Env):
    """A hooke creature driven through its muscles' channels (see the module's text)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 25}

    def __init__(
        self,
        scene: Scene,
        control_dt: float = 0.04,
        episode_seconds: float = 10.0,
        action_cost: float = 0.01,
        render_mode: str | None = None,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.scene = scene
        self.render_mode = render_mode
        self.action_cost = action_cost
        probe = Simulation(scene, threads=1)
        self.steps_per_action = max(1, round(control_dt / probe.dt))
        self.control_dt = self.steps_per_action * probe.dt
        self.max_actions = max(1, round(episode_seconds / self.control_dt))
        self.sim = probe
        n, channels, sensors = probe.nodes, probe.channels, len(probe.sensors())
        self.action_space = spaces.Box(-1.0, 1.0, shape=(channels,), dtype=np.float32)
        size = 6 * n + sensors
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self._actions = 0

    def _observe(self) -> np.ndarray:
        x, v = self.sim.positions, self.sim.velocities
        rel = x - x.mean(axis=0)
        return np.concatenate([rel.ravel(), v.ravel(), self.sim.sensors()]).astype(np.float32)

    def _com_x(self) -> float:
        return float(self.sim.positions[:, 0].mean())

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.sim = Simulation(self.scene, threads=1)
        # A small random push (±1 mm/s per node) so that seeds give different episodes.
        jitter = self.np_random.uniform(-1e-3, 1e-3, size=(self.sim.nodes, 3))
        self.sim.set_velocities(self.sim.velocities + jitter)
        self.sim.set_actuation(np.zeros(self.action_space.shape[0]))
        self._actions = 0
        return self._observe(), {"time": self.sim.time}

    def step(self, action):
        start = self._act(action)
        try:
            self.sim.step(self.steps_per_action)
        except DivergedError as e:
            return self._outcome(start, str(e))
        return self._outcome(start)

    def _act(self, action) -> tuple[float, np.ndarray]:
        """Sets the muscles from `action` for the next interval; returns where the centre
        of mass starts and the clipped action, for :meth:`_outcome`."""
        a = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
        start = (self._com_x(), a)
        self.sim.set_actuation(a)
        self._actions += 1
        return start

    def _outcome(self, start, diverged: str | None = None):
        """(observation, reward, terminated, truncated, info) after the interval begun by
        :meth:`_act`; `diverged` is the diagnosis if the simulation blew up."""
        truncated = self._actions >= self.max_actions
        if diverged is not None:
            return self._observe_safe(), -10.0, True, truncated, {"diverged": diverged}
        x0, a = start
        progress = (self._com_x() - x0) / self.control_dt
        reward = progress - self.action_cost * float(np.mean(a**2)) if a.size else progress
        return self._observe(), float(reward), False, truncated, {"time": self.sim.time, "progress": progress}

    def _observe_safe(self) -> np.ndarray:
        obs = self._observe()
        return np.nan_to_num(obs, nan=0.0, posinf=0.0, neginf=0.0)

    def render(self):
        if self.render_mode == "rgb_array":
            return self.sim.render(width=480, height=360)
        return None


class WalkerEnv(CreatureEnv):
    """``hooke/Walker-v0``: the four-node walker, two muscles."""

    def __init__(self, render_mode: str | None = None, **kwargs):
        super().__init__(walker_scene(), render_mode=render_mode, **kwargs)


class InchwormEnv(CreatureEnv):
    """``hooke/Inchworm-v0``: the inchworm, sixteen muscles."""

    def __init__(self, render_mode: str | None = None, **kwargs):
        super().__init__(inchworm_scene(), render_mode=render_mode, **kwargs)


class VectorCreatureEnv(gym.vector.VectorEnv):
    """``num_envs`` copies of a creature env stepped together by :func:`hooke.step_many`
    (all cores, the GIL released). An episode that ends is reset in the same step (its
    final observation in ``infos["final_obs"]``)."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def __init__(self, make_env, num_envs: int):
        self.envs = [make_env() for _ in range(num_envs)]
        self.num_envs = num_envs
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(self, *, seed=None, options=None):
        seeds = [None] * self.num_envs if seed is None else [seed + i for i in range(self.num_envs)]
        obs = [env.reset(seed=s)[0] for env, s in zip(self.envs, seeds)]
        return np.stack(obs), {}

    def step(self, actions):
        starts = [env._act(a) for env, a in zip(self.envs, np.asarray(actions))]
        diverged = (-1, None)
        try:
            step_many([env.sim for env in self.envs], self.envs[0].steps_per_action)
        except DivergedError as e:
            diverged = (e.index, str(e))
        obs, rewards, terms, truncs, finals = [], [], [], [], {}
        for i, (env, start) in enumerate(zip(self.envs, starts)):
            o, r, term, trunc, _ = env._outcome(start, diverged[1] if i == diverged[0] else None)
            if term or trunc:
                finals[i] = o
                o = env.reset()[0]
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
        infos = {"final_obs": finals} if finals else {}
        return np.stack(obs), np.array(rewards), np.array(terms), np.array(truncs), infos


def _register():
    for name, entry in (("hooke/Walker-v0", "WalkerEnv"), ("hooke/Inchworm-v0", "InchwormEnv")):
        if name not in gym.registry:
            gym.register(id=name, entry_point=f"hooke.envs:{entry}")


_register()
