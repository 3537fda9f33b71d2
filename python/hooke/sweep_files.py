"""A sweep's folder: ``results.parquet`` rewritten (atomically) as rows arrive, at most
every two seconds, so a sweep killed half-way loses at most that, and ``sweep.json`` saying which sweep it holds, so that
``resume=True`` runs only the variants missing there and refuses another sweep's folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import time
from typing import Any, Callable

RESULTS = "results.parquet"
#: Seconds between rewrites of the results while a sweep runs: what a kill can lose.
SAVE_EVERY = 2.0
IDENTITY = "sweep.json"


def identity(scene_json: str, designs: list[dict[str, Any]], metric_names: list[str], steps: list[int]) -> dict[str, Any]:
    """What makes two sweeps the same: the scene, the variants, the metrics, the steps."""
    text = json.dumps([scene_json, designs, metric_names, steps], sort_keys=True, default=repr)
    return {
        "fingerprint": hashlib.sha256(text.encode()).hexdigest(),
        "variants": len(designs),
        "metrics": metric_names,
    }


class Folder:
    """The folder `out` of one sweep; `resume` picks up what an earlier run of the same
    sweep saved there. Refuses to overwrite another sweep's results."""

    def __init__(self, out: str | os.PathLike[str], ident: dict[str, Any], resume: bool):
        import pandas as pd

        self.dir = pathlib.Path(out)
        self.results = self.dir / RESULTS
        saved_ident = self.dir / IDENTITY
        self.done = pd.DataFrame()
        self.saved_at = -float("inf")
        if self.results.exists() or saved_ident.exists():
            if not resume:
                raise FileExistsError(
                    f"{self.dir}: holds a sweep's results already ({RESULTS}); "
                    f"pass resume=True (--resume) to finish that sweep, or choose another folder"
                )
            before = json.loads(saved_ident.read_text()) if saved_ident.exists() else {}
            if before.get("fingerprint") != ident["fingerprint"]:
                raise ValueError(
                    f"{saved_ident}: the results there are of another sweep (scene, parameters, "
                    f"metrics or steps differ); resume needs the same sweep, or choose another folder"
                )
            if self.results.exists():
                self.done = pd.read_parquet(self.results)
        self.dir.mkdir(parents=True, exist_ok=True)
        _write_atomic(saved_ident, json.dumps(ident, indent=2).encode())

    def finished(self) -> set[int]:
        """The variants (numbers) already in the results."""
        return set(int(i) for i in self.done.index)

    def save(self, table: Callable[[], Any], final: bool = False) -> None:
        """Writes `table()` (every row so far) as the results, replacing the file whole —
        at most every `SAVE_EVERY` seconds unless `final`, so that a sweep of many small
        batches does not spend its time rewriting (or even assembling) a growing table."""
        now = time.monotonic()
        if not final and now - self.saved_at < SAVE_EVERY:
            return
        self.saved_at = now
        tmp = self.results.with_name(self.results.name + ".tmp")
        table().to_parquet(tmp)
        os.replace(tmp, self.results)

    def save_csv(self, table: Any) -> pathlib.Path:
        path = self.dir / "results.csv"
        tmp = path.with_name(path.name + ".tmp")
        table.to_csv(tmp)
        os.replace(tmp, path)
        return path


def _write_atomic(path: pathlib.Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
