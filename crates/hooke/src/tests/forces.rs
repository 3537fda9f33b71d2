//! Tests of `forces` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::builders;
use crate::forces::*;
use crate::layout::SpringLayout;
use crate::model::{Environment, Model};
use crate::par;
use crate::real::{Real, Row, Vec3};

/// Adds the spring forces `sf` (one per spring, kernel order) into `f` (one per node).
fn add_spring_forces(model: &Model, layout: &SpringLayout, sf: &[Row], f: &mut [Vec3]) {
    let nf = NodeForces::new(model, layout, sf, ConstForces::Nodes(&[]));
    par::chunks_mut(f, par::NODE_CHUNK, |start, part| {
        for (j, fi) in part.iter_mut().enumerate() {
            *fi += nf.springs_at(start + j);
        }
    });
}

/// Adds the constant forces (gravity and fields) into `f`.
fn add_constant_forces(fconst: &[Vec3], f: &mut [Vec3]) {
    for (fi, c) in f.iter_mut().zip(fconst) {
        *fi += *c;
    }
}

/// Adds air drag into `f`.
fn add_drag(env: &Environment, v: &[Vec3], f: &mut [Vec3]) {
    for (fi, vi) in f.iter_mut().zip(v) {
        *fi += drag_force(env.air_drag, env.wind, *vi);
    }
}

/// The fused node pass (`NodeForces::at`, its gravity made from the masses as a scene
/// without fields has it) and the family functions applied one after another (the
/// constant forces kept per node) give the same forces: same additions, same order. (`0 + x` can turn −0 into
/// +0, so values are compared with `==`, which treats ±0 alike.)
#[test]
fn fused_forces_equal_family_by_family() {
    let params = [
        ("width".to_string(), "9".to_string()),
        ("air_drag".to_string(), "0.7".to_string()),
    ];
    let mut scene = builders::build("cloth", &params).unwrap();
    scene.model.env.wind = crate::vec3(1.0, 0.0, -2.0);
    for (i, v) in scene.state.v.iter_mut().enumerate() {
        *v = crate::pack(crate::vec3(
            0.01 * i as Real,
            -0.02,
            0.003 * (i % 7) as Real,
        ));
    }
    scene.state.x[10].y += 0.05; // something stretched (a packed row: the same float)
    let model = &scene.model;
    let layout = SpringLayout::new(model.nodes.len(), &model.springs);
    let order = layout.order();
    let co = SpringCoeffs::compile_in(model, &model.springs, 1e-3, Form::Forces, order);
    let fconst = constant_forces(model);
    let (x, v) = (&scene.state.x, &scene.state.v);
    let n = x.len();
    let mut sf = vec![Row::ZERO; layout.len()];
    spring_pass(&layout, &co, x, v, &mut sf);
    assert!(model.env.fields.is_empty());
    let nf = NodeForces::new(model, &layout, &sf, ConstForces::of(model, &[]));
    let fused: Vec<Vec3> = (0..n).map(|i| nf.at(i, crate::unpack(v[i]))).collect();
    let mut family = vec![Vec3::ZERO; n];
    add_spring_forces(model, &layout, &sf, &mut family);
    add_constant_forces(&fconst, &mut family);
    add_drag(&model.env, &scene.state.velocities(), &mut family);
    for i in 0..n {
        assert_eq!(fused[i], family[i], "node {i}");
    }
    assert!(fused.iter().any(|f| f.length() > 0.0));
}
