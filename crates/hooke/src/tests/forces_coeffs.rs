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
    sp.kind[2] = SpringKind::Rope;
    sp.damping[5] = DampingMode::Isotropic;
    sp.c[5] = 0.25;
    let m = sp.len();
    let mixed = compile(&scene.model);
    assert_eq!(
        (mixed.c_iso_in(0..m).len(), mixed.compress_in(0..m).len()),
        (m, m)
    );
    assert_eq!((mixed.compress(2), mixed.compress(3)), (0.0, 1.0));
    assert_eq!((mixed.c_iso(5), mixed.c_iso(3)), (0.25, 0.0));
}
