"""A batch of a sweep's variants run side by side on this machine's cores (a thread each,
the GIL released while it steps), and the metrics measured on each."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

from . import metrics as _metrics
from ._native import DivergedError, Simulation
from .sweep_variants import Variant

#: Samples a run keeps for the metrics (positions, strains, energy), more for ``period``.
SAMPLES = 100
PERIOD_SAMPLES = 1000

def run_batch(batch: Sequence[Variant], wanted: list[tuple[str, Any]], threads: int | None = None) -> list[dict[str, Any]]:
    """Runs `batch` side by side on all cores (a thread each, the GIL released while it
    steps) and measures `wanted` ((column, built-in name or callable) pairs); one row per
    variant, in order. `threads`: how many cores to use (default all)."""
    t0 = time.perf_counter()
    cores = threads or os.cpu_count() or 1
    sims = [Simulation(v.scene, threads=threads) for v in batch]
    every = any(m == "period" for _, m in wanted)
    count = PERIOD_SAMPLES if every else SAMPLES
    samples = [_metrics_samples(v, s, every) for v, s in zip(batch, sims)]
    failed: dict[int, tuple[str, str]] = {}
    with ThreadPoolExecutor(max_workers=min(len(sims), cores)) as pool:
        for k in range(1, count + 1):
            targets = [min(v.steps, round(k * v.steps / count)) for v in batch]
            _advance(pool, sims, targets, failed)
            for j, s in enumerate(sims):
                if j not in failed and (not samples[j].times or samples[j].times[-1] != s.time):
                    samples[j].take(s)
    for j, s in enumerate(sims):
        if j not in failed:
            # The watchdog reads every few steps: a last reading judges the run's end too.
            problem = _check(s)
            if problem is not None:
                failed[j] = problem
    wall = time.perf_counter() - t0
    rows = []
    for j, (v, s) in enumerate(zip(batch, sims)):
        status, message = failed.get(j, ("ok", ""))
        row: dict[str, Any] = dict(v.values)
        for name, m in wanted:
            row[name], problem = _measure(m, s, samples[j], status == "diverged")
            if problem and status == "ok":
                status, message = "error", f"metric {name}: {problem}"
        row.update(steps=s.steps, wall_time=wall / len(batch), status=status, message=message)
        rows.append(row)
    return rows


def _metrics_samples(v: Variant, sim: Simulation, every_position: bool) -> _metrics.Samples:
    s = _metrics.Samples(masses=v.masses, gravity=v.gravity, every_position=every_position)
    s.take(sim)
    return s


def _advance(
    pool: ThreadPoolExecutor,
    sims: list[Simulation],
    targets: list[int],
    failed: dict[int, tuple[str, str]],
) -> None:
    """Steps each simulation not yet failed to its target step count, side by side on the
    pool's threads (each step runs with the GIL released, so on every core); records the
    ones that diverge or fail in `failed`, with the report."""
    running = {
        j: pool.submit(_step, sims[j], targets[j] - sims[j].steps)
        for j in range(len(sims))
        if j not in failed and targets[j] > sims[j].steps
    }
    for j, future in running.items():
        problem = future.result()
        if problem is not None:
            failed[j] = problem


def _step(sim: Simulation, n: int) -> tuple[str, str] | None:
    """Steps `sim` by `n`; the status and message of a failure, or None."""
    return _check(sim, lambda: sim.step(n))


def _check(sim: Simulation, action: Callable[[], None] | None = None) -> tuple[str, str] | None:
    """Runs `action` (by default a last watchdog reading, ``check_divergence``); the status
    and message of a failure, or None."""
    try:
        (action or sim.check_divergence)()
    except DivergedError as e:
        return "diverged", str(e)
    except Exception as e:  # noqa: BLE001 - any failure is the variant's, not the sweep's
        return "error", f"{type(e).__name__}: {e}"
    return None


def _measure(m: str | Callable[[Any], float], sim: Simulation, s: _metrics.Samples, diverged: bool) -> tuple[float, str]:
    """A metric's value and, if measuring it failed, why."""
    try:
        if isinstance(m, str):
            return _metrics.value(m, sim, s, diverged), ""
        if diverged:
            return float("nan"), ""
        return float(m(sim)), ""
    except Exception as e:  # noqa: BLE001 - a user's metric failing is that row's error
        return float("nan"), f"{type(e).__name__}: {e}"
