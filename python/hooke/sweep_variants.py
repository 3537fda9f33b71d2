"""A sweep's variants: the grid or design of parameter values, and each variant's scene
(the base scene's JSON with the values set at their scene paths, read and validated
before anything runs)."""

from __future__ import annotations

import itertools
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ._native import Scene, SceneError, load, set_paths


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
