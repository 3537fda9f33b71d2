"""A random policy on hooke/Walker-v0 for two seconds, saved as a GIF.

    pip install "./python[envs]"
    python python/examples/walker_random.py [out.gif]
"""

import sys

import gymnasium as gym

import hooke  # noqa: F401  (registers the environments)


def main(out: str = "walker-random.gif") -> None:
    env = gym.make("hooke/Walker-v0", episode_seconds=2.0)
    env.reset(seed=0)
    sim = env.unwrapped.sim
    sim.record(every=env.unwrapped.steps_per_action)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        total += reward
        done = terminated or truncated
    sim.render_gif(out, width=480, height=360)
    print(f"return {total:.4f} over {sim.time:.2f} s; wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
