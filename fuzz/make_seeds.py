#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/seed-*) from the built-in
scenes, the bad-input catalogue of the command line's tests and the meshes in scenes/.

Usage: python3 fuzz/make_seeds.py [HOOKE_BINARY]   (default: target/release/hooke)
"""
import json
import pathlib
import random
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
HOOKE = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/hooke")
CORPUS = ROOT / "fuzz/corpus"

# Built-ins made small (a seed should be a few kB: libFuzzer mutates it byte by byte).
SMALL = {
    "cloth": ["--width", "4", "--height", "3"],
    "string": ["--nodes", "6"],
    "jelly": ["--nx", "2", "--ny", "2", "--nz", "3"],
    "oscillator": [],
    "cloth-on-sphere": ["--nodes", "4", "--integrator", "fast-mass-spring"],
    "tear": [],
    "walker": [],
    "inchworm": [],
    "balloon": [],
    "flag": [],
    "finish-line": [],
    "jelly-mesh": [],
}


def hooke(*args):
    return subprocess.run([HOOKE, *args], check=True, capture_output=True, text=True).stdout


def seed(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data if isinstance(data, bytes) else data.encode())


def small_scenes():
    """Each built-in as a small scene file, when it can be made small."""
    out = {}
    for name, params in SMALL.items():
        try:
            text = hooke("scene", name, *params)
        except subprocess.CalledProcessError:
            continue
        if len(text) <= 48_000:
            out[name] = text
    return out


def glb(doc, bin_chunk):
    """A binary glTF: header, JSON chunk, BIN chunk, each padded to 4 bytes."""
    j = json.dumps(doc).encode()
    j += b" " * (-len(j) % 4)
    b = bin_chunk + b"\0" * (-len(bin_chunk) % 4)
    body = struct.pack("<II", len(j), 0x4E4F534A) + j + struct.pack("<II", len(b), 0x004E4942) + b
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body


def glb_edge_seeds():
    """Well-formed GLBs with the features the gltf crate's readers trip on when a number is
    changed (found by fuzzing): interleaved (strided) views, a sparse accessor without a
    view, u8 indices, normalised u16 texture coordinates, a node hierarchy with matrices."""
    pos = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]
    # Interleaved: position (12 bytes) then uv (u16 × 2, 4 bytes), stride 16.
    inter = b"".join(struct.pack("<3f2H", *pos[3 * i:3 * i + 3], 65535 * (i % 2), 65535 * (i // 2))
                     for i in range(4))
    idx = bytes([0, 1, 2, 2, 1, 3])
    bin_chunk = inter + idx + b"\0\0" + struct.pack("<2H", 1, 3) + struct.pack("<6f", 1, 0, 0, 1, 1, 0)
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(bin_chunk)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 64, "byteStride": 16},
            {"buffer": 0, "byteOffset": 64, "byteLength": 6},
            {"buffer": 0, "byteOffset": 72, "byteLength": 4},
            {"buffer": 0, "byteOffset": 76, "byteLength": 24},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 0, "byteOffset": 12, "componentType": 5123, "normalized": True,
             "count": 4, "type": "VEC2"},
            {"bufferView": 1, "componentType": 5121, "count": 6, "type": "SCALAR"},
            {"componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0],
             "max": [1, 1, 0], "sparse": {"count": 2,
                "indices": {"bufferView": 2, "componentType": 5123},
                "values": {"bufferView": 3}}},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1},
                                    "indices": 2}]},
                   {"primitives": [{"attributes": {"POSITION": 3}, "indices": 2}]}],
        "nodes": [{"children": [1, 2], "matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 2, 0, 1]},
                  {"mesh": 0, "translation": [0, 0, 1], "scale": [2, 2, 2]},
                  {"children": [3], "rotation": [0, 0.7071, 0, 0.7071]},
                  {"mesh": 1}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }
    seed("glb_mesh", "edges", glb(doc, bin_chunk))


def main():
    scenes = small_scenes()
    for name, text in scenes.items():
        seed("scene_json", name, text)
    cases = json.loads((ROOT / "crates/hooke-cli/tests/bad_scenes.json").read_text())
    for i, case in enumerate(cases):
        seed("scene_json", f"bad-{i:02}", case["body"])
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in scenes.items():
            scene = pathlib.Path(tmp) / f"{name}.json"
            scene.write_text(text)
            out = pathlib.Path(tmp) / name
            hooke("run", str(scene), "--steps", "7", "-q", "-o", str(out))
            seed("checkpoint", name, (out / "final.json").read_bytes())
        for name in ["cloth", "balloon", "jelly-mesh"]:
            out = pathlib.Path(tmp) / f"glb-{name}"
            sets = [f"--set={k[2:]}={v}" for k, v in zip(SMALL[name][::2], SMALL[name][1::2])]
            hooke("run", name, *sets, "--steps", "2", "--every", "1", "-q",
                  "--export", "gltf", "-o", str(out))
            seed("glb_mesh", name, (out / "animation.glb").read_bytes())
    glb_edge_seeds()
    for mesh in ["cube.obj", "icosphere.obj", "flag.obj"]:
        seed("obj_mesh", mesh, (ROOT / "scenes" / mesh).read_bytes())
    seed("obj_mesh", "tetra", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
         "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    seed("obj_mesh", "quad-uv", "mtllib a.mtl\no q\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
         "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl m\nf 1/1 2/2 3/3 4/4\n")
    seed("obj_mesh", "pentagon", "v 0 0 0\nv 1 0 0\nv 1.3 1 0\nv 0.5 1.6 0\nv -0.3 1 0\n"
         "f 1 2 3 4 5\nf -1 -2 -3\n")
    seed("set_path", "cloth", "cloth\np width=3\np height=3\nsettings.dt=0.001\n"
         "nodes[2].mass=0.5\nsettings.integrator=xpbd\n")
    seed("set_path", "string", "string\np nodes=5\nsprings[1].k=1e3\nground.offset=-1\n")
    seed("set_path", "sphere", "cloth-on-sphere\np nodes=3\n"
         "colliders[0].radius=0.2\nsettings.iterations=4\n")
    # The structure-aware target builds scenes from bytes: a few random ones start it.
    rng = random.Random(1)
    for i in range(8):
        seed("step_scenes", f"bytes-{i}", bytes(rng.randrange(256) for _ in range(64 + 32 * i)))
    seed("set_path", "walker", "walker\nsettings.substeps=2\ncontrollers[0].weights=[1,2]\n")


if __name__ == "__main__":
    main()
