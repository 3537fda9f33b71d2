//! The adjoint of an implicit step's surface contacts: the penalty planes backward Euler
//! solves with its springs (`solvers/penalty/planes.rs`), differentiated where the step
//! solves its equations, with the planes it counted and the friction's branches frozen.
//!
//! Each counted plane of node i — normal n, offset o, stiffness κ, the surface's velocity
//! u, friction coefficient μ — adds to the step's force the contact force
//!
//! F_c = κ·δ·n − c·vₜ,  δ = o − n·x₁,  vₜ = P·(v' − u),  P = I − n·nᵀ,
//!
//! with the lagged friction at its fixed point: sliding (|vₜ| > ε_v) c = μk·κ·δ/|vₜ|, so
//! that F_f = −μk·κ·δ·t (t = vₜ/|vₜ|, Coulomb's law with λ = κ·δ); holding c = μs·κ·δ/ε_v.
//! The step solves g(v') = M·(v' − v₀) − h·f(x₁, v') − h·F_c = 0 (x₁ = x₀ + h·v'), and its
//! adjoint (`implicit.rs`) takes F_c as one more force with
//!
//! ∂F_c/∂x₁ = −(κ·n + φ)·nᵀ,  ∂F_c/∂v' = −c·(P − t·tᵀ) sliding, −c·P holding,
//!
//! φ = ∂F_f/∂δ = −(μ·κ/s)·vₜ (s = max(|vₜ|, ε_v) sliding — as the forward pass smooths
//! it, for a step not solved to convergence — ε_v holding): Aᵀ·γ' gains
//! h·c·(P − [t·tᵀ])·γ' + h²·n·((κ·n + φ)·γ'), λx₀ gains (∂F_c/∂x₁)ᵀ·γ and λv₀ gains
//! (∂F_c/∂v')ᵀ·γ + h·(∂F_c/∂x₁)ᵀ·γ (γ = h·γ'). What the plane was made of gathers
//! γ·∂F_c/∂θ:
//!
//! * the mass m of M·(v' − v₀) = h·(f + F_c) gathers −γ·F_c/m;
//! * λo = γ·(κ·n + φ); λκ = γ·(δ·n − (c/κ)·vₜ); λμ = −(κ·δ/s)·γ·vₜ;
//! * λn = κ·δ·γ − x₁·λo + (∂vₜ/∂n)ᵀ·w, w = −c·(γ − [t·(t·γ)]), (∂vₜ/∂n)ᵀ·w =
//!   −(n·r)·w − r·(n·w) with r = v' − u;
//! * the plane is the surface's tangent plane seen from a point p, o = ρ − φ_s(p) + n(p)·p
//!   (ρ the node's radius): λp = λo·(n − ∇φ_s) + (∂n/∂p)ᵀ·(λn + p·λo) + ρ_n·(λμk·∇μk
//!   or λμs·∇μs) (ρ_n the node's roughness, `contact::surface::Slopes`);
//! * p is the node's prediction y = x₀ + h·v₀ + h²·f_held/m: λx₀ += λy, λv₀ += h·λy, the
//!   held forces (constant, gas, the program's) gather h²/m·λy, the mass
//!   h²·λy·(g_m/m − f_const/m²); or its start x₀ (λx₀ += λp); a plane found where a solve
//!   had put the node (the springs pushed it in) is kept where it was seen;
//! * κ = 100·(m/h² + Σₛ kₛ): the mass gathers 100/h²·λκ and each of its springs 100·λκ;
//! * seed 004's directional roughness follows the way the node was driven at the start
//!   and its front ([`drive_back`]): back to v₀, the start's forces (a spring pass at the
//!   start, `StepModel::back_force`) and the neighbours' starts.
//!
//! A node that static friction then held (`Planes::hold`) is differentiated as held: its
//! end x₁ = x₀ + h·u, v₁ = u if it had stopped (the solve does not reach it), else only
//! its slide undone, x₁ = x₀ + h·u + n·nᵀ·(x₁' − x₀ − h·u), so that μ keeps its part
//! along n.

use glam::{DMat3, DVec3};

