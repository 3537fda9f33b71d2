"""`hooke run --export usd` read back with Pixar's own library (usd-core): the stage opens,
says its units, up axis and frame rate, holds one time sample a frame whose points are the
trajectory's, loses torn faces from the frame they tear, places the colliders (a moving one
at every frame) and passes Pixar's compliance checks."""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pytest

import pxr
from pxr import Usd, UsdGeom, UsdShade, UsdUtils

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVERY = 50


def run_export(cli, tmp_path, scene, *extra):
    """Runs `scene` with --export usd and the trajectory every EVERY steps; returns the
    stage, the trajectory and final.json."""
    out = tmp_path / "out"
    r = cli(["run", scene, "--export", "usd", "--every", EVERY, "-q", "-o", out, *extra], tmp_path)
    assert r.returncode == 0, r.stderr
    stage = Usd.Stage.Open(str(out / "usd" / "animation.usda"))
    trajectory = np.load(out / "trajectory.npy")
    final = json.loads((out / "final.json").read_text())
    return stage, trajectory, final


def assert_compliant(stage):
    """Pixar's compliance checker (and, where usd-core has it, its validation framework)
    find nothing wrong."""
    path = stage.GetRootLayer().realPath
    with warnings.catch_warnings():  # usd-core 26.5 says it is deprecated, as it is
        warnings.simplefilter("ignore", DeprecationWarning)
        checker = UsdUtils.ComplianceChecker()
    checker.CheckCompliance(path)
    assert checker.GetErrors() == [], checker.GetErrors()
    assert checker.GetFailedChecks() == [], checker.GetFailedChecks()
    validation = getattr(pxr, "UsdValidation", None)
    if validation is not None:
        validators = validation.ValidationRegistry().GetOrLoadAllValidators()
        errors = validation.ValidationContext(validators).Validate(stage)
        assert [e.GetMessage() for e in errors] == []


def assert_points_follow(stage, trajectory, prim_type):
    """Every prim of `prim_type` made of nodes (not a collider) has a time sample a
    trajectory frame, its points the trajectory's at the nodes `hooke:nodes` names, to
    1e-6 m. Returns how many such prims."""
    prims = [p for p in stage.Traverse() if p.GetTypeName() == prim_type and p.HasAttribute("hooke:nodes")]
    for prim in prims:
        points = UsdGeom.PointBased(prim).GetPointsAttr()
        nodes = np.array(list(prim.GetAttribute("hooke:nodes").Get()), dtype=int)
        times = points.GetTimeSamples()
        assert times == list(range(len(trajectory))), prim.GetPath()
        for k in times:
            p = np.array(points.Get(k))
            assert np.abs(p - trajectory[int(k)][nodes]).max() <= 1e-6, (prim.GetPath(), k)
    return len(prims)


def test_cloth_on_sphere_stage_units_frames_points_and_collider(cli, tmp_path):
    stage, trajectory, final = run_export(cli, tmp_path, "cloth-on-sphere", "--duration", "0.5")
    assert UsdGeom.GetStageUpAxis(stage) == "Y"
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    dt = final["settings"]["dt"]
    assert stage.GetTimeCodesPerSecond() == pytest.approx(1 / (dt * EVERY), rel=1e-12)
    assert stage.GetEndTimeCode() == len(trajectory) - 1
    assert assert_points_follow(stage, trajectory, "Mesh") == 1
    ground = UsdGeom.Mesh(stage.GetPrimAtPath("/cloth_on_sphere/colliders/ground"))
    assert {p[1] for p in ground.GetPointsAttr().Get()} == {0.0}
    sphere = [p for p in stage.Traverse() if p.GetTypeName() == "Sphere"]
    assert len(sphere) == 1
    collider = final["colliders"][0]
    assert UsdGeom.Sphere(sphere[0]).GetRadiusAttr().Get() == pytest.approx(collider["radius"])
    translate = sphere[0].GetAttribute("xformOp:translate").Get()
    assert np.allclose(translate, collider["center"], atol=1e-6)
    cloth = UsdGeom.Mesh(stage.GetPrimAtPath("/cloth_on_sphere/cloth"))
    material, _ = UsdShade.MaterialBindingAPI(cloth.GetPrim()).ComputeBoundMaterial()
    assert material.GetPath() == "/cloth_on_sphere/Looks/surface"
    assert_compliant(stage)


