"""Shared fixtures: the `hooke` command line (to compare with) and the bad-scene catalogue."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def hooke_bin():
    """The hooke binary: $HOOKE_BIN, else the debug build in the target folder."""
    path = os.environ.get("HOOKE_BIN")
    if path is None:
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        path = target / "debug" / "hooke"
    path = pathlib.Path(path).resolve()  # the tests run it from other folders
    if not path.exists():
        pytest.fail(f"no hooke binary at {path}: run `cargo build -p hooke-cli` or set HOOKE_BIN")
    return path


@pytest.fixture(scope="session")
def cli(hooke_bin):
    """Runs `hooke ARGS…` in a folder; returns the completed process (text)."""

    def run(args, cwd):
        return subprocess.run([str(hooke_bin), *map(str, args)], cwd=cwd, capture_output=True, text=True)

    return run


@pytest.fixture(scope="session")
def bad_scenes():
    """The CLI's catalogue of malformed scenes: dicts with what, body and expect."""
    return json.loads((ROOT / "crates/hooke-cli/tests/bad_scenes.json").read_text())