use super::adjoint::{NodeAdjoint, StepModel};
use super::spring::{LANES, Params};
use crate::contact::solved::{Drive, From, SolvedContacts, SolvedPlane};
use crate::contact::surface::Posed;
use crate::model::Model;
use crate::real::{Real, Vec3, wide};
use crate::solvers::fms::friction::FRICTION_PULL;
use crate::solvers::implicit::workspace::ImplicitWs;
use crate::solvers::linalg::blocks::real;
use crate::solvers::penalty::planes::GAMMA;
use crate::solvers::penalty::term::EPS_V;

/// How a plane's friction acts, F_f = −c·P·r with r its argument (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Grip {
    /// Backward Euler's lagged friction: r = v' − u, c = μ·λ/s.
    Lagged,
    /// Fast mass-spring's slider: r = x₁ − a, c = μk·λ/|P·r| (F_f = μk·λ along −P·r).
    Slider,
    /// Fast mass-spring's spring holding: r = x₁ − a, c = kₜ \[N/m], whatever λ.
    Spring,
}

/// One counted plane at the step's end.
#[derive(Debug)]
pub(super) struct Contact {
    pub plane: SolvedPlane,
    pub i: usize,
    pub n: DVec3,
    pub kappa: f64,
    /// δ = o − n·x₁ \[m].
    pub delta: f64,
    /// x₁ \[m].
    pub x1: DVec3,
    /// The friction's argument r: v' − u [m/s] (lagged) or x₁ − a \[m] (anchored).
    pub rel: DVec3,
    /// P·r.
    pub vt: DVec3,
    pub grip: Grip,
    /// The friction's c (see [`Grip`]).
    pub c: f64,
    /// The unit slide t = P·r/s when sliding (zero when holding).
    pub t: DVec3,
    /// The friction coefficient of its branch, μk sliding, μs holding.
    pub mu: f64,
    /// s: |vₜ| (or ε_v) sliding, ε_v holding [m/s]; |P·r| for a slider \[m].
    pub s: f64,
    /// The normal force λ = max(κ·δ, 0) \[N].
    pub lambda: f64,
}

impl Contact {
    fn new(plane: SolvedPlane, h: f64, (x1, v): (&[Vec3], &[Vec3])) -> Self {
        let i = plane.node as usize;
        let n = DVec3::from(plane.n);
        let x1 = wide(x1[i]);
        let (rel, grip) = match (plane.anchored, plane.slipping) {
            (None, _) => (wide(v[i]) - DVec3::from(plane.u), Grip::Lagged),
            (Some(a), true) => (x1 - DVec3::from(a.at), Grip::Slider),
            (Some(a), false) => (x1 - DVec3::from(a.at), Grip::Spring),
        };
        let vt = rel - n * n.dot(rel);
        let delta = plane.offset - n.dot(x1);
        let sliding = plane.slipping;
        // s = max(|vₜ|, ε_v) sliding, as the friction is smoothed (a step not solved to
        // convergence may end slower than its branch says), ε_v holding.
        let (mu, s) = match (grip, sliding) {
            (Grip::Slider, _) => (plane.mu.kinetic, vt.length().max(f64::MIN_POSITIVE)),
            (_, true) => (plane.mu.kinetic, vt.length().max(EPS_V)),
            (_, false) => (plane.mu.stat, EPS_V),
        };
        // The normal force λ = κ·δ, none where the node ended outside (a step not solved
        // to convergence).
        let lambda = (plane.kappa * delta).max(0.0);
        // Below ε_v the smoothed friction is linear in vₜ: no turn with the slide.
        let t = if sliding && (grip == Grip::Slider || vt.length() > EPS_V) {
            vt / s
        } else {
            DVec3::ZERO
        };
        let c = match (grip, plane.anchored) {
            (Grip::Spring, Some(a)) => FRICTION_PULL / (h * h * a.reach),
            _ => mu * lambda / s,
        };
        Self {
            plane,
            i,
            n,
            kappa: plane.kappa,
            delta,
            x1,
            rel,
            vt,
            grip,
            c,
            t,
            mu,
            s,
            lambda,
        }
    }

