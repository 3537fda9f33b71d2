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
    /// Fast mass-spring's friction spring to an anchor (`None`: backward Euler's lagged
    /// friction).
    pub anchored: Option<Anchored>,
    /// Where it was seen from.
    pub seen: Seen,
    /// The way its node was driven, for seed 004's directional roughness (`None` for a
    /// node without a front).
    pub drive: Option<Drive>,
}

/// Fast mass-spring's friction on a plane (`solvers/fms/friction.rs`): a spring along the
/// surface from the node to an anchor a, F = −kₜ·P·(x − a) with kₜ = 0.7/(h²·Rₚ), held
/// while |F| ≤ μs·λ, else sliding with F = μk·λ along it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Anchored {
    /// The anchor a \[m].
    pub at: [f64; 3],
    /// Whether a is the node's anchor from the last step moved with the surface (else
    /// the node's start x₀).
    pub kept: bool,
    /// Rₚ = Σ_q (Q⁻¹)_{iₚ i_q} over the active planes \[1/kg].
    pub reach: f64,
    /// Whether this plane's anchor is its node's for the next step (its node's first
    /// active plane).
    pub passed_on: bool,
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
    /// The energy fast mass-spring's step shed after it (`solvers/fms`), if any.
    pub shed: Option<Shed>,
}

/// Fast mass-spring's kept contact step of an undriven model gives back the energy it
/// gained out of its kinetic energy: v ← α·v on the free nodes, α = √(1 − ΔE/K₁).
#[derive(Debug, Clone)]
pub(crate) struct Shed {
    /// α (0 where ΔE ≥ K₁: the step ended at rest).
    pub alpha: f64,
    /// ΔE = E₁ − E₀, the energy the step gained \[J].
    pub gain: f64,
    /// K₁, the kinetic energy it ended with before the shed \[J].
    pub kinetic: f64,
    /// The velocities v₁ before the shed [m/s] (kept only for a step the gradient
    /// records).
    pub before: Vec<[f64; 3]>,
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