def test_torn_faces_leave_from_the_frame_they_tear(cli, tmp_path):
    stage, trajectory, final = run_export(cli, tmp_path, "tear", "--duration", "0.6")
    assert assert_points_follow(stage, trajectory, "Mesh") == 1
    mesh = [p for p in stage.Traverse() if p.GetTypeName() == "Mesh"][0]
    indices = UsdGeom.Mesh(mesh).GetFaceVertexIndicesAttr()
    counts = UsdGeom.Mesh(mesh).GetFaceVertexCountsAttr()
    times = indices.GetTimeSamples()
    assert len(times) >= 2, "the curtain tears: its faces change"
    assert counts.GetTimeSamples() == times
    nodes = np.array(list(mesh.GetAttribute("hooke:nodes").Get()), dtype=int)
    last = np.array(indices.Get(len(trajectory) - 1)).reshape(-1, 3)
    exported = {tuple(sorted(f)) for f in nodes[last].tolist()}
    kept = {tuple(sorted(f)) for s in final["surfaces"] for f in s["faces"]}
    assert exported == kept
    first = np.array(indices.Get(0)).reshape(-1, 3)
    assert len(first) > len(last)
    assert_compliant(stage)


def test_flag_strings_as_curves(cli, tmp_path):
    stage, trajectory, _ = run_export(cli, tmp_path, "flag", "--duration", "0.3")
    assert assert_points_follow(stage, trajectory, "BasisCurves") == 1
    curves = UsdGeom.BasisCurves([p for p in stage.Traverse() if p.GetTypeName() == "BasisCurves"][0])
    assert set(curves.GetCurveVertexCountsAttr().Get()) == {2}
    assert assert_points_follow(stage, trajectory, "Mesh") == 1
    assert_compliant(stage)


def test_a_moving_box_and_capsule_are_placed_every_frame(cli, tmp_path):
    r = cli(["scene", "cloth-on-sphere", "--nodes", "8", "-o", "scene.json"], tmp_path)
    assert r.returncode == 0, r.stderr
    scene = json.loads((tmp_path / "scene.json").read_text())
    velocity = [0.0, 0.0, 0.5]
    scene["colliders"] = [
        {"shape": "box", "center": [0, 0.3, 1], "half_extents": [0.3, 0.1, 0.2],
         "rotation": {"axis": [0, 1, 0], "angle": 0.5}, "path": {"type": "linear", "velocity": velocity}},
        {"shape": "capsule", "a": [-0.5, 0.2, 1], "b": [0.5, 0.2, 1], "radius": 0.05},
    ]
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    stage, trajectory, final = run_export(cli, tmp_path, "scene.json", "--duration", "0.2")
    dt = final["settings"]["dt"]
    cube = UsdGeom.Xformable([p for p in stage.Traverse() if p.GetTypeName() == "Cube"][0])
    for k in range(len(trajectory)):
        world = cube.ComputeLocalToWorldTransform(k)
        centre = np.array(world.ExtractTranslation())
        assert np.allclose(centre, np.array([0, 0.3, 1]) + np.array(velocity) * k * EVERY * dt, atol=1e-5)
        # The box's corner (1, 1, 1) in its own frame: half extents turned by 0.5 rad about y.
        corner = np.array(world.Transform((1, 1, 1))) - centre
        c, s = np.cos(0.5), np.sin(0.5)
        want = np.array([c * 0.3 + s * 0.2, 0.1, -s * 0.3 + c * 0.2])
        assert np.allclose(corner, want, atol=1e-5)
    capsule = UsdGeom.Capsule([p for p in stage.Traverse() if p.GetTypeName() == "Capsule"][0])
    assert capsule.GetHeightAttr().Get() == pytest.approx(1.0)
    world = capsule.ComputeLocalToWorldTransform(0)
    end = np.array(world.Transform((0, 0, 0.5)))  # the axis runs along the capsule's z
    assert np.allclose(np.abs(end - [0, 0.2, 1]), [0.5, 0, 0], atol=1e-6)
    assert_compliant(stage)


def test_a_textured_surface_reads_its_texture(cli, tmp_path):
    for f in ["flag.obj", "flag.mtl", "flag.png"]:
        shutil.copy(ROOT / "scenes" / f, tmp_path / f)
    r = cli(["convert", "flag.obj", "-o", "flag.json", "--bend", "-q"], tmp_path)
    assert r.returncode == 0, r.stderr
    stage, trajectory, _ = run_export(cli, tmp_path, "flag.json", "--duration", "0.05")
    assert assert_points_follow(stage, trajectory, "Mesh") == 1
    mesh = [p for p in stage.Traverse() if p.GetTypeName() == "Mesh"][0]
    st = UsdGeom.PrimvarsAPI(mesh).GetPrimvar("st")
    assert st.GetInterpolation() == "faceVarying"
    faces = len(UsdGeom.Mesh(mesh).GetFaceVertexIndicesAttr().Get())
    assert len(st.GetIndices()) == faces
    material, _ = UsdShade.MaterialBindingAPI(mesh).ComputeBoundMaterial()
    texture = [UsdShade.Shader(p) for p in material.GetPrim().GetChildren()
               if UsdShade.Shader(p).GetIdAttr().Get() == "UsdUVTexture"]
    assert len(texture) == 1
    file = texture[0].GetInput("file").Get()
    assert pathlib.Path(file.resolvedPath).read_bytes() == (tmp_path / "flag.png").read_bytes()
    assert_compliant(stage)
