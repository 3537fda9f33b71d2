//! A self-check of the spring pass against the scalar kernel, bit for bit, on models that
//! mix every spring kind, damping mode, pinned nodes and a zero-length spring.
//!
//! Run natively by `tests/simd_matches_scalar.rs` (AVX2) and in the browser by the studio's
//! `test_kernel_check` hook (wasm simd128), so both SIMD kernels are held to the scalar one
//! on the platform they run on.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use crate::forces::{Form, SpringCoeffs, spring_pass, spring_pass_scalar};
use crate::layout::SpringLayout;
use crate::real::Row;
use crate::{DampingMode, Node, Real, SceneBuilder, Spring, Vec3, vec3};

/// A small deterministic pseudo-random sequence in [-1, 1) (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> Real {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0) as Real
    }
}

/// Compares the spring pass (SIMD where the platform has it, threaded) with the scalar
/// one on three mixed models (7, 1001 and 9000 springs). Returns the
/// number of springs compared, or the first spring whose force differs in any bit or is
/// not finite.
pub fn spring_pass_matches_scalar() -> Result<usize, String> {
    let mut rng = Lcg(42);
    let mut r = move || rng.next();
    let mut checked = 0;
    for (nodes, springs) in [(50, 7), (300, 1001), (2000, 9000)] {
        let mut b = SceneBuilder::new("mix");
        for i in 0..nodes {
            let x = vec3(r(), r(), r());
            let node = if i % 17 == 0 {
                Node::pinned(x, 1.0)
            } else {
                Node::new(x, 0.1 + r().abs())
            };
            b.add_node(node.with_velocity(if i % 17 == 0 {
                Vec3::ZERO
            } else {
                vec3(r(), r(), r())
            }));
        }
        for s in 0..springs {
            let a = (s * 7919) % nodes;
            let mut e = (s * 104729 + 13) % nodes;
            if e == a {
                e = (e + 1) % nodes;
            }
            let (a, e) = (a as u32, e as u32);
            let spring = match s % 5 {
                0 => Spring::hooke(a, e, 100.0 * r().abs(), r().abs()),
                1 => Spring::rope(a, e, 50.0, 0.3).with_rest(1.0 + r()), // slack or taut
                2 => Spring::hooke(a, e, 10.0, 2.0).with_damping(DampingMode::Isotropic),
                3 => Spring::stable(a, e, 0.3, 0.2),
                _ => Spring::hooke(a, e, 1e4, 0.0).with_rest(0.5 * r().abs()),
            };
            b.add_spring(spring);
        }
        // Zero-length springs: two coincident nodes.
        let p = b.nodes[1].x;
        b.nodes[2].x = p;
        b.add_spring(Spring::hooke(1, 2, 100.0, 1.0).with_rest(0.3));
        let scene = b.build().map_err(|e| e.to_string())?;
        let (model, springs) = (&scene.model, &scene.model.springs);
        let layout = SpringLayout::new(model.nodes.len(), springs);
        let order = layout.order();
        let co = SpringCoeffs::compile_in(model, springs, 0.001, Form::Forces, order);
        let (x, v) = (&scene.state.x, &scene.state.v);
        let m = layout.len();
        let mut fast = vec![Row::ZERO; m];
        let mut slow = vec![Row::ZERO; m];
        spring_pass(&layout, &co, x, v, &mut fast);
        spring_pass_scalar(&layout, &co, x, v, &mut slow);
        for p in 0..m {
            let (f, s) = (fast[p].to_array(), slow[p].to_array());
            let bits = |a: [Real; 3]| a.map(|c| (c as f64).to_bits());
            if bits(f) != bits(s) || !f.iter().all(|c| c.is_finite()) {
                return Err(format!(
                    "spring {} (kernel position {p}): SIMD {f:?} vs scalar {s:?}",
                    layout.user(p)
                ));
            }
        }
        checked += m;
    }
    Ok(checked)
}
