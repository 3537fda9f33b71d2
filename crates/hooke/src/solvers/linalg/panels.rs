//! Triangular solves with a supernodal Cholesky factor for right-hand sides laid out as
//! rows of four lanes: a node's x, y and z, and a spare lane. Q = Pᵀ·L·Lᵀ·P is solved as
//!
//! z = P·b,  L·y = z (forward),  Lᵀ·w = y (backward),  x = Pᵀ·w,
//!
//! with L in faer's supernodal layout: panel s holds columns `start..start + width` as a
//! dense column-major block of `width + pattern.len()` rows — its lower-triangular diagonal
//! block, then the rows of its pattern (rows below the panel, ascending; all of them
//! columns of the panel's ancestors in the elimination tree).
//!
//! Four columns of a panel go together: each row below them is read and written once for
//! the four, and each entry of L costs one four-wide multiply and add for all three
//! coordinates. faer's general solve takes the three columns one after another through
//! small matrix products: on an 81×81 cloth's factor (547k entries) it takes about 1.8
//! times as long as these passes on one thread (docs/performance.md). On small supernodal
//! factors it is as fast, and [`Panels::new`] leaves those to it (simplicial ones go to
//! [`crate::solvers::linalg::simplicial`]). No fused multiply-add: a build with AVX gives the same bits as
//! one without.
//!
//! Two threads: the panels are in postorder, so the tree splits into a *top* (the
//! root and the chain of single children below it, the last columns) and the subtrees
//! beneath it, contiguous runs of columns, cut into two groups `a` and `b` of about equal
//! work. Forward, each group solves its own columns; its updates to top rows go into a
//! zeroed buffer of its own, added to the top rows after both (a's, then b's); then the top
//! is solved. Backward, the top first, then both groups at once, reading the top's rows.
//! The cut depends only on the factor, never on the thread count, so one thread gives the
//! same bits as two.

use std::ops::Range;

use crate::par;

/// Supernodal factors with fewer entries are solved by faer (its solve is as fast there:
/// a 40×40 cloth's factor made supernodal, 61k entries, took 0.12 ms with faer and 0.15
/// ms with these passes).
const MIN_ENTRIES: usize = 150_000;

/// Factors with fewer entries are solved on one thread (waking the second costs more than
/// it saves).
const SPLIT_ENTRIES: usize = 300_000;

/// One node's right-hand side or solution: x, y, z and a spare lane.
pub(crate) type Row = [f64; 4];

/// One supernode of L: columns `start..start + width`, its pattern `rows[pattern]` — of
/// which the first `inside` lie in its own group's columns, the rest in the top — and its
/// values from `val` on.
#[derive(Debug, Clone)]
struct Panel {
    start: usize,
    width: usize,
    pattern: Range<usize>,
    inside: usize,
    val: usize,
}

/// Columns `cols` of L, made of `panels` (panel indices).
#[derive(Debug, Clone, Default)]
struct Segment {
    panels: Range<usize>,
    cols: Range<usize>,
}

/// The structure of a Cholesky factor, for [`Panels::solve`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Panels {
    /// Row i of P·b is row `perm[i]` of b.
    perm: Vec<u32>,
    panels: Vec<Panel>,
    rows: Vec<u32>,
    /// The two groups of subtrees and the top, in column order.
    a: Segment,
    b: Segment,
    top: Segment,
}

impl Panels {
    /// The panels of faer's symbolic factor `sym`, or `None` for a simplicial factor or a
    /// supernodal one of fewer than [`MIN_ENTRIES`] entries.
    pub(crate) fn new(
        sym: &faer::sparse::linalg::cholesky::SymbolicCholesky<usize>,
    ) -> Option<Self> {
        use faer::sparse::linalg::cholesky::SymbolicCholeskyRaw;
        let SymbolicCholeskyRaw::Supernodal(sn) = sym.raw() else {
            return None;
        };
        if sn.len_val() < MIN_ENTRIES {
            return None;
        }
        let (n, perm) = (sym.nrows(), permutation(sym));
        let (panels, rows) = read_panels(sn);
        let mut this = Self {
            perm,
            panels,
            rows,
            ..Self::default()
        };
        this.split(n, sn.len_val());
        Some(this)
    }

