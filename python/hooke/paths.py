"""Scene paths: the dotted field paths ``hooke check`` names in its errors.

``settings.dt``, ``springs[3].k``, ``nodes[*].mass`` (``[*]``: every element),
``settings.gravity[1]``. :func:`set_value` writes a value at a path of a scene's JSON
document; the scene's own validation (:meth:`hooke.Scene.from_json`) then checks the
value and names the path when it is wrong.
"""

from __future__ import annotations

import re
from typing import Any

from ._native import SceneError

_TOKEN = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\*|\d+)\]")

Key = str | int | None  # None stands for [*]


def parse(path: str) -> list[Key]:
    """The keys of ``path``: field names, list indices, and ``None`` for ``[*]``.

    Raises :class:`hooke.SceneError` naming the path when it is not a path.
    """
    keys: list[Key] = []
    at = 0
    while at < len(path):
        m = _TOKEN.match(path, at)
        if m is None or (at == 0 and path.startswith(".")):
            raise SceneError(
                f"{path}: not a scene path (expected fields and indices such as "
                f"settings.dt, springs[3].k or nodes[*].mass)"
            )
        name, index = m.groups()
        keys.append(name if name is not None else (None if index == "*" else int(index)))
        at = m.end()
    if not keys or not isinstance(keys[0], str):
        raise SceneError(f"{path}: a scene path starts with a field name, e.g. settings.dt")
    return keys


def set_value(doc: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``path`` in the scene document ``doc`` (a scene file's JSON as dicts and
    lists) to ``value``; ``[*]`` sets it in every element. A field a dict does not have
    yet is added (the scene's validation rejects unknown ones, naming them).

    Raises :class:`hooke.SceneError` naming the path when an index is out of range or
    a field is not a dict or list.
    """
    _set(doc, parse(path), value, path, "")


def _set(node: Any, keys: list[Key], value: Any, path: str, done: str) -> None:
    key, rest = keys[0], keys[1:]
    if isinstance(key, str):
        if not isinstance(node, dict):
            raise SceneError(f"{path}: {done or 'the scene'} has no fields (it is {_kind(node)})")
        here = f"{done}.{key}" if done else key
        if not rest:
            node[key] = value
            return
        if key not in node:
            raise SceneError(f"{path}: the scene has no {here}")
        _set(node[key], rest, value, path, here)
        return
    if not isinstance(node, list):
        raise SceneError(f"{path}: {done} is not a list (it is {_kind(node)})")
    indices = range(len(node)) if key is None else [key]
    for i in indices:
        if i >= len(node):
            raise SceneError(
                f"{path}: {done} has {len(node)} element(s), so index {i} is out of range"
            )
        if rest:
            _set(node[i], rest, value, path, f"{done}[{i}]")
        else:
            node[i] = value


def _kind(v: Any) -> str:
    return {dict: "a table", list: "a list"}.get(type(v), f"the value {v!r}")
