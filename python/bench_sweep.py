"""How hooke.sweep scales: variants per second of a walker sweep on 1 and 2 local cores and
on Ray with 1 and 2 hosts, the per-task overhead of Ray and the batch that hides it
(docs/scaling.md). Run as root (the two hosts are network namespaces):

    pip install "./python[ray]"
    python python/bench_sweep.py [--variants 192] [--duration 10]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

# Run as a script, this folder comes first on sys.path, and its hooke/ lacks the built
# native module: import the installed package instead.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
import hooke  # noqa: E402
from hooke.sweeps import run_batch, variants  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "tests"))
import two_hosts  # noqa: E402

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")


def designs(n: int) -> list[dict]:
    """`n` walkers with different stride delays (all walk)."""
    return [{"controllers[*].delay": 150 + 10 * (i % 30)} for i in range(n)]


def local(n: int, duration: float, cores: int) -> float:
    """Variants per second on `cores` local cores (batches of four per core)."""
    todo = variants(hooke.scene("walker"), designs(n), duration=duration)
    wanted = [("com_distance", "com_distance")]
    t0 = time.perf_counter()
    size = 4 * cores
    for start in range(0, n, size):
        run_batch(todo[start : start + size], wanted, threads=cores)
    return n / (time.perf_counter() - t0)


RAY_DRIVER = """
import json, sys, time, ray, hooke
sys.path.append({bench!r})
from bench_sweep import designs
ray.init(address={address!r}, _node_ip_address={node!r}, logging_level="WARNING")
# Workers up, with hooke imported in each.
hooke.sweep(hooke.scene("walker"), designs(8), ["com_distance"], steps=1, backend="ray", batch=1)
t0 = time.perf_counter()
hooke.sweep(hooke.scene("walker"), designs({n}), ["com_distance"], duration={duration}, backend="ray", batch={batch})
rate = {n} / (time.perf_counter() - t0)
t0 = time.perf_counter()
hooke.sweep(hooke.scene("walker"), designs({tasks}), ["com_distance"], steps=1, backend="ray", batch=1)
per_task = (time.perf_counter() - t0) / {tasks}
print(json.dumps({{"rate": rate, "per_task": per_task, "cpus": ray.cluster_resources().get("CPU")}}))
"""


def ray_rate(prefix: list[str], address: str, node: str, n: int, duration: float, batch: int) -> dict:
    """Variants per second and wall time per one-variant task on the Ray cluster at
    `address`, from a driver run through `prefix` (a host)."""
    script = RAY_DRIVER.format(bench=str(pathlib.Path(__file__).parent), address=address, node=node, n=n,
                               duration=duration, batch=batch, tasks=4 * n)
    r = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def ray_one_node(n: int, duration: float, batch: int) -> dict:
    """The same on a one-node Ray instance with 1 CPU on this machine."""
    temp = tempfile.mkdtemp(prefix="rb", dir="/tmp")
    ray_bin = str(pathlib.Path(sys.executable).with_name("ray"))
    node = subprocess.Popen([ray_bin, "start", "--head", "--port", "6380", "--num-cpus", "1", "--temp-dir", temp,
                             "--include-dashboard", "false", "--object-store-memory", "300000000",
                             "--disable-usage-stats", "--block"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        time.sleep(8)
        return ray_rate([], "127.0.0.1:6380", "127.0.0.1", n, duration, batch)
    finally:
        two_hosts.stop(node)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", type=int, default=192)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    n, d = args.variants, args.duration
    rows = {"local, 1 core": local(n, d, 1), "local, 2 cores": local(n, d, 2)}
    one = ray_one_node(n, d, args.batch)
    rows["Ray, 1 host (1 CPU)"] = one["rate"]
    with tempfile.TemporaryDirectory() as logs, two_hosts.cluster(pathlib.Path(logs)) as in_head:
        two = ray_rate(in_head, f"{two_hosts.HEAD}:6379", two_hosts.HEAD, n, d, args.batch)
    rows["Ray, 2 hosts (1 CPU each)"] = two["rate"]
    per_variant = 1 / rows["local, 1 core"]
    print(f"walker, {d:g} s simulated ({round(d / 1e-3)} steps) per variant, {n} variants, Ray batches of {args.batch}")
    print("| where | variants/s | against 1 local core |")
    print("|---|---|---|")
    for name, rate in rows.items():
        print(f"| {name} | {rate:.1f} | {rate * per_variant:.2f}× |")
    overhead = two["per_task"] * 2  # two CPUs run tasks side by side
    print(f"one variant on one core: {1e3 * per_variant:.1f} ms")
    print(f"Ray, a one-variant task of 1 step: {1e3 * one['per_task']:.1f} ms of wall time on 1 CPU, "
          f"{1e3 * overhead:.1f} ms per CPU on 2 hosts")
    print(f"batch for overhead <= 10%: {max(1, round(10 * max(one['per_task'], overhead) / per_variant))} variants")


if __name__ == "__main__":
    main()
