//! Tests of `solvers/fms_local` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::model::SpringKind;
use crate::solvers::fms::local::*;
use crate::solvers::linalg::blocks::V3;

/// The four-at-a-time kernel gives the scalar loop's bits: stretched, compressed and
/// zero-length springs, taut and slack ropes, and a tail that is not a multiple of 4.
#[test]
fn every_path_gives_the_scalar_pulls() {
    let scene = crate::builders::build("cloth", &[]).expect("the cloth");
    let mut sp = scene.model().springs.clone();
    let n = scene.state.x.len();
    let x: Vec<V3> = (0..n)
        .map(|i| {
            let p = scene.state.x[i].to_array().map(f64::from);
            let jiggle = ((i * 7919) % 101) as f64 * 1e-4;
            [p[0] + jiggle, p[1] - 0.5 * jiggle, p[2] + 0.25 * jiggle]
        })
        .collect();
    for s in (0..sp.len()).step_by(3) {
        sp.change(s, |c| c.kind = SpringKind::Rope);
    }
    for s in (0..sp.len()).step_by(7) {
        std::sync::Arc::make_mut(&mut sp.rest)[s] *= 2.0; // ropes slack, springs compressed
    }
    std::sync::Arc::make_mut(&mut sp.b)[5] = sp.a[5]; // zero length
    let (h2, k): (_, Vec<_>) = (1e-3, (0..sp.len()).map(|s| sp.k(s)).collect());
    for len in [sp.len(), sp.len() - 3, 4, 3] {
        let mut fast = vec![[0.0; 3]; len];
        pulls(&sp, &k, h2, &x, (0, &mut fast));
        for (s, f) in fast.iter().enumerate() {
            let want = pull(&sp, &k, h2, &x, s);
            assert_eq!(
                f.map(f64::to_bits),
                want.map(f64::to_bits),
                "spring {s} of {len}"
            );
        }
    }
    assert_eq!(pull(&sp, &k, h2, &x, 5), [0.0; 3]);
}
