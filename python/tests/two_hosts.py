"""Two hosts on one machine for Ray: network namespaces joined by a veth pair, a Ray head
in one and a worker in the other (STACK.md, "Ray across network namespaces"). Used by
the Ray tests and python/bench_sweep.py; needs root and iproute2's `ip netns`."""

import contextlib
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HEAD, WORKER = "10.77.0.1", "10.77.0.2"


def ip(*args):
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
            ip("netns", "add", ns)
            made.append(ns)
        ip("link", "add", f"v{tag}h", "type", "veth", "peer", "name", f"v{tag}w")
        ip("link", "set", f"v{tag}h", "netns", rh)
        ip("link", "set", f"v{tag}w", "netns", rw)
        ip("-n", rh, "addr", "add", f"{HEAD}/24", "dev", f"v{tag}h")
        ip("-n", rw, "addr", "add", f"{WORKER}/24", "dev", f"v{tag}w")
        for ns, dev in ((rh, f"v{tag}h"), (rw, f"v{tag}w")):
            ip("-n", ns, "link", "set", "lo", "up")
            ip("-n", ns, "link", "set", dev, "up")
        yield (["ip", "netns", "exec", rh], ["ip", "netns", "exec", rw])
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def can_make_namespaces():
    if shutil.which("ip") is None or os.geteuid() != 0:
        return False
    probe = f"hkprobe{os.getpid() % 100000}"
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ok


def ray_start(prefix, args, log):
    """`ray start … --block` in its own session (so the whole node can be killed)."""
    ray_bin = str(pathlib.Path(sys.executable).with_name("ray"))
    return subprocess.Popen([*prefix, ray_bin, "start", *args, "--num-cpus", "1",
                             "--object-store-memory", "300000000", "--disable-usage-stats", "--block"],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_for(path, text, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if text in path.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise AssertionError(f"{path} never said {text!r}:\n{path.read_text(errors='replace')[-3000:]}")


def stop(proc):
    if proc is not None and proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def raylet_of(address):
    """The pid of the raylet serving the node at `address`."""
    out = subprocess.run(["pgrep", "-f", f"raylet.*--node_ip_address={address}"], capture_output=True, text=True)
    pids = [int(p) for p in out.stdout.split()]
    assert pids, f"no raylet for {address}"
    return pids[0]




@contextlib.contextmanager
def cluster(logs: pathlib.Path):
    """A Ray head (1 CPU) on one host and a worker (1 CPU) on the other; yields the command
    prefix that runs on the head host. Every process it started is stopped at the end."""
    temp = pathlib.Path(tempfile.mkdtemp(prefix="rh", dir="/tmp"))  # Ray's socket paths stay short
    head = worker = None
    with two_hosts() as (in_head, in_worker):
        try:
            with open(logs / "head.log", "w") as hl:
                head = ray_start(in_head, ["--head", "--node-ip-address", HEAD, "--port", "6379",
                                           "--temp-dir", str(temp / "h"), "--include-dashboard", "false"], hl)
            wait_for(logs / "head.log", "Ray runtime started", 90)
            with open(logs / "worker.log", "w") as wl:
                worker = ray_start(in_worker, ["--address", f"{HEAD}:6379", "--node-ip-address", WORKER,
                                               "--temp-dir", str(temp / "w")], wl)
            wait_for(logs / "worker.log", "Ray runtime started", 90)
            yield in_head
        finally:
            stop(worker)
            stop(head)
            shutil.rmtree(temp, ignore_errors=True)