    /// (P − t·tᵀ)·g, the friction's direction of change (t zero when holding).
    pub(super) fn across(&self, g: DVec3) -> DVec3 {
        g - self.n * self.n.dot(g) - self.t * self.t.dot(g)
    }

    /// φ = ∂F_f/∂δ (through λ = max(κ·δ, 0); none for a holding spring, nor where the
    /// node ended outside — a plane a step kept on, or one not solved to convergence).
    fn phi(&self) -> DVec3 {
        match self.grip {
            Grip::Spring => DVec3::ZERO,
            _ if self.lambda <= 0.0 => DVec3::ZERO,
            _ => self.vt * (-self.mu * self.kappa / self.s),
        }
    }

    /// Whether the friction's argument is the offset x₁ − a (else the velocity).
    fn by_offset(&self) -> bool {
        self.grip != Grip::Lagged
    }

    /// (∂F_c/∂x₁)ᵀ·g = −n·((κ·n + φ)·g), and −c·(P − t·tᵀ)·g where the friction pulls to
    /// an anchor.
    fn by_x(&self, g: DVec3) -> DVec3 {
        let normal = -self.n * (self.n * self.kappa + self.phi()).dot(g);
        match self.by_offset() {
            true => normal - self.c * self.across(g),
            false => normal,
        }
    }

    /// (∂F_c/∂v')ᵀ·g = −c·(P − t·tᵀ)·g for the lagged friction, else none.
    fn by_v(&self, g: DVec3) -> DVec3 {
        match self.by_offset() {
            true => DVec3::ZERO,
            false => -self.c * self.across(g),
        }
    }

    /// The contact force F_c = κ·δ·n − c·P·r \[N].
    pub(super) fn force(&self) -> DVec3 {
        self.n * (self.kappa * self.delta) - self.vt * self.c
    }

    /// γ·∂F_c/∂kₜ = −γ·P·r for a holding spring (else none) \[m].
    pub(super) fn l_kt(&self, g: DVec3) -> f64 {
        match self.grip {
            Grip::Spring => -g.dot(self.vt),
            _ => 0.0,
        }
    }
}

/// The counted planes and the holds of one implicit step, for its adjoint.
#[derive(Debug)]
pub(super) struct PlanesBack<'r> {
    h: f64,
    contacts: Vec<Contact>,
    record: &'r SolvedContacts,
}

impl<'r> PlanesBack<'r> {
    /// The planes of `record` at the step's end `end` = (x₁, v'), the held nodes as the
    /// solve left them ([`Self::unheld`]).
    pub(super) fn new(record: &'r SolvedContacts, end: (&[Vec3], &[Vec3])) -> Self {
        let contacts = (record.planes.iter())
            .map(|&p| Contact::new(p, record.h, end))
            .collect();
        Self {
            h: record.h,
            contacts,
            record,
        }
    }

    /// The step's end (x₁, v') with the held nodes where the solve had left them.
    pub(super) fn unheld(record: &SolvedContacts, end: (&mut [Vec3], &mut [Vec3])) {
        for &(i, x, v) in &record.unheld {
            (end.0[i as usize], end.1[i as usize]) = (real(x), real(v));
        }
    }

    /// The counted planes, in the record's order.
    pub(super) fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The step h \[s].
    pub(super) fn h(&self) -> f64 {
        self.h
    }

