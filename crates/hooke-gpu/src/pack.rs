//! The worlds of a batch packed into one set of arrays, as the kernels read them
//! (`step.wgsl`): nodes and springs of every world one after another, spring ends and
//! node ranges shifted by the world's offsets, so one dispatch steps them all.
//!
//! Concatenating keeps each world's kernel order (springs sorted by end a) and so the
//! CPU's summation order per node: a world steps the same in a batch as alone.

use bytemuck::{Pod, Zeroable};
use hooke::Simulation;
use hooke::backend::ExplicitStep;

use crate::surfaces::{self, GpuNodeContact, GpuSurface, v4};

/// One spring as the spring kernel reads it (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct GpuSpring {
    pub a: u32,
    pub b: u32,
    pub rest: f32,
    pub k: f32,
    pub c_axial: f32,
    pub c_iso: f32,
    pub compress: f32,
    /// 1 + break strain (tears past rest·limit at the end of a step), or 0: never.
    pub limit: f32,
}

/// One world's constants as the kernels read them (48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct GpuWorld {
    pub h: f32,
    pub retention: f32,
    pub air_drag: f32,
    /// No bounce below this approach speed: `Contacts::bounce_threshold` [m/s].
    pub threshold: f32,
    pub wind: [f32; 4],
    /// Its surfaces: the first in a row of surfaces, and how many.
    pub surfaces: [u32; 2],
    /// 1 for velocity Verlet, 0 for symplectic Euler.
    pub verlet: u32,
    pub _pad: u32,
}

/// Node flag: pinned without a path (v = 0 after each integration step).
pub(crate) const PINNED: u32 = 1;

/// Every world of a batch in the kernels' layout.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Packed {
    pub springs: Vec<GpuSpring>,
    pub worlds: Vec<GpuWorld>,
    /// Per node: constant force m·g + fields (xyz) \[N] and inverse mass (w) [1/kg].
    pub node_force: Vec<[f32; 4]>,
    /// Per node and one past the last: (a_start, b_start, world, flags).
    pub node_index: Vec<[u32; 4]>,
    /// Positions where each node is end b, node by node.
    pub b_pos: Vec<u32>,
    /// The anchored nodes of every world (global node indices).
    pub anchors: Vec<u32>,
    /// Per node: what it brings to a contact.
    pub node_contact: Vec<GpuNodeContact>,
    /// Every world's surfaces placed for its first integration step (one row).
    pub surfaces: Vec<GpuSurface>,
    /// Every world's terrain grids (heights, roughness, static roughness), one after
    /// another.
    pub grids: Vec<f32>,
    /// Where each world's terrain grids start (see `GpuSurface::grid`).
    pub grid_at: Vec<[u32; 4]>,
    /// Per muscle of every world: its spring's global kernel position.
    pub muscle_pos: Vec<u32>,
    /// Per muscle of every world: its rest length before modulation L₀ \[m].
    pub muscle_rest: Vec<f32>,
    /// Per node: Verlet's acceleration [m/s²] (zero in symplectic worlds).
    pub accel: Vec<[f32; 4]>,
    /// Whether any world steps with Verlet.
    pub verlet: bool,
    /// Whether any spring of any world can tear.
    pub tears: bool,
    /// Each world's first node, first spring and first anchor.
    pub offsets: Vec<(u32, u32, u32)>,
}

impl Packed {
    /// Packs the worlds in order: each simulation with its explicit step.
    pub(crate) fn new(sims: &[&Simulation], steps: &[ExplicitStep]) -> Self {
        let mut p = Packed::default();
        for (w, (sim, s)) in sims.iter().zip(steps).enumerate() {
            p.push(w as u32, s);
            p.push_contacts(sim, s);
        }
        let (n, m) = (p.node_force.len() as u32, p.springs.len() as u32);
        p.node_index.push([m, m, 0, 0]);
        debug_assert_eq!(p.node_index.len() as u32, n + 1);
        p
    }

