"""hooke.sweep on Ray: the same table as the local backend, bit for bit; and a two-host
cluster (two network namespaces joined by a veth pair) whose worker host is lost
mid-sweep, every variant still arriving exactly once. Every Ray process a test starts is
stopped when it ends, passed or failed."""

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pandas as pd
import pytest

import hooke

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import two_hosts  # noqa: E402

try:
    import ray
except ImportError:
    raise ImportError("the Ray tests need Ray: pip install './python[test]' (cargo xtask test installs it)") from None

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")

PARAMS = {"springs[0].k": [50.0, 100.0, 200.0, 400.0], "settings.dt": [1e-3, 5e-4, 0.5]}
METRICS = ["period", "max_strain", "energy_drift", "final_kinetic", "diverged"]


@pytest.fixture
def local_ray(tmp_path):
    """A Ray instance on this machine (2 CPUs), shut down after the test."""
    tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # Ray's socket paths must stay short
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=300_000_000, _temp_dir=tmp,
             logging_level="WARNING")
    try:
        yield
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


def test_the_ray_backend_gives_the_local_table_bit_for_bit(local_ray):
    local = hooke.sweep(hooke.scene("oscillator"), PARAMS, METRICS, duration=3.0)
    on_ray = hooke.sweep(hooke.scene("oscillator"), PARAMS, METRICS, duration=3.0, backend="ray", batch=3)
    pd.testing.assert_frame_equal(local.drop(columns="wall_time"), on_ray.drop(columns="wall_time"))
    assert list(on_ray["status"]).count("diverged") >= 1, "the dt = 0.5 s variants include divergences"


def test_the_ray_backend_runs_callables_on_the_workers(local_ray):
    def worker_pid(sim):
        return float(os.getpid())

    table = hooke.sweep(hooke.scene("oscillator"), {"springs[0].k": [100.0, 200.0, 300.0, 400.0]},
                        [worker_pid], steps=10, backend="ray", batch=1)
    assert (table["worker_pid"] != os.getpid()).all()


DRIVER = """
import os, pathlib, sys, time
import ray, hooke
ray.init(address="{head}:6379", _node_ip_address="{head}", logging_level="WARNING")
gates = pathlib.Path(sys.argv[2])

def node(sim):
    host = float(ray.util.get_node_ip_address().split(".")[-1])
    if host == {worker_octet}:
        # The worker host finishes one variant, then holds the next until the test, told
        # so by worker-holds, has killed the host: the kill always lands mid-sweep, with a
        # variant in hand, however fast the machine.
        try:
            os.close(os.open(gates / "worker-finished-one", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            (gates / "worker-holds").touch()
            give_up = time.time() + 600
            while not (gates / "release").exists() and time.time() < give_up:
                time.sleep(0.1)
    return host

table = hooke.sweep(hooke.scene("cloth"), {{"springs[*].k": [float(k) for k in range(300, 1100, 50)]}},
                    ["max_strain", node], duration=3.0, backend="ray", batch=1, out=sys.argv[1])
print("rows", len(table), "nodes", sorted(set(table["node"])))
"""


def test_a_two_host_cluster_loses_its_worker_mid_sweep_and_every_variant_arrives_once(tmp_path):
    """The worker host finishes a variant, then holds the next (see DRIVER) until its raylet
    is killed; Ray retries the held batch on the head host. The moment of the kill is set
    by the sweep's own progress, not by the machine's speed."""
    if os.geteuid() != 0:
        pytest.skip("two hosts as network namespaces need root")
    assert two_hosts.can_make_namespaces(), "`ip netns add` failed: install iproute2 (cargo xtask test installs it)"
    logs, out, gates = tmp_path / "logs", tmp_path / "out", tmp_path / "gates"
    logs.mkdir()
    gates.mkdir()
    driver = None
    worker_octet = float(two_hosts.WORKER.split(".")[-1])
    with two_hosts.cluster(logs) as in_head:
        try:
            with open(logs / "driver.log", "w") as dl:
                script = DRIVER.format(head=two_hosts.HEAD, worker_octet=worker_octet)
                driver = subprocess.Popen([*in_head, sys.executable, "-c", script, str(out), str(gates)],
                                          stdout=dl, stderr=subprocess.STDOUT, start_new_session=True)
            give_up = time.time() + 300
            while not (gates / "worker-holds").exists():
                log = (logs / "driver.log").read_text(errors="replace")[-4000:]
                assert driver.poll() is None, f"the sweep ended before the worker host held a variant:\n{log}"
                assert time.time() < give_up, f"the worker host held no variant in 300 s:\n{log}"
                time.sleep(0.1)
            results = out / "results.parquet"
            saved_before = len(pd.read_parquet(results)) if results.exists() else 0
            os.kill(two_hosts.raylet_of(two_hosts.WORKER), signal.SIGKILL)
            driver.wait(timeout=300)
        finally:
            (gates / "release").touch()
            two_hosts.stop(driver)
    log = (logs / "driver.log").read_text(errors="replace")
    assert driver.returncode == 0, log[-4000:]
    table = pd.read_parquet(out / "results.parquet")
    assert saved_before < len(table) == 16, "killed mid-sweep (a variant held), finished all the same"
    assert list(table.index) == list(range(16)), "every variant exactly once"
    assert (table["status"] == "ok").all(), table
    assert set(table["node"]) == {1.0, worker_octet}, "tasks landed on both hosts"


def test_the_command_line_runs_on_a_local_ray_instance_it_starts_and_stops(tmp_path):
    env = dict(os.environ, RAY_TMPDIR=tempfile.mkdtemp(prefix="rc", dir="/tmp"))
    r = subprocess.run([sys.executable, "-m", "hooke", "sweep", "oscillator", "--set", "springs[0].k=100,400",
                        "--metric", "period", "--duration", "3", "--ray", "--out", "o"],
                       cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    table = pd.read_parquet(tmp_path / "o/results.parquet")
    assert list(table["period"]) == pytest.approx([0.6283, 0.3142], rel=2e-3)
    shutil.rmtree(env["RAY_TMPDIR"], ignore_errors=True)