    /// The nodes with planes, ascending.
    pub(super) fn nodes(&self) -> Vec<u32> {
        let mut nodes: Vec<u32> = self.contacts.iter().map(|c| c.i as u32).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// μ = ∂L/∂v' through the holds, last first: a node that stayed where it was does
    /// not see v'; one whose slide was undone keeps μ's part along n.
    pub(super) fn hold_back(&self, mu: &mut [DVec3]) {
        for held in self.record.held.iter().rev() {
            let i = held.node as usize;
            let n = DVec3::from(held.n);
            mu[i] = match held.stayed {
                true => DVec3::ZERO,
                false => n * n.dot(mu[i]),
            };
        }
    }

    /// Adds the planes' share of Aᵀ·γ' to `out`: −h·(∂F_c/∂v')ᵀ·γ' − h²·(∂F_c/∂x₁)ᵀ·γ'.
    pub(super) fn add_transposed(&self, gp: &[DVec3], out: &mut [DVec3]) {
        let h = self.h;
        for c in &self.contacts {
            let g = gp[c.i];
            out[c.i] -= h * c.by_v(g) + h * h * c.by_x(g);
        }
    }

    /// Adds the planes' blocks h²·κ·n·nᵀ + h·c·(P − t·tᵀ) (h²·c for a friction to an
    /// anchor) — the symmetric part of their share of Aᵀ, the step's own blocks with the
    /// sliding friction's turn — to the matrix in `iws`, for the preconditioner.
    pub(super) fn add_blocks(&self, iws: &mut ImplicitWs) {
        let h = self.h;
        for c in &self.contacts {
            let hc = if c.by_offset() { h * h * c.c } else { h * c.c };
            let block = &mut iws.matrix.val[iws.pattern.diag[c.i]];
            let (n, t) = (c.n.to_array(), c.t.to_array());
            for (r, row) in block.iter_mut().enumerate() {
                for (k, entry) in row.iter_mut().enumerate() {
                    let across = f64::from(r == k) - n[r] * n[k] - t[r] * t[k];
                    *entry += h * h * c.kappa * n[r] * n[k] + hc * across;
                }
            }
        }
    }

    /// The friction's depth coupling with Â's diagonal blocks as `iws` holds them.
    pub(super) fn coupling(&self, iws: &ImplicitWs) -> Coupling {
        let h2 = self.h * self.h;
        let terms = (self.contacts.iter())
            .filter(|c| c.phi() != DVec3::ZERO)
            .map(|c| {
                let d = DMat3::from_cols_array_2d(&iws.matrix.val[iws.pattern.diag[c.i]]);
                (c.i, c.phi() * h2, d.transpose().inverse() * c.n)
            })
            .collect();
        Coupling { terms }
    }
}

/// The friction's depth coupling in Aᵀ, E = h²·Σ n·φᵀ node by node, which the factored Â
/// leaves out (it is not symmetric), taken out of the preconditioner by one local step:
/// (Â + E)⁻¹ = (I + Â⁻¹·E)⁻¹·Â⁻¹ ≈ (I − D⁻¹·E)·Â⁻¹, D Â's diagonal blocks. E's image lies
/// along the normals, where the contact's stiffness κ makes Â nearly diagonal, and E² = 0
/// (φ ⊥ n). On a 64×64 cloth resting on the ground: 9–11 GMRES iterations a step with
/// its own factor, 35–45 without the coupling's step.
#[derive(Debug, Default)]
pub(super) struct Coupling {
    /// Per plane with a depth coupling: its node, h²·φ and D⁻¹·n.
    terms: Vec<(usize, DVec3, DVec3)>,
}

impl Coupling {
    /// z ← (I − D⁻¹·E)·z.
    pub(super) fn take_out(&self, z: &mut [DVec3]) {
        let e: Vec<f64> = (self.terms.iter())
            .map(|&(i, h2_phi, _)| h2_phi.dot(z[i]))
            .collect();
        for (&(i, _, d_n), e) in self.terms.iter().zip(e) {
            z[i] -= d_n * e;
        }
    }
}

/// What going back through a step's planes sends on, per node: what the forces held over
/// the step gather (h²/m·λy), and the adjoint γ of the forces at the step's start
/// (h/m·λ of the push that drove a node with directional roughness).
pub(super) struct Sent {
    pub held: Vec<DVec3>,
    pub start_forces: Vec<DVec3>,
}

/// The node a directional plane belongs to: its index, the step \[s] and its inverse mass
/// \[1/kg].
struct Driven {
    i: usize,
    h: f64,
    inv_m: f64,
}

/// Goes back through seed 004's directional roughness of plane `c`, whose friction
/// coefficient gathered λμ = `l_mu`: ρ = ρ_b + (ρ_f − ρ_b)·(cos θ + 1)/2, cos θ = f̂ₜ·t with
/// fₜ = P·f the front in the plane and t = d/|d| the way the node was driven, d = P·w, w
/// its slide v₀ − u or its push v₀ − u + h·f₀/m (`Drive`). λcos = λμ·μ_s·(ρ_f − ρ_b)/2;
/// λt = f̂ₜ·λcos; λfₜ = (t − cos·f̂ₜ)·λcos/|fₜ| goes to the front (the forward neighbour's
/// start, and negated the backward one's) and to n; λd = (I − t·tᵀ)·λt/|d|, λw = P·λd to
/// v₀, and to the start's forces as γ = h/m·λw. Returns ρ.
fn drive_back(
    d: &Drive,
    (c, l_mu): (&Contact, f64),
    (node, model): (&Driven, &Model),
    l_n: &mut DVec3,
    (nodes, sent): (&mut [NodeAdjoint], &mut Sent),
) -> f64 {
    let Driven { i, h, inv_m } = *node;
    let rough = model.nodes.roughness(i);
    let n = c.n;
    let (front, w) = (DVec3::from(d.front), DVec3::from(d.w));
    let driven = w - n * n.dot(w);
    let ft = front - n * n.dot(front);
    let (l, len) = (ft.length(), driven.length());
    let t = if len > 0.0 { driven / len } else { DVec3::ZERO };
    let cos = if l > 0.0 { ft.dot(t) / l } else { 0.0 };
    let rho = rough.along(cos.clamp(-1.0, 1.0) as Real) as f64;
    if l <= 0.0 || len <= 0.0 || cos.abs() >= 1.0 {
        return rho;
    }
    let surface = if c.plane.slipping {
        d.surface.0
    } else {
        d.surface.1
    };
    let l_cos = l_mu * surface * (rough.forward - rough.backward) as f64 / 2.0;
    let f_hat = ft / l;
    let l_ft = (t - f_hat * cos) * (l_cos / l);
    *l_n -= l_ft * n.dot(front) + front * n.dot(l_ft);
    let to_front = l_ft - n * n.dot(l_ft);
    nodes[rough.forward_node.map_or(i, |f| f as usize)].x += to_front;
    nodes[rough.backward_node.map_or(i, |b| b as usize)].x -= to_front;
    let l_t = f_hat * l_cos;
    let l_d = (l_t - t * t.dot(l_t)) / len;
    // d = P·w: w's share, and n's.
    let l_w = l_d - n * n.dot(l_d);
    *l_n -= l_d * n.dot(w) + w * n.dot(l_d);
    nodes[i].v += l_w;
    if d.by_forces {
        sent.start_forces[i] += l_w * (h * inv_m);
    }
    rho
}

/// What going back through a step's planes reads besides them: the step's model in f64,
/// the scene's (the nodes' roughness, the surfaces) and its surfaces placed for the step.
pub(super) struct Around<'a> {
    pub sm: &'a StepModel,
    pub model: &'a Model,
    pub posed: Posed<'a>,
}

