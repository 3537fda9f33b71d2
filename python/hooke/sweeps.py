"""Parameter sweeps: many variants of one scene, one row of metrics each.

:func:`sweep` builds every variant first (a bad path or value fails before anything
runs, naming the path), runs them in batches side by side on this machine's cores (or as
Ray tasks, :mod:`hooke.sweep_ray`), and returns a pandas DataFrame with a row per variant.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from . import metrics as _metrics
from . import sweep_files
from ._native import DivergedError, Scene, SceneError, Simulation, load, set_paths

#: Samples a run keeps for the metrics (positions, strains, energy), more for ``period``.
SAMPLES = 100
PERIOD_SAMPLES = 1000
#: Variants per Ray task by default: enough to hide a task's overhead.
RAY_BATCH = 8


@dataclass
class Variant:
    """One variant: its number in the sweep, its parameter values, its scene, the steps it
    runs, and what the metrics read of its scene (node masses \\[kg], gravity \\[m/s²])."""

    index: int
    values: dict[str, Any]
    scene: Scene
    steps: int
    masses: np.ndarray
    gravity: np.ndarray

    @staticmethod
    def of(index: int, base: str, values: Mapping[str, Any], steps: int | None, duration: float | None = None) -> "Variant":
        """Variant `index`: the scene `base` (a scene file's JSON) with `values` set, for
        `steps`, or `duration` over its own dt, or its own duration."""
        text = _with_values(base, values)
        scene = Scene.from_json(text)
        doc = json.loads(text)
        n = steps if steps is not None else round((duration or scene.duration) / scene.dt)
        masses = np.array([node.get("mass", 0.0) for node in doc["nodes"]], dtype=np.float64)
        gravity = np.array(doc["settings"].get("gravity", [0.0, -9.81, 0.0]), dtype=np.float64)
        return Variant(index, dict(values), scene, max(int(n), 1), masses, gravity)


def designs(params: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The variants' parameter values: the full grid of a dict of lists (the first path
    varies slowest), or a list of dicts as given (any design, e.g. a Latin hypercube)."""
    if isinstance(params, Mapping):
        keys = list(params)
        for k in keys:
            if isinstance(params[k], (str, bytes)) or not isinstance(params[k], Iterable):
                raise ValueError(f"params[{k!r}]: give a list of values, not {params[k]!r}")
        grid = [dict(zip(keys, values)) for values in itertools.product(*(list(params[k]) for k in keys))]
        if not grid:
            raise ValueError("params: no variants (a path has no values, or no path is given)")
        return grid
    out = [dict(d) for d in params]
    if not out:
        raise ValueError("params: an empty list of variants")
    return out


def base_json(scene: Scene | str | os.PathLike[str]) -> str:
    """The scene (or the scene file at a path) as its file's JSON text."""
    if isinstance(scene, (str, os.PathLike)):
        scene = load(scene)
    if not isinstance(scene, Scene):
        raise TypeError(f"scene: a hooke.Scene or a scene file's path, not {type(scene).__name__}")
    return scene.to_json()


def variants(
    scene: Scene | str | os.PathLike[str],
    params: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]],
    duration: float | None = None,
    steps: int | None = None,
) -> list[Variant]:
    """Every variant built and validated, with the steps it will run: `steps`, or
    `duration` over its own dt, or the scene's own duration. Raises
    :class:`hooke.SceneError` naming the variant and the path of a bad path or value."""
    return _variants(base_json(scene), params, duration, steps)


def _variants(base: str, params: Any, duration: float | None, steps: int | None) -> list[Variant]:
    if duration is not None and steps is not None:
        raise ValueError("give duration or steps, not both")
    if duration is not None and not (math.isfinite(duration) and duration > 0):
        raise ValueError(f"duration: {duration} is not a positive number of seconds")
    if steps is not None and steps < 1:
        raise ValueError(f"steps: {steps} is not a positive number of steps")
    out = []
    for i, values in enumerate(designs(params)):
        try:
            out.append(Variant.of(i, base, values, steps, duration))
        except SceneError as e:
            raise SceneError(f"variant {i} ({_describe(values)}): {e}") from None
    return out


def build(base: str, values: Mapping[str, Any]) -> Scene:
    """The scene `base` (a scene file's JSON) with `values` set at their paths."""
    return Scene.from_json(_with_values(base, values))


def _with_values(base: str, values: Mapping[str, Any]) -> str:
    """The scene JSON `base` with `values` set at their scene paths (the grammar of the
    CLI's ``--set``: ``settings.dt``, ``springs[3].k``, ``nodes[*].mass``)."""
    pairs = [(path, json.dumps(_plain(value))) for path, value in values.items()]
    return set_paths(base, pairs)


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as the plain numbers and lists JSON takes."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _describe(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


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


