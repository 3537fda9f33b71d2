//! What a large-step solver leaves of a step's surface contacts for the gradient
//! (`grad/planes.rs`): each penalty plane its last solve counted
//! (`solvers/penalty/planes.rs`), where it was seen from and the friction's branch, and
//! the nodes static friction then held.

use crate::contact::coulomb::Coulomb;

/// What the point a surface's plane was seen from is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum From {
    /// The node's inertial prediction y = x₀ + h·v₀ + h²·M⁻¹·f_const.
    Prediction,
    /// The node's start x₀ (it was near no surface at its prediction).
    Start,
    /// Where a solve had put the node (the springs pushed it in).
    Iterate,
}

/// Which surface a plane is the tangent plane of, and the point it was taken at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seen {
    /// The surface, numbered as `Posed::touch` numbers them.
    pub surface: usize,
    /// What the point is.
    pub from: From,
    /// The point \[m].
    pub at: [f64; 3],
}

/// One surface plane a solved step counted (its node inside it at the last solve): the
/// node is in contact while n·x < o.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolvedPlane {
    /// The node.
    pub node: u32,
    /// The outward unit normal n.
    pub n: [f64; 3],
    /// The offset o \[m].
    pub offset: f64,
    /// The penalty stiffness κ [N/m].
    pub kappa: f64,
    /// The surface's velocity u [m/s].
    pub u: [f64; 3],
    /// The friction coefficients.
    pub mu: Coulomb<f64>,
    /// Whether its friction slid at the last solve (else held).
    pub slipping: bool,
    /// Where it was seen from.
    pub seen: Seen,
    /// The way its node was driven, for seed 004's directional roughness (`None` for a
    /// node without a front).
    pub drive: Option<Drive>,
}

/// How a node with seed 004's directional roughness was driven when its plane was made:
/// its roughness ρ(cos θ), cos θ = f̂ₜ·t, follows the direction t of P·w, with w its
/// velocity relative to the surface at the start (v₀ − u) or, where its slide P·(v₀ − u)
/// is below ε_v, where the start's forces push it (v₀ − u + h·f₀/m).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Drive {
    /// w [m/s].
    pub w: [f64; 3],
    /// Whether it is the start's forces' push (else the slide).
    pub by_forces: bool,
    /// The node's front at the start \[m].
    pub front: [f64; 3],
    /// The surface's kinetic and static roughness there.
    pub surface: (f64, f64),
}

/// A node static friction held after the solve.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    /// The node.
    pub node: u32,
    /// The normal of the plane that held it.
    pub n: [f64; 3],
    /// Whether it stayed where it was (else only its slide was undone).
    pub stayed: bool,
}

/// The surface contacts of one solved step.
#[derive(Debug, Clone, Default)]
pub(crate) struct SolvedContacts {
    /// The step \[s].
    pub h: f64,
    /// The planes the last solve counted, in the order they were found.
    pub planes: Vec<SolvedPlane>,
    /// The holds, in the order they were made.
    pub held: Vec<Held>,
    /// The held nodes' ends as the solve left them, before they were held: (node, x₁
    /// \[m], v' [m/s]).
    pub unheld: Vec<(u32, [f64; 3], [f64; 3])>,
}

/// The surface contacts of a large-step solver's last step (`Solver::solved_contacts`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum LastContacts<'a> {
    /// It touched nothing (or the solver takes its contacts otherwise).
    None,
    /// It was solved once with these planes.
    Solved(&'a SolvedContacts),
    /// It was taken in parts (halved), or by a solve that does not record its planes:
    /// why.
    Unrecorded(&'static str),
}
