//! Surface contacts inside a solver's own small steps.
//!
//! A projection after the step (the `contacts` stage) is right for small steps, but at a
//! frame-sized step it fights the solver: the solver, not knowing the surface, pulls a
//! draped node back inside by the springs' tension; the projection pushes it out again,
//! doing work against the springs every step, and that work piles up as spring energy
//! (a cloth on a sphere at 60 Hz went from 4.9 J to 187 J with fast mass-spring, 4 861 J
//! with XPBD). XPBD therefore projects the nodes out of the surfaces in every one of its
//! small substeps, after the springs (Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke &
//! Müller 2019, "Small steps in physics simulation"), with position-based Coulomb friction
//! (Macklin, Müller, Chentanez & Kim 2014, "Unified particle physics", §6.1): a node
//! pushed out by a depth d sticks (its slide over the surface this substep is undone) while
//! the slide is under μs·d, and otherwise slides μk·d less — [`respond::friction`] with the
//! normal velocity change Δvₙ = d/h. The `contacts` stage still runs after the step: it
//! separates node radii (self-collision) and finds nothing left to do on the surfaces.

use super::placement::Placements;
use super::respond::{self, NodeContact};
use super::surface::{Hit, Posed};
use crate::model::Model;
use crate::real::NodeRow;
use crate::real::{Real, Vec3};

/// The surfaces of one integration step, for a solver that handles them itself.
pub(crate) struct SolverContacts<'a> {
    posed: Posed<'a>,
    model: &'a Model,
    /// Where the colliders are over the step.
    placements: &'a Placements,
    /// The positions at the start of the step, where nodes take their fronts from.
    fronts_at: Vec<Vec3>,
}

/// What [`SolverContacts::push_out`] did to one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pushed {
    /// The outward normal of the last surface it touched.
    pub normal: Vec3,
    /// That surface's velocity [m/s].
    pub velocity: Vec3,
    /// That surface's coefficient of restitution.
    pub restitution: Real,
}

impl<'a> SolverContacts<'a> {
    /// The surfaces placed (as `placements` has them) for the step from `t0` to `t1` \[s];
    /// `None` when the scene has none. `fronts_at`: positions at the start of the step.
    pub(crate) fn new(
        model: &'a Model,
        placements: &'a Placements,
        (t0, t1): (f64, f64),
        fronts_at: &[impl NodeRow],
    ) -> Option<Self> {
        let contacts = &model.contacts;
        contacts.has_surfaces().then(|| Self {
            posed: Posed::new(contacts, placements, t0, t1),
            model,
            placements,
            fronts_at: fronts_at.iter().map(|p| p.vec3()).collect(),
        })
    }

    /// Node `i`'s collision radius \[m].
    pub(crate) fn radius(&self, i: usize) -> Real {
        self.model.nodes.radius(i)
    }

    /// The surfaces node `i` at `p` is within its radius of, in order.
    pub(crate) fn hits(&self, i: usize, p: Vec3) -> impl Iterator<Item = Hit> + '_ {
        self.numbered_hits(i, p).map(|(_, hit)| hit)
    }

    /// As [`Self::hits`] for a node that did not move here over a step (a scene's start):
    /// a mesh solid is searched inside too, however deep.
    pub(crate) fn hits_at_rest(&self, i: usize, p: Vec3) -> impl Iterator<Item = Hit> + '_ {
        let r = self.model.nodes.radius(i);
        (0..self.posed.len()).filter_map(move |k| self.posed.touch(k, p, r))
    }

    /// [`Self::hits`] with each surface's number (as [`Posed::touch`] numbers them). A
    /// mesh collider is seen from the side the node started the step on: where its path
    /// from the start to `p` crosses the mesh, the surface is the crossed face's plane
    /// ([`Posed::touch_along`]), so a node predicted through a sheet is held on its side.
    pub(crate) fn numbered_hits(
        &self,
        i: usize,
        p: Vec3,
    ) -> impl Iterator<Item = (usize, Hit)> + '_ {
        let (r, x0) = (self.model.nodes.radius(i), self.fronts_at[i]);
        (0..self.posed.len())
            .filter_map(move |k| self.posed.touch_along(k, p, x0, r).map(|h| (k, h)))
    }

    /// The mesh colliders node `i`'s path from its start to `p` crosses, each with the
    /// crossed face's plane turned towards its start ([`Posed::crossed`]).
    pub(crate) fn crossings(&self, i: usize, p: Vec3) -> impl Iterator<Item = (usize, Hit)> + '_ {
        let x0 = self.fronts_at[i];
        (0..self.posed.len()).filter_map(move |k| self.posed.crossed(k, p, x0).map(|h| (k, h)))
    }

    /// Places the surfaces for the part of the step from `t0` to `t1` \[s] (a solver's
    /// small step), which [`Self::push_out`] then sees.
    pub(crate) fn place(&mut self, (t0, t1): (f64, f64)) {
        self.posed = Posed::new(&self.model.contacts, self.placements, t0, t1);
    }

    /// Node `i`'s contact as [`respond::friction`] needs it, `x_old` its position a step
    /// ago.
    pub(crate) fn node(&self, i: usize, x_old: Vec3) -> NodeContact {
        let rough = self.model.nodes.roughness(i);
        NodeContact {
            radius: self.model.nodes.radius(i),
            x_old,
            front: rough.front(i, &self.fronts_at),
            roughness: rough,
        }
    }

    /// Pushes node `i` (at `x`, at `x_prev` a small step `h` ago) out of each surface in
    /// turn (ground, terrain, colliders) to its radius, with Coulomb friction on its slide
    /// over the surface; the surfaces are placed for that small step ([`Self::place`]),
    /// and a mesh is seen from the side of it `x_prev` is on. Returns the last surface it
    /// touched.
    pub(crate) fn push_out(&self, i: usize, x: &mut Vec3, x_prev: Vec3, h: Real) -> Option<Pushed> {
        let r = self.model.nodes.radius(i);
        let mut last = None;
        for k in 0..self.posed.len() {
            let Some(hit) = self.posed.touch_along(k, *x, x_prev, r) else {
                continue;
            };
            let depth = r - hit.phi;
            *x += hit.normal * depth;
            let node = self.node(i, x_prev);
            // The slide over the surface this small step, as a velocity.
            let slide = (*x - x_prev) / h - hit.velocity;
            let vt = slide - hit.normal * slide.dot(hit.normal);
            respond::friction(x, vt, &node, &hit, (depth / h, 1.0), h);
            last = Some(Pushed {
                normal: hit.normal,
                velocity: hit.velocity,
                restitution: hit.restitution,
            });
        }
        last
    }
}
