//! Tests of `forces/coeffs` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::builders;
use crate::forces::coeffs::*;
use crate::model::{DampingMode, Model};

/// The isotropic damping and compression columns are kept only where a spring uses
/// them; read through the accessors, a spring without either has 0 and 1.
#[test]
fn unused_coefficient_columns_are_not_kept() {
    use crate::model::SpringKind;
    let mut scene = builders::build("cloth", &[("width".into(), "4".into())]).unwrap();
    let compile =
        |model: &Model| SpringCoeffs::compile_in(model, &model.springs, 1e-3, Form::Forces, None);
    let plain = compile(&scene.model);
    assert!(!plain.iso && !plain.rope && plain.columns_kept() == (0, 0));
    assert_eq!((plain.c_iso(3), plain.compress(3)), (0.0, 1.0));
    let sp = &mut scene.model.springs;
    sp.change(2, |c| c.kind = SpringKind::Rope);
    sp.change(5, |c| (c.damping, c.c) = (DampingMode::Isotropic, 0.25));
    let m = sp.len();
    let mixed = compile(&scene.model);
    assert_eq!(
        (mixed.c_iso_in(0..m).len(), mixed.compress_in(0..m).len()),
        (m, m)
    );
    assert_eq!((mixed.compress(2), mixed.compress(3)), (0.0, 1.0));
    assert_eq!((mixed.c_iso(5), mixed.c_iso(3)), (0.25, 0.0));
}

/// Stiffness and damping by class: a cloth's springs (structural, shear and bend) take
/// a byte each, and the spring pass gives the forces and damping power of the same
/// coefficients kept per spring, bit for bit (the SIMD kernel's class lookup and the
/// scalar tail alike); a scene with more than eight distinct pairs keeps columns.
#[test]
fn coefficients_by_class_give_the_forces_of_columns_bit_for_bit() {
    use crate::forces::spring_pass;
    use crate::layout::SpringLayout;
    use crate::real::Real;
    let params = [
        ("width".into(), "13".into()),
        ("air_drag".into(), "0.2".into()),
    ];
    let mut scene = builders::build("cloth", &params).unwrap();
    for (i, (x, v)) in scene.state.x.iter_mut().zip(&mut scene.state.v).enumerate() {
        *x *= 1.0 + 0.01 * (i % 5) as Real; // stretched, and moving
        *v = crate::pack(crate::vec3(
            0.01 * (i % 13) as Real,
            -0.02,
            0.003 * (i % 7) as Real,
        ));
    }
    let model = &scene.model;
    let layout = SpringLayout::new(model.nodes.len(), &model.springs);
    let order = layout.order();
    let classes = SpringCoeffs::compile_in(model, &model.springs, 1e-3, Form::Forces, order);
    let table = classes.classes.as_ref().expect("a cloth has few classes");
    assert_eq!(table.index.len(), model.springs.len());
    let columns =
        SpringCoeffs::compile_columns_in(model, &model.springs, 1e-3, Form::Forces, order);
    assert!(columns.classes.is_none());
    let (x, v) = (&scene.state.x, &scene.state.v);
    let forces = |co: &SpringCoeffs| {
        let mut out = vec![crate::real::Row::ZERO; layout.len()];
        let power = spring_pass(&layout, co, x, v, &mut out);
        (
            out.iter()
                .flat_map(|f| f.to_array())
                .map(Real::to_bits)
                .collect::<Vec<_>>(),
            power,
        )
    };
    let (by_class, by_column) = (forces(&classes), forces(&columns));
    assert!(by_class.1 > 0.0);
    assert_eq!(by_class, by_column);
    // Nine distinct stiffnesses: columns.
    for s in 0..9 {
        scene.model.springs.change(s, |c| c.k = 100.0 + s as Real);
    }
    let many =
        SpringCoeffs::compile_in(&scene.model, &scene.model.springs, 1e-3, Form::Forces, None);
    assert!(many.classes.is_none() && many.k(8) == 108.0);
}

/// Where the springs are in the user's order and each of the model's (at most eight)
/// classes compiles to one pair, the coefficients read the model's class index itself (no
/// byte of their own), and the forces are those of the columns bit for bit. Where a class
/// compiles to more than one pair (Nissen's springs between nodes of different masses) or
/// the model has more than eight classes, the coefficients keep an index of their own.
#[test]
fn coefficients_share_the_models_class_index_where_it_serves() {
    use crate::model::SpringKind;
    use crate::real::Real;
    use std::sync::Arc;
    let mut scene = builders::build("cloth", &[("width".into(), "9".into())]).unwrap();
    let compile =
        |model: &Model| SpringCoeffs::compile_in(model, &model.springs, 1e-3, Form::Forces, None);
    let columns = |model: &Model| {
        SpringCoeffs::compile_columns_in(model, &model.springs, 1e-3, Form::Forces, None)
    };
    let same_pairs = |a: &SpringCoeffs, b: &SpringCoeffs| {
        (0..a.len()).all(|s| {
            a.k(s).to_bits() == b.k(s).to_bits() && a.c_axial(s).to_bits() == b.c_axial(s).to_bits()
        })
    };
    let model_index = |model: &Model| Arc::clone(model.springs.classes.bytes().unwrap());
    let shared = compile(&scene.model);
    let index = &shared.classes.as_ref().unwrap().index;
    assert!(Arc::ptr_eq(index, &model_index(&scene.model)));
    assert!(same_pairs(&shared, &columns(&scene.model)));

    // Nissen's springs scale with the reduced mass, which a pinned end (the cloth's top
    // corners) doubles: one class, pairs that differ.
    assert!(!scene.model.nodes.pinned_nodes().is_empty());
    for s in 0..scene.model.springs.len() {
        scene
            .model
            .springs
            .change(s, |c| (c.kind, c.cs, c.cd) = (SpringKind::Stable, 0.5, 0.1));
    }
    let own = compile(&scene.model);
    let index = &own.classes.as_ref().expect("two pairs").index;
    assert!(!Arc::ptr_eq(index, &model_index(&scene.model)));
    assert!(same_pairs(&own, &columns(&scene.model)));

    // Nine classes (their break strains differ), two pairs: an index of its own.
    let mut scene = builders::build("cloth", &[("width".into(), "9".into())]).unwrap();
    for s in 0..9 {
        scene
            .model
            .springs
            .change(s, |c| c.break_strain = 1.0 + s as Real);
    }
    let own = compile(&scene.model);
    let index = &own.classes.as_ref().expect("few pairs").index;
    assert!(!Arc::ptr_eq(index, &model_index(&scene.model)));
    assert!(same_pairs(&own, &columns(&scene.model)));
}

/// A spring's class index is a byte up to 256 classes, two bytes past them, and reads back
/// every spring's class through each widening.
#[test]
fn class_index_widens_past_256_classes() {
    use crate::real::Real;
    let mut scene = builders::build("cloth", &[("width".into(), "20".into())]).unwrap();
    let sp = &mut scene.model.springs;
    assert!(sp.classes.bytes().is_some());
    for s in 0..300 {
        sp.change(s, |c| c.k = 1000.0 + s as Real);
    }
    assert!(sp.classes.bytes().is_none());
    assert!((0..300).all(|s| sp.k(s) == 1000.0 + s as Real));
    let fresh = builders::build("cloth", &[("width".into(), "20".into())]).unwrap();
    let rest = 300..fresh.model.springs.len();
    assert!(
        rest.clone()
            .all(|s| sp.class(s) == fresh.model.springs.class(s))
    );
}
