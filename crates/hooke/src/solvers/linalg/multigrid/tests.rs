//! The hierarchy and its V-cycle on small cloths and chains: CG's iterations, the cycle's
//! symmetry, a refreshed hierarchy.

use super::cycle::Scratch;
use super::*;
use crate::solvers::linalg::blocks::{BlockMatrix, BlockPattern, dot, pcg, spring_jacobians};
use std::collections::BTreeMap;

/// A = M + h²·K for springs between nodes at `x` (rest lengths 0.98 of their lengths,
/// so every spring is stretched), nodes in `fixed` with an identity row and column.
fn system(x: &[V3], springs: &[(usize, usize)], fixed: &[bool]) -> (BlockPattern, BlockMatrix) {
    let (mass, h2k) = (1e-3, 1.0);
    let mut blocks: BTreeMap<(usize, usize), B3> = BTreeMap::new();
    let mut put = |r: usize, c: usize, m: &B3, sign: f64| {
        let e = blocks.entry((r, c)).or_insert(ZERO);
        *e = csr::add_block(e, &scaled_block(m, sign));
    };
    for i in 0..x.len() {
        put(
            i,
            i,
            &scaled_block(&crate::solvers::linalg::blocks::identity(), mass),
            1.0,
        );
    }
    for &(a, b) in springs {
        let d = [x[a][0] - x[b][0], x[a][1] - x[b][1], x[a][2] - x[b][2]];
        let len = dot(&[d], &[d]).sqrt();
        let (k, _) = spring_jacobians(d, 0.98 * len, 1.0, 0.0, 0.0, false);
        for (r, c, sign) in [(a, a, -h2k), (b, b, -h2k), (a, b, h2k), (b, a, h2k)] {
            put(r, c, &k, sign);
        }
    }
    let n = x.len();
    let (mut row_start, mut col, mut diag, mut val) = (vec![0], vec![], vec![], vec![]);
    for i in 0..n {
        for (&(r, c), m) in blocks.range((i, 0)..(i + 1, 0)) {
            debug_assert_eq!(r, i);
            if c == i {
                diag.push(col.len());
            }
            let m = match (fixed[r] || fixed[c], r == c) {
                (false, _) => *m,
                (true, true) => crate::solvers::linalg::blocks::identity(),
                (true, false) => ZERO,
            };
            col.push(c as u32);
            val.push(m);
        }
        row_start.push(col.len());
    }
    let pattern = BlockPattern {
        n,
        row_start,
        col,
        diag,
        spring: vec![],
    };
    (pattern, BlockMatrix { val })
}

/// A side×side cloth in the xy-plane with structural, shear and bend springs, its top
/// row fixed.
fn cloth(side: usize) -> (Vec<V3>, BlockPattern, BlockMatrix) {
    let at = |i: usize, j: usize| i * side + j;
    let x: Vec<V3> = (0..side * side)
        .map(|k| [(k % side) as f64 * 0.01, (k / side) as f64 * -0.01, 0.0])
        .collect();
    let mut springs = vec![];
    for i in 0..side {
        for j in 0..side {
            for (di, dj) in [(0, 1), (1, 0), (1, 1), (0, 2), (2, 0)] {
                if i + di < side && j + dj < side {
                    springs.push((at(i, j), at(i + di, j + dj)));
                }
            }
            if i + 1 < side && j >= 1 {
                springs.push((at(i, j), at(i + 1, j - 1)));
            }
        }
    }
    let fixed: Vec<bool> = (0..side * side).map(|k| k < side).collect();
    let (p, a) = system(&x, &springs, &fixed);
    (x, p, a)
}

fn view<'a>(p: &'a BlockPattern, a: &'a BlockMatrix) -> CsrRef<'a> {
    CsrRef {
        start: &p.row_start,
        col: &p.col,
        val: &a.val,
    }
}

/// A right-hand side with every node pushed, fixed ones 0.
fn rhs(n: usize, fixed: usize) -> Vec<V3> {
    (0..n)
        .map(|i| match i < fixed {
            true => [0.0; 3],
            false => [((i * 7) % 5) as f64 - 2.0, ((i * 3) % 7) as f64 - 3.0, 1.0],
        })
        .collect()
}

/// CG iterations to 1e-8 with block Jacobi and with the V-cycle, and the V-cycle's
/// solution's residual.
fn iterations(x: &[V3], p: &BlockPattern, a: &BlockMatrix, fixed: usize) -> (u32, u32, f64) {
    let b = rhs(x.len(), fixed);
    let limits = (1e-8, 5000);
    let mut sol = vec![[0.0; 3]; x.len()];
    let jacobi = crate::solvers::linalg::blocks::block_jacobi(p, a);
    let it_j = pcg((p, a), &jacobi, &b, &mut sol, limits).iterations;
    let mg = Multigrid::new(view(p, a), x).expect("builds");
    assert!(!mg.levels.is_empty(), "at least one coarse level");
    let mut scratch = Scratch::default();
    let pre = |r: &[V3], z: &mut [V3]| mg.apply(view(p, a), r, z, &mut scratch);
    let mut sol = vec![[0.0; 3]; x.len()];
    let it_mg = pcg((p, a), pre, &b, &mut sol, limits).iterations;
    let r = view(p, a).residual(&b, &sol);
    (it_j, it_mg, (dot(&r, &r) / dot(&b, &b)).sqrt())
}

