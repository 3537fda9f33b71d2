//! Going back through one implicit step of the tape (`implicit.rs`): its adjoint solve,
//! its springs, and its surface contacts — backward Euler's planes (`planes.rs`), fast
//! mass-spring's with their friction anchors (`friction_anchors.rs`, `reach.rs`).

use glam::DVec3;

use super::super::adjoint::{NodeAdjoint, Scratch};
use super::super::gas::GasGradients;
use super::super::implicit::StepSolve;
use super::super::planes::{Around, PlanesBack};
use super::super::reach;
use super::super::shed;
use super::super::spring::Params;
use super::{Segment, Tape};
use crate::contact::placement::Placements;
use crate::contact::surface::Posed;
use crate::real::{Vec3, wide};

impl Tape {
    /// Goes back through the implicit step `j` of `seg`: `nodes` holds λx₁, λv₁ on entry
    /// and λx₀, λv₀ on return; `anchors` the friction anchors' λa after the step on entry,
    /// before it on return. Returns what its adjoint solve did and the step's own residual
    /// ([`Self::step_residual`]).
    pub(super) fn implicit_back(
        &mut self,
        (seg, j): (&Segment, usize),
        (nodes, anchors): (&mut [NodeAdjoint], &mut [DVec3]),
        (params, gas): (&mut [Params], &mut GasGradients),
        scratch: &mut Scratch,
    ) -> StepSolve {
        let x1 = &seg.x[j + 1];
        let record = seg.solved[j + 1].as_ref();
        // Fast mass-spring's shed energy, gone back through first.
        let shed = shed::of(record);
        let v1 = match shed {
            Some(s) => shed::unshed(s),
            None => seg.v[j + 1].clone(),
        };
        let l_gain = shed.map(|s| {
            let g = self.gas.as_ref().map(|g| (g, &mut *gas));
            shed::back((&self.model, s), (x1, &v1), (nodes, params), (g, scratch))
        });
        let v_end = self.model.before_loss(&seg.x[j], (x1, &v1));
        let (mut x_end, mut v_end) = (x1.clone(), v_end);
        if let Some(r) = record {
            PlanesBack::unheld(r, (&mut x_end, &mut v_end));
        }
        let end = (&x_end[..], &v_end[..]);
        let planes = record.map(|r| PlanesBack::new(r, end));
        let unsolved = self.step_residual((seg, j), end, planes.as_ref());
        let implicit = self.implicit.as_mut().expect("an implicit step");
        // The anchors passed on to the next step see x₁: before the solve.
        let next = anchors.to_vec();
        anchors.fill(DVec3::ZERO);
        let passed = planes.as_ref().map(|p| p.pass_on(&next, nodes));
        let mut mu = self.model.mus(nodes);
        if let Some(p) = &planes {
            p.hold_back(&mut mu);
        }
        let model = self.replay.model();
        let (gamma, solved) =
            implicit.gamma((&self.model, model), end, (&mu, planes.as_ref()), scratch);
        (self.model).back_implicit(end, (&gamma, Some(&mu)), nodes, params, scratch);
        if let (Some(p), Some(passed)) = (&planes, &passed) {
            let t0 = seg.t[j];
            let around = Around {
                sm: &self.model,
                model,
                posed: Posed::new(
                    &model.contacts,
                    &Placements::BY_PATHS,
                    t0,
                    t0 + self.model.h(),
                ),
            };
            let sent = p.back((&gamma, &passed.made), (nodes, params), &around);
            let start = (&seg.x[j][..], &seg.v[j][..]);
            let pushed = &sent.start_forces;
            if pushed.iter().any(|g| *g != DVec3::ZERO) {
                // The start's forces drove the directional roughness of some nodes.
                (self.model).back_force(start, pushed, nodes, params, scratch);
            }
            let reach = p.anchors_back((&gamma, passed), nodes, anchors);
            reach::back(&self.model, &reach, (nodes, params));
            if let Some(l) = l_gain {
                let start = (&seg.x[j][..], &seg.v[j][..]);
                let g = self.gas.as_ref().map(|g| (g, &mut *gas));
                shed::energy_back(&self.model, start, -l, (nodes, params), (g, scratch));
            }
            // The forces held over the step see γ, and through the planes more.
            let held = (gamma.iter().zip(&sent.held).zip(pushed)).map(|((g, m), f)| *g + *m + *f);
            scratch.set_gamma(held.collect());
        }
        StepSolve {
            adjoint: solved,
            step: unsolved,
        }
    }

    /// The relative residual of step `j`'s equations at its end `end` = (x₁, v'), as the
    /// adjoint linearises them: |r| / |(M·(v' − v₀), h·fₖ)| over the free nodes, r =
    /// M·(v' − v₀) − h·Σₖ fₖ, the forces fₖ being the springs', drag and the constant ones
    /// at the end, the gas's at the start, the program's, and the contacts' (`planes`)
    /// — each its own part of the scale, so that a body at rest, whose forces cancel, is
    /// measured against them.
    fn step_residual(
        &self,
        (seg, j): (&Segment, usize),
        end: (&[Vec3], &[Vec3]),
        planes: Option<&PlanesBack>,
    ) -> f64 {
        let sm = &self.model;
        let n = end.0.len();
        let mut parts = vec![sm.forces_at(end)];
        if let Some(gas) = &self.gas {
            parts.push(gas.forces(&seg.x[j]));
        }
        let mut more = vec![DVec3::ZERO; n];
        for &(i, p) in self.forces.forces(seg.first + j) {
            more[i as usize] += wide(p);
        }
        for c in planes.map_or(&[][..], PlanesBack::contacts) {
            more[c.i] += c.force();
        }
        parts.push(more);
        let (mut r2, mut scale2) = (0.0, 0.0);
        for i in (0..n).filter(|&i| !sm.pinned(i)) {
            let m_dv = (wide(end.1[i]) - wide(seg.v[j][i])) / sm.inverse_mass(i);
            let hf = parts.iter().map(|f| f[i] * sm.h());
            r2 += (m_dv - hf.clone().sum::<DVec3>()).length_squared();
            scale2 += m_dv.length_squared() + hf.map(|f| f.length_squared()).sum::<f64>();
        }
        if scale2 > 0.0 {
            (r2 / scale2).sqrt()
        } else {
            0.0
        }
    }
}
