"""The ``ray`` backend of :func:`hooke.sweep`: batches of variants as Ray tasks.

The scene goes to the cluster once (``ray.put``); each task rebuilds its batch's variants
from it and their values and runs them as the local backend does (so the metrics are the
same, bit for bit), on the cores Ray gave it. Results stream back as tasks finish
(``ray.wait``). A task whose worker or node dies is retried by Ray (``max_retries``); the
sweep keeps each variant's first row. ``address=None`` joins the Ray instance this
process already has, or the one ``RAY_ADDRESS`` names, or starts a local one (stopped at
the end); ``"auto"`` joins a running cluster, ``"ray://host:10001"`` a remote one.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

#: Retries of a task whose worker or node dies.
RETRIES = 3


def _batch_task(base: str, batch: list[tuple[int, dict[str, Any], int]], wanted: list[tuple[str, Any]]):
    """A Ray task: runs one batch on the CPUs Ray assigned it; rows in batch order."""
    import ray

    from .sweep_batch import run_batch
    from .sweep_variants import Variant

    cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1)
    variants = [Variant.of(i, base, values, steps) for i, values, steps in batch]
    return run_batch(variants, wanted, threads=max(1, int(cpus)))


def run(base: str, todo: list, wanted: list[tuple[str, Any]], size: int, address: str | None) -> Iterator[tuple[list, list]]:
    """Yields (variants, rows) per batch as Ray finishes them."""
    try:
        import ray
    except ImportError:
        raise ImportError("backend='ray' needs Ray: pip install 'hooke[ray]' (or pip install ray)") from None
    started = False
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        if address is None and not os.environ.get("RAY_ADDRESS"):
            ray.init(include_dashboard=False, logging_level="WARNING")
        else:
            ray.init(address=address, logging_level="WARNING")
        started = True
    try:
        scene = ray.put(base)
        task = ray.remote(max_retries=RETRIES, num_cpus=1)(_batch_task)
        pending = {}
        for start in range(0, len(todo), size):
            part = todo[start : start + size]
            spec = [(v.index, v.values, v.steps) for v in part]
            pending[task.remote(scene, spec, wanted)] = part
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            part = pending.pop(done[0])
            yield part, ray.get(done[0])
    finally:
        if started:
            ray.shutdown()