def sweep(
    scene: Scene | str | os.PathLike[str],
    params: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]],
    metrics: Any,
    duration: float | None = None,
    steps: int | None = None,
    backend: str = "local",
    address: str | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    batch: int | None = None,
):
    """Runs every variant of `scene` that `params` describes and measures `metrics`.

    `params`: a dict of scene paths to lists of values (the full grid; ``nodes[*].mass``
    sets every node's mass), or a list of dicts (any design). `metrics`: built-in names
    (``com_distance``, ``final_kinetic``, ``max_strain``, ``energy_drift``, ``period``,
    ``diverged``; see :mod:`hooke.metrics`) or callables ``f(sim) -> float`` given the
    finished :class:`hooke.Simulation`. Each variant runs `steps`, or `duration` seconds
    over its own dt, or the scene's duration. `batch`: variants run side by side (default:
    four per core).

    Returns a pandas DataFrame indexed by the variant's number (its place in `params`):
    a column per parameter path, a column per metric, then ``steps`` (taken),
    ``wall_time`` (its batch's wall time shared among the batch's variants, s),
    ``status`` (``ok``, ``diverged`` or ``error``) and ``message`` (the divergence report
    or the error). A variant that diverges is a row, not an exception. Raises :class:`hooke.SceneError` naming the variant and path of a bad
    parameter before anything runs.

    `backend`: ``"local"`` (this machine's cores; no Ray needed) or ``"ray"`` (batches as
    Ray tasks, the scene sent once, results streamed back as tasks finish, a lost worker's
    batch retried; :mod:`hooke.sweep_ray`). `address` (Ray only): None joins this
    process's Ray instance or starts a local one, ``"auto"`` joins a running cluster,
    ``"ray://host:10001"`` a remote one. `batch` defaults to 8 variants per Ray task.

    `out`: a folder; ``results.parquet`` there is rewritten as batches finish (at most
    every 2 s, and ``results.csv`` at the end), so a sweep killed half-way loses at most
    the last two seconds' rows, and
    ``resume=True`` runs only the variants missing from it (the folder must hold the same
    sweep; without `resume` a folder with results is refused, never overwritten).
    """
    import pandas as pd

    if backend not in ("local", "ray"):
        raise ValueError(f"backend {backend!r}: 'local' (this machine) or 'ray' (a Ray cluster)")
    if address is not None and backend != "ray":
        raise ValueError("address: only the 'ray' backend joins a cluster; pass backend='ray'")
    wanted = _metrics.resolve(metrics)
    base = base_json(scene)
    todo = _variants(base, params, duration, steps)
    size = batch or (RAY_BATCH if backend == "ray" else 4 * (os.cpu_count() or 1))
    if size < 1:
        raise ValueError(f"batch: {batch} is not a positive number of variants")
    columns = list(dict.fromkeys(k for v in todo for k in v.values))
    columns += [name for name, _ in wanted] + ["steps", "wall_time", "status", "message"]
    folder = None
    if out is not None:
        ident = sweep_files.identity(
            base, [v.values for v in todo], [n for n, _ in wanted], [v.steps for v in todo]
        )
        folder = sweep_files.Folder(out, ident, resume)
        finished = folder.finished()
        todo = [v for v in todo if v.index not in finished]
    earlier = folder.done if folder is not None else pd.DataFrame(columns=columns)
    if backend == "ray":
        from . import sweep_ray

        batches = sweep_ray.run(base, todo, wanted, size, address)
    else:
        batches = ((part, run_batch(part, wanted)) for part in _chunks(todo, size))
    parts, seen = [earlier], set(earlier.index)
    for part, rows in _progress(batches, len(todo)):
        keep = [(v.index, row) for v, row in zip(part, rows) if v.index not in seen]  # once each, retried or not
        seen.update(i for i, _ in keep)
        index = pd.Index([i for i, _ in keep], name="variant")
        parts.append(pd.DataFrame([row for _, row in keep], columns=columns, index=index))
        if folder is not None:
            folder.save(lambda: _table(parts))
    table = _table(parts)
    if folder is not None:
        folder.save(lambda: table, final=True)
        folder.save_csv(table)
    return table


def _table(parts: list[Any]):
    """The rows so far as one table, by variant."""
    import pandas as pd

    table = pd.concat([p for p in parts if not p.empty] or parts[:1]).sort_index()
    table.index.name = "variant"
    return table


def _chunks(todo: list[Variant], size: int) -> Iterable[list[Variant]]:
    for start in range(0, len(todo), size):
        yield todo[start : start + size]


def _progress(batches: Iterable[tuple[list[Variant], Any]], total: int) -> Iterable[tuple[list[Variant], Any]]:
    """The batches as they finish, with a progress bar (tqdm) counting variants."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        yield from batches
        return
    with tqdm(total=total, unit="variant", disable=None, desc="sweep") as bar:
        for part, rows in batches:
            yield part, rows
            bar.update(len(part))
