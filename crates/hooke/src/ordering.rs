//! Node orderings for locality: reverse Cuthill–McKee (Cuthill & McKee 1969; George & Liu,
//! "Computer Solution of Large Sparse Positive Definite Systems", 1981, ch. 4).
//!
//! The spring kernels gather each spring's two ends. Where a spring's ends are numbered far
//! apart, every gather misses the caches; where neighbours get nearby numbers, the nodes a
//! block of springs reads sit in a few cache lines. Cuthill–McKee numbers the nodes in
//! breadth-first order from a node at the rim of the graph, each node's unnumbered
//! neighbours by increasing degree, so that the largest index gap over the springs (the
//! bandwidth) stays near the width of one breadth-first level; reversing the order keeps
//! the bandwidth and is the usual choice.
//!
//! The start of each connected component is a pseudo-peripheral node (George & Liu's
//! algorithm): from a node of least degree, repeatedly the least-degree node of the last
//! breadth-first level, while that lengthens the level structure. Ties go to the lower
//! index, so the order depends only on the graph.

/// The graph on `n` nodes with the edges `pairs`, as adjacency lists (compressed rows),
/// each sorted, without repeats or self-loops.
struct Graph {
    start: Vec<usize>,
    adj: Vec<u32>,
}

impl Graph {
    fn new(n: usize, pairs: &[(u32, u32)]) -> Self {
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b) in pairs.iter().filter(|(a, b)| a != b) {
            lists[a as usize].push(b);
            lists[b as usize].push(a);
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(2 * pairs.len());
        start.push(0);
        for l in &mut lists {
            l.sort_unstable();
            l.dedup();
            adj.extend_from_slice(l);
            start.push(adj.len());
        }
        Self { start, adj }
    }

    fn neighbours(&self, i: u32) -> &[u32] {
        &self.adj[self.start[i as usize]..self.start[i as usize + 1]]
    }

    fn degree(&self, i: u32) -> usize {
        self.neighbours(i).len()
    }
}

/// A node order for locality: `order[k]` is the node (in the given numbering) that becomes
/// node k. Reverse Cuthill–McKee over the graph of `pairs` on `n` nodes, component after
/// component (in the order of their lowest node).
///
/// # Panics
/// If a pair names a node ≥ `n`.
pub(crate) fn reverse_cuthill_mckee(n: usize, pairs: &[(u32, u32)]) -> Vec<u32> {
    let g = Graph::new(n, pairs);
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut numbered = vec![false; n];
    // Breadth-first searches mark the nodes they reach with their own stamp.
    let mut stamp = vec![0u32; n];
    let mut stamps = 0u32;
    for s in 0..n as u32 {
        if numbered[s as usize] {
            continue;
        }
        let root = peripheral(&g, s, (&mut stamp, &mut stamps));
        cuthill_mckee(&g, root, &mut numbered, &mut order);
    }
    order.reverse();
    order
}

/// The breadth-first levels from `root`, the nodes of each in the order reached; marks
/// every node reached with a new stamp.
fn levels(g: &Graph, root: u32, (stamp, stamps): (&mut [u32], &mut u32)) -> Vec<Vec<u32>> {
    *stamps += 1;
    let mark = *stamps;
    stamp[root as usize] = mark;
    let mut out = vec![vec![root]];
    loop {
        let mut next = Vec::new();
        for &i in out.last().expect("one level at least") {
            for &j in g.neighbours(i) {
                if stamp[j as usize] != mark {
                    stamp[j as usize] = mark;
                    next.push(j);
                }
            }
        }
        if next.is_empty() {
            return out;
        }
        out.push(next);
    }
}

/// A pseudo-peripheral node of the component of `s`: from its least-degree node, the
/// least-degree node of the last level, while that makes more levels.
fn peripheral(g: &Graph, s: u32, marks: (&mut [u32], &mut u32)) -> u32 {
    let (stamp, stamps) = marks;
    let least = |nodes: &[u32]| {
        *nodes
            .iter()
            .min_by_key(|&&i| (g.degree(i), i))
            .expect("a level is never empty")
    };
    let component: Vec<u32> = levels(g, s, (stamp, stamps)).concat();
    let mut root = least(&component);
    let mut depth = levels(g, root, (stamp, stamps));
    // Each round lengthens the structure by one level at least: a few rounds suffice.
    for _ in 0..16 {
        let candidate = least(depth.last().expect("one level at least"));
        let further = levels(g, candidate, (stamp, stamps));
        if further.len() <= depth.len() {
            break;
        }
        (root, depth) = (candidate, further);
    }
    root
}