    /// Cuts the panels into the groups a, b and the top ([`Segment`]), and counts each
    /// panel's pattern rows inside its group.
    fn split(&mut self, n: usize, entries: usize) {
        let (mut a_end, mut top_start) = if entries >= SPLIT_ENTRIES {
            cut(&self.panels, &self.rows, n)
        } else {
            (0, 0) // two tasks would cost more than they save
        };
        if !self.rows_stay_in_groups(a_end, top_start) {
            (a_end, top_start) = (0, 0); // not a tree cut as assumed: everything is top
        }
        let panel_at = |col: usize| self.panels.partition_point(|p| p.start + p.width <= col);
        let (pa, pt) = (panel_at(a_end), panel_at(top_start));
        self.a = Segment {
            panels: 0..pa,
            cols: 0..a_end,
        };
        self.b = Segment {
            panels: pa..pt,
            cols: a_end..top_start,
        };
        self.top = Segment {
            panels: pt..self.panels.len(),
            cols: top_start..n,
        };
        for seg in [&self.a, &self.b, &self.top] {
            for p in &mut self.panels[seg.panels.clone()] {
                let pattern = &self.rows[p.pattern.clone()];
                p.inside = pattern.partition_point(|&r| (r as usize) < seg.cols.end);
            }
        }
    }

    /// Whether the passes run as two groups and a top (else all is top, on one thread).
    #[cfg(test)]
    pub(crate) fn is_split(&self) -> bool {
        !self.a.cols.is_empty()
    }

    /// Whether every panel's pattern rows lie in its own group or in the top, as the
    /// passes assume (they do whenever the cut follows the elimination tree).
    fn rows_stay_in_groups(&self, a_end: usize, top_start: usize) -> bool {
        self.panels.iter().all(|p| {
            let end = p.start + p.width;
            let group_end = if end <= a_end { a_end } else { top_start };
            end > top_start
                || self.rows[p.pattern.clone()]
                    .iter()
                    .all(|&r| (r as usize) < group_end || (r as usize) >= top_start)
        })
    }

    /// Solves L·Lᵀ·(P·x) = P·b in place (`b` in, x out) with the factor's values `l`.
    pub(crate) fn solve(&self, l: &[f64], b: &mut [Row]) {
        let mut z: Vec<Row> = self.perm.iter().map(|&i| b[i as usize]).collect();
        self.forward(l, &mut z);
        self.backward(l, &mut z);
        for (&i, zi) in self.perm.iter().zip(&z) {
            b[i as usize] = *zi;
        }
    }

    /// L·y = z: the two groups at once, their updates to the top added after, then the top.
    fn forward(&self, l: &[f64], z: &mut [Row]) {
        if self.top.cols.start == 0 {
            return self.run(&self.top, (z, &mut []), l, Pass::Forward); // no cut: one thread
        }
        let (ab, top) = z.split_at_mut(self.top.cols.start);
        let (za, zb) = ab.split_at_mut(self.b.cols.start);
        let ntop = top.len();
        let group = |seg: &Segment, own: &mut [Row]| {
            let mut into_top = vec![[0.0; 4]; ntop];
            self.run(seg, (own, &mut into_top), l, Pass::Forward);
            into_top
        };
        let (da, db) = par::join(|| group(&self.a, za), || group(&self.b, zb));
        for ((t, a), b) in top.iter_mut().zip(&da).zip(&db) {
            *t = add(add(*t, *a), *b);
        }
        self.run(&self.top, (top, &mut []), l, Pass::Forward);
    }

    /// Lᵀ·w = y: the top, then the two groups at once, reading the top's rows.
    fn backward(&self, l: &[f64], z: &mut [Row]) {
        if self.top.cols.start == 0 {
            return self.run(&self.top, (z, &mut []), l, Pass::Backward);
        }
        let (ab, top) = z.split_at_mut(self.top.cols.start);
        self.run(&self.top, (top, &mut []), l, Pass::Backward);
        let (za, zb) = ab.split_at_mut(self.b.cols.start);
        let top = &*top;
        let group = |seg: &Segment, own: &mut [Row]| {
            let mut t = top.to_vec();
            self.run(seg, (own, &mut t), l, Pass::Backward);
        };
        par::join(|| group(&self.a, za), || group(&self.b, zb));
    }