    fn push(&mut self, world: u32, s: &ExplicitStep) {
        let (n0, m0) = (self.node_force.len() as u32, self.springs.len() as u32);
        self.offsets.push((n0, m0, self.anchors.len() as u32));
        self.worlds.push(GpuWorld {
            h: s.h as f32,
            retention: s.retention as f32,
            air_drag: s.air_drag as f32,
            wind: v4(s.wind, 0.0),
            verlet: s.verlet_accel.is_some() as u32,
            ..Default::default()
        });
        match &s.verlet_accel {
            Some(a) => {
                self.accel.extend(a.iter().map(|&ai| v4(ai, 0.0)));
                self.verlet = true;
            }
            None => self.accel.extend((0..s.inv_mass.len()).map(|_| [0.0; 4])),
        }
        for p in 0..s.a.len() {
            self.springs.push(GpuSpring {
                a: s.a[p] + n0,
                b: s.b[p] + n0,
                rest: s.rest[p] as f32,
                k: s.k[p] as f32,
                c_axial: s.c_axial[p] as f32,
                c_iso: s.c_iso[p] as f32,
                compress: s.compress[p] as f32,
                limit: s
                    .tear_limits
                    .as_ref()
                    .map_or(0.0, |l| if l[p].is_finite() { l[p] as f32 } else { 0.0 }),
            });
        }
        let n = s.inv_mass.len();
        let mut flags = vec![0u32; n];
        for &i in &s.pinned {
            flags[i as usize] |= PINNED;
        }
        for (i, &flag) in flags.iter().enumerate() {
            self.node_force.push(v4(s.fconst[i], s.inv_mass[i]));
            let (a0, b0) = (s.a_start[i] + m0, s.b_start[i] + m0);
            self.node_index.push([a0, b0, world, flag]);
        }
        self.b_pos.extend(s.b_pos.iter().map(|&p| p + m0));
        self.tears |= s.tear_limits.is_some();
        self.anchors.extend(s.anchored.iter().map(|&i| i + n0));
        self.muscle_pos
            .extend(s.muscles.iter().map(|&(p, _)| p + m0));
        self.muscle_rest
            .extend(s.muscles.iter().map(|&(_, l)| l as f32));
    }
}

impl Packed {
    /// The world's nodes as contacts see them, its surfaces and its bounce threshold.
    fn push_contacts(&mut self, sim: &Simulation, s: &ExplicitStep) {
        let model = sim.model();
        let first = self.offsets.last().expect("pushed").0;
        self.node_contact
            .extend(surfaces::node_contacts(model, first));
        let contacts = model.contacts();
        let t0 = sim.state().t();
        let grid = surfaces::push_grids(contacts, &mut self.grids);
        self.grid_at.push(grid);
        let placed = surfaces::placed(contacts, t0, t0 + s.h as f64, grid);
        let world = self.worlds.last_mut().expect("pushed");
        world.surfaces = [self.surfaces.len() as u32, placed.len() as u32];
        let g = model.env().gravity.length();
        world.threshold = contacts.bounce_threshold(g, s.h) as f32;
        self.surfaces.extend(placed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim_of(name: &str, params: &[(&str, &str)]) -> Simulation {
        let params: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Simulation::new(hooke::builders::build(name, &params).unwrap())
    }

    /// Two worlds: the second's ends, ranges and b-positions are shifted by the first's
    /// sizes, and the sentinel closes the last node's ranges.
    #[test]
    fn second_world_is_shifted_by_the_first() {
        let mut sims = [
            sim_of("cloth", &[("width", "4"), ("height", "3")]),
            sim_of("string", &[]),
        ];
        let steps: Vec<ExplicitStep> = sims
            .iter_mut()
            .map(|s| s.explicit_step().unwrap())
            .collect();
        let (s1, s2) = (&steps[0], &steps[1]);
        let p = Packed::new(&[&sims[0], &sims[1]], &steps);
        let (n1, m1) = (s1.inv_mass.len() as u32, s1.a.len() as u32);
        assert_eq!(p.offsets[1], (n1, m1, s1.anchored.len() as u32));
        assert_eq!(p.springs[m1 as usize].a, s2.a[0] + n1);
        assert_eq!(p.springs[m1 as usize].b, s2.b[0] + n1);
        let last = p.node_index.len() - 1;
        assert_eq!(p.node_index[last][0], p.springs.len() as u32);
        assert_eq!(
            p.node_index[n1 as usize],
            [m1, m1, 1, p.node_index[n1 as usize][3]]
        );
        assert_eq!(p.b_pos[s1.b_pos.len()], s2.b_pos[0] + m1);
        // Node ranges cover every spring once, in order.
        assert!(p.node_index.windows(2).all(|w| w[0][0] <= w[1][0]));
        assert_eq!(p.node_contact.len(), p.node_force.len());
    }
}