/// Cuthill–McKee from `root`: breadth-first, each node's unnumbered neighbours in order of
/// increasing degree (then index), appended to `order`.
fn cuthill_mckee(g: &Graph, root: u32, numbered: &mut [bool], order: &mut Vec<u32>) {
    let mut head = order.len();
    numbered[root as usize] = true;
    order.push(root);
    let mut fresh: Vec<u32> = Vec::new();
    while head < order.len() {
        let i = order[head];
        head += 1;
        fresh.clear();
        fresh.extend(g.neighbours(i).iter().filter(|&&j| !numbered[j as usize]));
        fresh.sort_unstable_by_key(|&j| (g.degree(j), j));
        for &j in &fresh {
            numbered[j as usize] = true;
            order.push(j);
        }
    }
}

/// The largest index gap |a − b| over `pairs` (the bandwidth of their graph's matrix).
pub(crate) fn bandwidth(pairs: impl IntoIterator<Item = (u32, u32)>) -> u32 {
    pairs
        .into_iter()
        .map(|(a, b)| a.abs_diff(b))
        .max()
        .unwrap_or(0)
}

/// For `order` (new → old), the new number of each old node.
pub(crate) fn inverse(order: &[u32]) -> Vec<u32> {
    let mut new_of = vec![0u32; order.len()];
    for (k, &i) in order.iter().enumerate() {
        new_of[i as usize] = k as u32;
    }
    new_of
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edges of a `w × h` grid (right and down neighbours) under the numbering `num`.
    fn grid(w: u32, h: u32, num: impl Fn(u32) -> u32) -> Vec<(u32, u32)> {
        let mut e = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                if x + 1 < w {
                    e.push((num(i), num(i + 1)));
                }
                if y + 1 < h {
                    e.push((num(i), num(i + w)));
                }
            }
        }
        e
    }

    /// A permutation of 0..n that scatters neighbours (multiplication by a unit mod n).
    fn scatter(n: u32) -> impl Fn(u32) -> u32 {
        move |i| ((i as u64 * 7919) % n as u64) as u32
    }

    fn renumbered(pairs: &[(u32, u32)], order: &[u32]) -> Vec<(u32, u32)> {
        let new_of = inverse(order);
        pairs
            .iter()
            .map(|&(a, b)| (new_of[a as usize], new_of[b as usize]))
            .collect()
    }

    #[test]
    fn a_scattered_grid_gets_back_a_bandwidth_of_about_its_width() {
        // 40 × 30 nodes numbered so that neighbours land far apart.
        let (w, h) = (40, 30);
        let pairs = grid(w, h, scatter(w * h));
        assert!(bandwidth(pairs.iter().copied()) > 1000);
        let order = reverse_cuthill_mckee((w * h) as usize, &pairs);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..w * h).collect::<Vec<_>>(), "a permutation");
        // Breadth-first levels of a grid from a corner are its anti-diagonals: at most
        // min(w, h) nodes each, so no edge spans more than two levels' worth of nodes.
        let bw = bandwidth(renumbered(&pairs, &order));
        assert!(bw <= 2 * h, "bandwidth {bw}, grid {w} × {h}");
    }

    #[test]
    fn a_path_numbered_backwards_and_forwards_comes_out_in_path_order() {
        // 0 - 5 - 1 - 4 - 2 - 3: the rim nodes are 0 and 3.
        let pairs = [(0, 5), (5, 1), (1, 4), (4, 2), (2, 3)];
        let order = reverse_cuthill_mckee(6, &pairs);
        assert_eq!(bandwidth(renumbered(&pairs, &order)), 1);
    }

    #[test]
    fn components_isolated_nodes_self_loops_and_repeats_are_all_numbered_once() {
        // Two triangles, an isolated node (6), a self-loop and a repeated edge.
        let pairs = [
            (0, 1),
            (1, 2),
            (2, 0),
            (3, 4),
            (4, 5),
            (5, 3),
            (4, 4),
            (0, 1),
        ];
        let order = reverse_cuthill_mckee(7, &pairs);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..7).collect::<Vec<_>>());
        assert!(bandwidth(renumbered(&pairs, &order)) <= 2);
        assert_eq!(reverse_cuthill_mckee(0, &[]), Vec::<u32>::new());
    }

    #[test]
    fn the_order_depends_only_on_the_graph() {
        let pairs = grid(12, 9, scatter(108));
        let mut shuffled = pairs.clone();
        shuffled.reverse();
        assert_eq!(
            reverse_cuthill_mckee(108, &pairs),
            reverse_cuthill_mckee(108, &shuffled)
        );
    }
}