    /// One pass over a segment's panels, with AVX where the CPU has it.
    fn run(&self, seg: &Segment, z: (&mut [Row], &mut [Row]), l: &[f64], pass: Pass) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX is available (checked above).
            unsafe { self.run_avx(seg, z, l, pass) };
            return;
        }
        self.run_any(seg, z, l, pass);
    }

    /// [`Self::run_any`] compiled for AVX (four lanes in one register).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn run_avx(&self, seg: &Segment, z: (&mut [Row], &mut [Row]), l: &[f64], pass: Pass) {
        self.run_any(seg, z, l, pass);
    }

    /// One pass over a segment's panels: `own` holds the segment's rows, `outer` the top's
    /// (forward: a zeroed buffer taking the updates; backward: their solved values).
    #[inline(always)]
    fn run_any(
        &self,
        seg: &Segment,
        (own, outer): (&mut [Row], &mut [Row]),
        l: &[f64],
        pass: Pass,
    ) {
        let view = View {
            lo: seg.cols.start,
            top: self.top.cols.start,
        };
        let panels = &self.panels[seg.panels.clone()];
        match pass {
            Pass::Forward => {
                for p in panels {
                    view.forward(p, &self.rows[p.pattern.clone()], l, (own, outer));
                }
            }
            Pass::Backward => {
                for p in panels.iter().rev() {
                    view.backward(p, &self.rows[p.pattern.clone()], l, (own, outer));
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Pass {
    Forward,
    Backward,
}

/// A segment's rows: `own[r − lo]` for its own rows, `outer[r − top]` for the top's.
struct View {
    lo: usize,
    top: usize,
}

/// One panel's part of a pass: its values `lp` (column-major, `ld` rows), its first row in
/// `own`, its width, its pattern rows inside its group and beyond (in the top).
struct PanelRef<'a> {
    lp: &'a [f64],
    ld: usize,
    s: usize,
    w: usize,
    inside: &'a [u32],
    beyond: &'a [u32],
}

impl View {
    fn panel<'a>(&self, p: &Panel, pattern: &'a [u32], l: &'a [f64]) -> PanelRef<'a> {
        let ld = p.width + pattern.len();
        let (inside, beyond) = pattern.split_at(p.inside);
        PanelRef {
            lp: &l[p.val..p.val + p.width * ld],
            ld,
            s: p.start - self.lo,
            w: p.width,
            inside,
            beyond,
        }
    }

    /// L·y = z over one panel, four columns at a time.
    #[inline(always)]
    fn forward(&self, p: &Panel, pattern: &[u32], l: &[f64], z: (&mut [Row], &mut [Row])) {
        let pr = self.panel(p, pattern, l);
        let (own, outer) = z;
        let mut c = 0;
        while c < pr.w {
            match pr.w - c {
                1 => self.forward_block::<1>(&pr, c, (&mut *own, &mut *outer)),
                2 => self.forward_block::<2>(&pr, c, (&mut *own, &mut *outer)),
                3 => self.forward_block::<3>(&pr, c, (&mut *own, &mut *outer)),
                _ => self.forward_block::<4>(&pr, c, (&mut *own, &mut *outer)),
            }
            c += (pr.w - c).min(4);
        }
    }

    /// Columns `c..c + NB` forward: their NB×NB triangle, then their updates to every row
    /// below them (the rest of the diagonal block, then the pattern).
    #[inline(always)]
    fn forward_block<const NB: usize>(
        &self,
        pr: &PanelRef,
        c: usize,
        (own, outer): (&mut [Row], &mut [Row]),
    ) {
        let (ld, s) = (pr.ld, pr.s);
        let cols: [&[f64]; NB] = std::array::from_fn(|j| &pr.lp[(c + j) * ld..(c + j + 1) * ld]);
        for j in 0..NB {
            let zj = div(own[s + c + j], cols[j][c + j]);
            own[s + c + j] = zj;
            for i in j + 1..NB {
                own[s + c + i] = sub(own[s + c + i], mul(cols[j][c + i], zj));
            }
        }
        let zb: [Row; NB] = std::array::from_fn(|j| own[s + c + j]);
        let n_below = ld - c - NB;
        let below: [&[f64]; NB] = std::array::from_fn(|j| &cols[j][c + NB..][..n_below]);
        let diag = pr.w - c - NB;
        let after = diag + pr.inside.len();
        let part = rows_of(&below, 0..diag);
        for (t, r) in own[s + c + NB..s + pr.w].iter_mut().enumerate() {
            *r = sub(*r, combine(row_of(&part, t), &zb));
        }
        let part = rows_of(&below, diag..after);
        for (k, &row) in pr.inside.iter().enumerate() {
            let r = &mut own[row as usize - self.lo];
            *r = sub(*r, combine(row_of(&part, k), &zb));
        }
        let part = rows_of(&below, after..n_below);
        for (k, &row) in pr.beyond.iter().enumerate() {
            let r = &mut outer[row as usize - self.top];
            *r = sub(*r, combine(row_of(&part, k), &zb));
        }
    }

    /// Lᵀ·w = y over one panel, four columns at a time from the last.
    #[inline(always)]
    fn backward(&self, p: &Panel, pattern: &[u32], l: &[f64], z: (&mut [Row], &mut [Row])) {
        let pr = self.panel(p, pattern, l);
        let (own, outer) = z;
        let mut c = pr.w;
        while c > 0 {
            match c {
                1 => self.backward_block::<1>(&pr, 0, (&mut *own, &*outer)),
                2 => self.backward_block::<2>(&pr, 0, (&mut *own, &*outer)),
                3 => self.backward_block::<3>(&pr, 0, (&mut *own, &*outer)),
                _ => self.backward_block::<4>(&pr, c - 4, (&mut *own, &*outer)),
            }
            c -= c.min(4);
        }
    }

    /// Columns `c0..c0 + NB` backward: their sums over every row below them, then their
    /// NB×NB triangle, last column first.
    #[inline(always)]
    fn backward_block<const NB: usize>(
        &self,
        pr: &PanelRef,
        c0: usize,
        (own, outer): (&mut [Row], &[Row]),
    ) {
        let (ld, s) = (pr.ld, pr.s);
        let cols: [&[f64]; NB] = std::array::from_fn(|j| &pr.lp[(c0 + j) * ld..(c0 + j + 1) * ld]);
        let n_below = ld - c0 - NB;
        let below: [&[f64]; NB] = std::array::from_fn(|j| &cols[j][c0 + NB..][..n_below]);
        let mut acc = [[0.0; 4]; NB];
        let diag = pr.w - c0 - NB;
        let after = diag + pr.inside.len();
        let part = rows_of(&below, 0..diag);
        for (t, &z) in own[s + c0 + NB..s + pr.w].iter().enumerate() {
            spread(&mut acc, row_of(&part, t), z);
        }
        let part = rows_of(&below, diag..after);
        for (k, &row) in pr.inside.iter().enumerate() {
            spread(&mut acc, row_of(&part, k), own[row as usize - self.lo]);
        }
        let part = rows_of(&below, after..n_below);
        for (k, &row) in pr.beyond.iter().enumerate() {
            spread(&mut acc, row_of(&part, k), outer[row as usize - self.top]);
        }
        for j in (0..NB).rev() {
            let mut zj = sub(own[s + c0 + j], acc[j]);
            for i in j + 1..NB {
                zj = sub(zj, mul(cols[j][c0 + i], own[s + c0 + i]));
            }
            own[s + c0 + j] = div(zj, cols[j][c0 + j]);
        }
    }
}

/// Rows `range` of a block's columns, one slice per column.
#[inline(always)]
fn rows_of<'a, const NB: usize>(cols: &[&'a [f64]; NB], range: Range<usize>) -> [&'a [f64]; NB] {
    std::array::from_fn(|j| &cols[j][range.clone()])
}

/// Row `k` of a block: one value per column.
#[inline(always)]
fn row_of<const NB: usize>(part: &[&[f64]; NB], k: usize) -> [f64; NB] {
    std::array::from_fn(|j| part[j][k])
}

/// Σⱼ lⱼ·zⱼ over a block's columns, in pairs.
#[inline(always)]
fn combine<const NB: usize>(l: [f64; NB], z: &[Row; NB]) -> Row {
    let mut sum = [0.0; 4];
    for j in (0..NB).step_by(2) {
        let pair = if j + 1 < NB {
            add(mul(l[j], z[j]), mul(l[j + 1], z[j + 1]))
        } else {
            mul(l[j], z[j])
        };
        sum = add(sum, pair);
    }
    sum
}

/// accⱼ += lⱼ·z for a block's columns.
#[inline(always)]
fn spread<const NB: usize>(acc: &mut [Row; NB], l: [f64; NB], z: Row) {
    for j in 0..NB {
        acc[j] = add(acc[j], mul(l[j], z));
    }
}

/// The fill-reducing permutation of faer's symbolic factor `sym`: row i of P·b is row
/// `perm[i]` of b (the identity where it has none).
pub(crate) fn permutation(
    sym: &faer::sparse::linalg::cholesky::SymbolicCholesky<usize>,
) -> Vec<u32> {
    match sym.perm() {
        Some(p) => p.arrays().0.iter().map(|&i| i as u32).collect(),
        None => (0..sym.nrows() as u32).collect(),
    }
}

/// Reads faer's supernodal factor structure into panels (all rows counted as inside until
/// [`Panels::split`]).
fn read_panels(
    sn: &faer::sparse::linalg::cholesky::supernodal::SymbolicSupernodalCholesky<usize>,
) -> (Vec<Panel>, Vec<u32>) {
    let (mut panels, mut rows) = (Vec::new(), Vec::new());
    let (begin, end) = (sn.supernode_begin(), sn.supernode_end());
    let (rp, vp) = (sn.col_ptr_for_row_idx(), sn.col_ptr_for_val());
    for k in 0..sn.n_supernodes() {
        let width = end[k] - begin[k];
        let below = (vp[k + 1] - vp[k]) / width - width;
        let first = rows.len();
        rows.extend(sn.row_idx()[rp[k]..rp[k] + below].iter().map(|&r| r as u32));
        panels.push(Panel {
            start: begin[k],
            width,
            pattern: first..rows.len(),
            inside: below,
            val: vp[k],
        });
    }
    (panels, rows)
}

/// Where the tree splits: `(a_end, top_start)` — group a is columns `0..a_end`, group b
/// `a_end..top_start`, the top `top_start..n`. Everything is top (no split) when the panels
/// are not in postorder or the tree has no fork.
fn cut(panels: &[Panel], rows: &[u32], n: usize) -> (usize, usize) {
    let m = panels.len();
    let panel_of = |col: usize| panels.partition_point(|p| p.start + p.width <= col);
    // Parent: the panel holding the first row below; children in ascending order.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); m + 1];
    for (k, p) in panels.iter().enumerate() {
        let parent = rows[p.pattern.clone()]
            .first()
            .map_or(m, |&r| panel_of(r as usize));
        children[parent].push(k);
    }
    // Postorder: each panel's subtree is the run of panels just before it.
    let mut size = vec![1usize; m + 1];
    let mut first = vec![0usize; m + 1];
    for k in 0..=m {
        size[k] += children[k].iter().map(|&c| size[c]).sum::<usize>();
        first[k] = (k + 1).saturating_sub(size[k]);
        if children[k].iter().any(|&c| first[c] < first[k] || c >= k) && k < m {
            return (0, 0);
        }
    }
    // Down the chain of single children from the (virtual) root.
    let (mut node, mut top_start) = (m, n);
    while children[node].len() == 1 {
        node = children[node][0];
        top_start = panels[node].start;
    }
    let kids = &children[node];
    if kids.len() < 2 {
        return (0, 0);
    }
    // Work of each kid's subtree: its entries of L; cut the kids into two runs.
    let work: Vec<usize> = kids
        .iter()
        .map(|&k| {
            panels[first[k]..=k]
                .iter()
                .map(|p| p.width * (p.width + p.pattern.len()))
                .sum()
        })
        .collect();
    let total: usize = work.iter().sum();
    let (mut best, mut best_gap, mut acc) = (1, usize::MAX, 0);
    for (i, w) in work.iter().enumerate().take(kids.len() - 1) {
        acc += w;
        let gap = acc.abs_diff(total - acc);
        if gap < best_gap {
            (best, best_gap) = (i + 1, gap);
        }
    }
    let a_end = panels[first[kids[best]]].start;
    (a_end, top_start)
}

#[inline(always)]
pub(crate) fn mul(s: f64, a: Row) -> Row {
    [s * a[0], s * a[1], s * a[2], s * a[3]]
}

#[inline(always)]
pub(crate) fn div(a: Row, d: f64) -> Row {
    [a[0] / d, a[1] / d, a[2] / d, a[3] / d]
}

#[inline(always)]
pub(crate) fn add(a: Row, b: Row) -> Row {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
}

#[inline(always)]
pub(crate) fn sub(a: Row, b: Row) -> Row {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]
}
