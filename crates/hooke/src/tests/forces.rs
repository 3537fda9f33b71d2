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

/// The spring pass from padded copies of each chunk's nodes gives the packed pass's forces
/// and damping power bit for bit: a cloth's springs (several chunks) on nodes numbered as
/// built, shifted so that every window starts past node 0, and scattered over 20 000 nodes
/// so that every chunk reaches further than a window may (read packed instead). Each
/// chunk's nodes are exactly those its springs name.
#[test]
fn padded_windows_give_the_packed_pass_bit_for_bit() {
    use crate::forces::padded_rows::WINDOW_MAX;
    use crate::real::Packed;
    use std::sync::Arc;
    let params = [("width", "48"), ("height", "48")].map(|(k, v)| (k.to_string(), v.to_string()));
    let scene = builders::build("cloth", &params).unwrap();
    let n = 20_000;
    type Placement = (&'static str, fn(u32) -> u32);
    let placements: [Placement; 3] = [
        ("as built", |i| i),
        ("shifted", |i| i + 3_000),
        ("scattered", |i| i * 7_919 % 20_000),
    ];
    for (name, place) in placements {
        let mut springs = scene.model.springs.clone();
        for e in [&mut springs.a, &mut springs.b] {
            Arc::make_mut(e).iter_mut().for_each(|i| *i = place(*i));
        }
        let mut model = scene.model.clone();
        model.springs = springs;
        let layout = SpringLayout::new(n, &model.springs);
        assert!(
            layout.len() > 2 * par::SPRING_CHUNK,
            "{name}: several chunks"
        );
        let co =
            SpringCoeffs::compile_in(&model, &model.springs, 1e-3, Form::Forces, layout.order());
        let row = |i: usize, s: f32| {
            Packed::new(
                (i as f32 * 0.37 * s).sin() as _,
                (i as f32 * 0.11).cos() as _,
                (i % 13) as f32 as _,
            )
        };
        let x: Vec<Packed> = (0..n).map(|i| row(i, 1.0)).collect();
        let v: Vec<Packed> = (0..n).map(|i| row(i, -0.5)).collect();
        let (mut packed, mut padded) =
            (vec![Row::ZERO; layout.len()], vec![Row::ZERO; layout.len()]);
        let p0 = spring_pass(&layout, &co, &x, &v, &mut packed);
        let p1 = spring_pass_padded(&layout, &co, &x, &v, &mut padded);
        assert_eq!(p0.to_bits(), p1.to_bits(), "{name}: damping power");
        for (p, (f0, f1)) in packed.iter().zip(&padded).enumerate() {
            let bits = |f: &Row| f.to_array().map(|c| c.to_bits());
            assert_eq!(bits(f0), bits(f1), "{name}: spring at position {p}");
        }
        let mut wide = 0;
        for start in (0..layout.len()).step_by(par::SPRING_CHUNK) {
            let r = start..(start + par::SPRING_CHUNK).min(layout.len());
            let ends: Vec<usize> = layout.a[r.clone()]
                .iter()
                .chain(&layout.b[r])
                .map(|&i| i as usize)
                .collect();
            let nodes = layout.chunk_nodes(start);
            assert_eq!(
                nodes.start,
                *ends.iter().min().unwrap(),
                "{name}: chunk at {start}"
            );
            assert_eq!(
                nodes.end,
                ends.iter().max().unwrap() + 1,
                "{name}: chunk at {start}"
            );
            wide += usize::from(nodes.len() > WINDOW_MAX);
        }
        assert_eq!(
            wide > 0,
            name == "scattered",
            "{name}: {wide} chunks read packed"
        );
    }
}