/// The adjoints of what a plane was made of: its offset o, stiffness κ, friction
/// coefficient μ and normal n (λn without its share through δ = o − n·x₁, which
/// [`PlanesBack::made_back`] adds as −x₁·λo).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Made {
    pub o: f64,
    pub kappa: f64,
    pub mu: f64,
    pub n: DVec3,
}

impl Contact {
    /// γ·∂F_c/∂(o, κ, μ, n): λo = γ·(κ·n + φ); λκ = γ·(δ·n − (c/κ)·P·r); λμ =
    /// −(κ·δ/s)·γ·P·r (a holding spring's c is neither κ's nor μ's); λn = κ·δ·γ − (n·r)·w
    /// − r·(n·w), w = −c·(γ − t·(t·γ)).
    fn made(&self, g: DVec3) -> Made {
        let spring = self.grip == Grip::Spring;
        let (kd, gvt) = (self.kappa * self.delta, g.dot(self.vt));
        let lambda = self.lambda;
        let w = (g - self.t * self.t.dot(g)) * -self.c;
        Made {
            o: g.dot(self.n * self.kappa + self.phi()),
            kappa: g.dot(self.n) * self.delta
                - if spring {
                    0.0
                } else {
                    self.c / self.kappa * gvt
                },
            mu: if spring { 0.0 } else { -lambda / self.s * gvt },
            n: g * kd - w * self.n.dot(self.rel) - self.rel * self.n.dot(w),
        }
    }
}

