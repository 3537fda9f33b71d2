"""Parameter sweeps: many variants of one scene, one row of metrics each.

:func:`sweep` builds every variant first (a bad path or value fails before anything
runs, naming the path; :mod:`hooke.sweep_variants`), runs them in batches side by side on
this machine's cores (:mod:`hooke.sweep_batch`) or as Ray tasks (:mod:`hooke.sweep_ray`),
and returns a pandas DataFrame with a row per variant.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Sequence

from . import metrics as _metrics
from . import sweep_files
from ._native import Scene
from .sweep_batch import run_batch
from .sweep_variants import Variant, _variants, base_json, build, designs, variants

__all__ = ["sweep", "build", "designs", "variants", "Variant", "run_batch"]

#: Variants per Ray task by default: enough to hide a task's overhead.
RAY_BATCH = 8


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
