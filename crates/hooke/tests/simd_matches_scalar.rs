//! The spring pass (AVX2 where the CPU has it, threaded) gives bit for bit the scalar
//! kernel's forces: same operations, same order, no fused multiply-add.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::forces::{Form, SpringCoeffs, spring_pass, spring_pass_scalar};
use hooke::layout::SpringLayout;
use hooke::{DampingMode, Node, Real, SceneBuilder, Spring, Vec3, vec3};

#[test]
fn spring_pass_is_bit_identical_to_scalar_kernel() {
    let mut rng = common::Lcg(42);
    let mut r = move || rng.next() as Real;
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
        let scene = b.build().unwrap();
        let layout = SpringLayout::new(&scene.model);
        let co = SpringCoeffs::compile_in(&scene.model, 0.001, Form::Forces, Some(&layout.order));
        let (x, v) = (&scene.state.x, &scene.state.v);
        let m = layout.len();
        let mut fast = vec![Vec3::ZERO; m];
        let mut slow = vec![Vec3::ZERO; m];
        spring_pass(&layout, &co, x, v, &mut fast);
        spring_pass_scalar(&layout, &co, x, v, &mut slow);
        for p in 0..m {
            let (f, s) = (fast[p].to_array(), slow[p].to_array());
            let bits = |a: [Real; 3]| a.map(|c| (c as f64).to_bits());
            assert_eq!(
                bits(f),
                bits(s),
                "spring {} (kernel position {p}): {f:?} vs {s:?}",
                layout.order[p]
            );
            assert!(
                f.iter().all(|c| c.is_finite()),
                "spring {}: {f:?}",
                layout.order[p]
            );
        }
    }
}