impl PlanesBack<'_> {
    /// Goes back through the planes with γ = h·A⁻ᵀ·μ (see the module docs): λx₀, λv₀
    /// and the masses' gradients in `nodes`, the springs' stiffness in `params`, with
    /// what each plane's anchor passed on to the next step sent back (`passed`, by plane;
    /// empty for backward Euler's); returns, per node, what the forces held over the step
    /// gather (h²/m·λy).
    pub(super) fn back(
        &self,
        (gamma, passed): (&[DVec3], &[Made]),
        (nodes, params): (&mut [NodeAdjoint], &mut [Params]),
        around: &Around,
    ) -> Sent {
        let h = self.h;
        let mut sent = Sent {
            held: vec![DVec3::ZERO; nodes.len()],
            start_forces: vec![DVec3::ZERO; nodes.len()],
        };
        for (k, c) in self.contacts.iter().enumerate() {
            let (i, g) = (c.i, gamma[c.i]);
            let by_x = c.by_x(g);
            nodes[i].x += by_x;
            nodes[i].v += c.by_v(g) + h * by_x;
            // M·(v' − v₀) = h·(f + F_c): the mass sees −w·γ·F_c beside the springs' share.
            nodes[i].mass -= around.sm.inverse_mass(i) * g.dot(c.force());
            let mut made = c.made(g);
            if let Some(p) = passed.get(k) {
                (made.o, made.kappa, made.mu) =
                    (made.o + p.o, made.kappa + p.kappa, made.mu + p.mu);
                made.n += p.n;
            }
            self.made_back((c, made), (nodes, params), around, &mut sent);
        }
        sent
    }

    /// Goes back from what plane `c` was made of (`made`) to the nodes, the masses and
    /// the springs (see the module docs: κ, and the tangent plane seen from a point).
    fn made_back(
        &self,
        (c, made): (&Contact, Made),
        (nodes, params): (&mut [NodeAdjoint], &mut [Params]),
        around: &Around,
        sent: &mut Sent,
    ) {
        let Around { sm, model, posed } = around;
        let (h, i) = (self.h, c.i);
        // ∂κ/∂m = 100/h², ∂κ/∂kₛ = 100.
        nodes[i].mass += GAMMA / (h * h) * made.kappa;
        for s in sm.springs_at(i) {
            params[s / LANES].k[s % LANES] += GAMMA * made.kappa;
        }
        let seen = c.plane.seen;
        if seen.from == From::Iterate {
            return;
        }
        let (inv_m, per_mass, fconst) = sm.node_forces(i);
        let (l_o, l_mu) = (made.o, made.mu);
        let mut l_n = made.n - c.x1 * l_o;
        let rho = match &c.plane.drive {
            None => model.nodes.roughness(i).forward as f64,
            Some(d) => {
                let driven = Driven { i, h, inv_m };
                drive_back(d, (c, l_mu), (&driven, model), &mut l_n, (nodes, sent))
            }
        };
        let p = DVec3::from(seen.at);
        let slopes = posed.plane_slopes(seen.surface, real(seen.at), c.n);
        let rough = match c.plane.slipping {
            true => slopes.roughness,
            false => slopes.static_roughness,
        };
        let l_p = (c.n - slopes.distance) * l_o
            + slopes.normal.transpose() * (l_n + p * l_o)
            + rough * (rho * l_mu);
        nodes[i].x += l_p;
        if seen.from == From::Prediction {
            // y = x₀ + h·v₀ + h²·f_held/m.
            nodes[i].v += h * l_p;
            let m = 1.0 / inv_m;
            nodes[i].mass += h * h * l_p.dot(per_mass / m - fconst / (m * m));
            sent.held[i] += l_p * (h * h * inv_m);
        }
    }
}