#[test]
fn cg_with_the_cycle_solves_stiff_cloth_in_a_fraction_of_jacobis_iterations() {
    let side = 32;
    let (x, p, a) = cloth(side);
    let (it_j, it_mg, residual) = iterations(&x, &p, &a, side);
    assert!(residual < 1e-8, "residual {residual:e}");
    assert!(
        5 * it_mg < it_j,
        "multigrid {it_mg} iterations against Jacobi's {it_j}"
    );
}

#[test]
fn a_straight_chain_gets_dead_rotations_and_still_converges() {
    let n = 400;
    let x: Vec<V3> = (0..n).map(|i| [i as f64 * 0.01, 0.0, 0.0]).collect();
    let springs: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    let fixed: Vec<bool> = (0..n).map(|i| i == 0).collect();
    let (p, a) = system(&x, &springs, &fixed);
    let mg = Multigrid::new(view(&p, &a), &x).expect("builds");
    assert!(
        mg.levels.iter().any(|l| !l.dead.is_empty()),
        "the rotation about the chain's line moves nothing"
    );
    let (it_j, it_mg, residual) = iterations(&x, &p, &a, 1);
    assert!(residual < 1e-8, "residual {residual:e}");
    assert!(it_mg < it_j, "multigrid {it_mg} against Jacobi's {it_j}");
}

#[test]
fn the_cycle_is_symmetric() {
    let (x, p, a) = cloth(24);
    let mg = Multigrid::new(view(&p, &a), &x).expect("builds");
    let (u, v) = (
        rhs(x.len(), 24),
        rhs(x.len(), 0).iter().rev().copied().collect::<Vec<_>>(),
    );
    let (mut mu, mut mv) = (vec![[0.0; 3]; x.len()], vec![[0.0; 3]; x.len()]);
    let mut scratch = Scratch::default();
    mg.apply(view(&p, &a), &u, &mut mu, &mut scratch);
    mg.apply(view(&p, &a), &v, &mut mv, &mut scratch);
    let (uv, vu) = (dot(&mu, &v), dot(&u, &mv));
    assert!(
        (uv - vu).abs() <= 1e-6 * uv.abs().max(vu.abs()),
        "{uv} against {vu}"
    );
    assert!(dot(&mu, &u) > 0.0, "positive");
}

#[test]
fn a_refreshed_hierarchy_serves_a_changed_matrix() {
    let (x, p, mut a) = cloth(32);
    let mut mg = Multigrid::new(view(&p, &a), &x).expect("builds");
    // Springs ten times as stiff (A' = 10·A − 9·M outside the fixed rows): the old
    // coarse levels no longer match.
    for i in 32..x.len() {
        for k in p.row_start[i]..p.row_start[i + 1] {
            let mut blk = scaled_block(&a.val[k], 10.0);
            if p.col[k] as usize == i {
                (0..3).for_each(|d| blk[d][d] -= 9.0 * 1e-3);
            }
            a.val[k] = blk;
        }
    }
    let b = rhs(x.len(), 32);
    let solve = |mg: &Multigrid| {
        let mut scratch = Scratch::default();
        let pre = |r: &[V3], z: &mut [V3]| mg.apply(view(&p, &a), r, z, &mut scratch);
        let mut sol = vec![[0.0; 3]; x.len()];
        pcg((&p, &a), pre, &b, &mut sol, (1e-8, 5000)).iterations
    };
    mg.refresh(view(&p, &a), false).unwrap();
    let stale = solve(&mg);
    mg.refresh(view(&p, &a), true).unwrap();
    let fresh = solve(&mg);
    let rebuilt = solve(&Multigrid::new(view(&p, &a), &x).unwrap());
    assert!(
        fresh < stale && fresh <= rebuilt + 1,
        "{stale} {fresh} {rebuilt}"
    );
}

#[test]
fn a_kept_scratch_gives_the_bits_of_a_fresh_one() {
    let mut kept = Scratch::default();
    // A larger hierarchy, a smaller one, then the larger again: nothing left in the
    // scratch from one cycle reaches the next.
    for side in [32, 20, 32] {
        let (x, p, a) = cloth(side);
        let mg = Multigrid::new(view(&p, &a), &x).expect("builds");
        let r = rhs(x.len(), side);
        let (mut z_kept, mut z_fresh) = (vec![[0.0; 3]; x.len()], vec![[0.0; 3]; x.len()]);
        mg.apply(view(&p, &a), &r, &mut z_kept, &mut kept);
        mg.apply(view(&p, &a), &r, &mut z_fresh, &mut Scratch::default());
        assert_eq!(z_kept, z_fresh, "{side}×{side}");
    }
}
