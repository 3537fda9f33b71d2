"""hooke.sweep on Ray: the same table as the local backend, bit for bit; and a two-host
cluster (two network namespaces joined by a veth pair) whose worker host is lost
mid-sweep, every variant still arriving exactly once. Every Ray process a test starts is
stopped when it ends, passed or failed."""

import contextlib
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

ray = pytest.importorskip("ray")

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


# --- Two hosts --------------------------------------------------------------------------

HEAD, WORKER = "10.77.0.1", "10.77.0.2"


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def two_hosts():
    """Namespaces rh (head, 10.77.0.1) and rw (worker, 10.77.0.2) joined by a veth pair;
    yields the command prefix that runs in each; deleted afterwards."""
    tag = str(os.getpid() % 100000)
    rh, rw = f"hk{tag}h", f"hk{tag}w"
    made = []
    try:
        for ns in (rh, rw):
            _ip("netns", "add", ns)
            made.append(ns)
        _ip("link", "add", f"v{tag}h", "type", "veth", "peer", "name", f"v{tag}w")
        _ip("link", "set", f"v{tag}h", "netns", rh)
        _ip("link", "set", f"v{tag}w", "netns", rw)
        _ip("-n", rh, "addr", "add", f"{HEAD}/24", "dev", f"v{tag}h")
        _ip("-n", rw, "addr", "add", f"{WORKER}/24", "dev", f"v{tag}w")
        for ns, dev in ((rh, f"v{tag}h"), (rw, f"v{tag}w")):
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", dev, "up")
        yield (["ip", "netns", "exec", rh], ["ip", "netns", "exec", rw])
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _can_make_namespaces():
    if shutil.which("ip") is None or os.geteuid() != 0:
        return False
    probe = f"hkprobe{os.getpid() % 100000}"
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ok


def _ray_start(prefix, args, log):
    """`ray start … --block` in its own session (so the whole node can be killed)."""
    ray_bin = str(pathlib.Path(sys.executable).with_name("ray"))
    return subprocess.Popen([*prefix, ray_bin, "start", *args, "--num-cpus", "1",
                             "--object-store-memory", "300000000", "--disable-usage-stats", "--block"],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _wait_for(path, text, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if text in path.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise AssertionError(f"{path} never said {text!r}:\n{path.read_text(errors='replace')[-3000:]}")


def _stop(proc):
    if proc is not None and proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _raylet_of(address):
    """The pid of the raylet serving the node at `address`."""
    out = subprocess.run(["pgrep", "-f", f"raylet.*--node_ip_address={address}"], capture_output=True, text=True)
    pids = [int(p) for p in out.stdout.split()]
    assert pids, f"no raylet for {address}"
    return pids[0]


# The driver runs on the head host; each variant (a 32×32 cloth for 3 s) takes about a
# second, so the worker host has tasks in flight when it is lost.
DRIVER = """
import sys, ray, hooke
ray.init(address="{head}:6379", _node_ip_address="{head}", logging_level="WARNING")
def node(sim):
    return float(ray.util.get_node_ip_address().split(".")[-1])
table = hooke.sweep(hooke.scene("cloth"), {{"springs[*].k": [float(k) for k in range(300, 1100, 50)]}},
                    ["max_strain", node], duration=3.0, backend="ray", batch=1, out=sys.argv[1])
print("rows", len(table), "nodes", sorted(set(table["node"])))
"""


@pytest.mark.skipif(not _can_make_namespaces(), reason="needs root and `ip netns` (iproute2)")
def test_a_two_host_cluster_loses_its_worker_mid_sweep_and_every_variant_arrives_once(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    temp = pathlib.Path(tempfile.mkdtemp(prefix="rh", dir="/tmp"))
    head = worker = driver = None
    with two_hosts() as (in_head, in_worker):
        try:
            with open(logs / "head.log", "w") as hl:
                head = _ray_start(in_head, ["--head", "--node-ip-address", HEAD, "--port", "6379",
                                            "--temp-dir", str(temp / "h"), "--include-dashboard", "false"], hl)
            _wait_for(logs / "head.log", "Ray runtime started", 90)
            with open(logs / "worker.log", "w") as wl:
                worker = _ray_start(in_worker, ["--address", f"{HEAD}:6379", "--node-ip-address", WORKER,
                                                "--temp-dir", str(temp / "w")], wl)
            _wait_for(logs / "worker.log", "Ray runtime started", 90)
            out = tmp_path / "out"
            with open(logs / "driver.log", "w") as dl:
                driver = subprocess.Popen([*in_head, sys.executable, "-c", DRIVER.format(head=HEAD), str(out)],
                                          stdout=dl, stderr=subprocess.STDOUT, start_new_session=True)
                # Mid-sweep: once some rows are saved, the worker host's raylet dies.
                deadline = time.time() + 120
                while time.time() < deadline and driver.poll() is None:
                    results = out / "results.parquet"
                    if results.exists() and len(pd.read_parquet(results)) >= 3:
                        break
                    time.sleep(0.2)
                saved_before = len(pd.read_parquet(out / "results.parquet"))
                os.kill(_raylet_of(WORKER), signal.SIGKILL)
                driver.wait(timeout=240)
            log = (logs / "driver.log").read_text(errors="replace")
            assert driver.returncode == 0, log[-4000:]
            table = pd.read_parquet(out / "results.parquet")
            assert saved_before < len(table) == 16, "killed mid-sweep, finished all the same"
            assert list(table.index) == list(range(16)), "every variant exactly once"
            assert (table["status"] == "ok").all(), table
            assert set(table["node"]) == {1.0, 2.0}, "tasks landed on both hosts"
            print(log.strip().splitlines()[-1])
        finally:
            _stop(driver)
            _stop(worker)
            _stop(head)
            shutil.rmtree(temp, ignore_errors=True)


def test_the_command_line_runs_on_a_local_ray_instance_it_starts_and_stops(tmp_path):
    env = dict(os.environ, RAY_TMPDIR=tempfile.mkdtemp(prefix="rc", dir="/tmp"))
    r = subprocess.run([sys.executable, "-m", "hooke", "sweep", "oscillator", "--set", "springs[0].k=100,400",
                        "--metric", "period", "--duration", "3", "--ray", "--out", "o"],
                       cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    table = pd.read_parquet(tmp_path / "o/results.parquet")
    assert list(table["period"]) == pytest.approx([0.6283, 0.3142], rel=2e-3)
    shutil.rmtree(env["RAY_TMPDIR"], ignore_errors=True)
