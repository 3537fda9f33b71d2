//! Spring coefficients compiled for one step size: what the spring kernels read besides
//! the layout (stiffness, axial and isotropic damping, the rope flag), with Nissen's stable
//! springs turned into forces or impulses for that step (see [`super`]).

use std::ops::Range;

use crate::model::{DampingMode, Model, SpringKind, Springs};
use crate::real::Real;

/// Spring coefficients compiled for one integration step size, in a given spring order
/// (the kernel order of a [`SpringLayout`](crate::layout::SpringLayout), or the user's order).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SpringCoeffs {
    /// The step size these coefficients are for \[s].
    pub h: Real,
    /// Effective stiffness [N/m].
    pub k: Vec<Real>,
    /// Effective axial damping [N·s/m].
    pub c_axial: Vec<Real>,
    /// Effective isotropic damping [N·s/m]; empty when no spring has any (read it through
    /// [`SpringCoeffs::c_iso`]): most scenes, 4 B a spring kept.
    c_iso: Vec<Real>,
    /// 1 for springs that push when compressed, 0 for ropes; empty when no spring is a rope
    /// (read it through [`SpringCoeffs::compress`]).
    compress: Vec<Real>,
    /// Whether any spring has isotropic damping (else the kernels skip that term).
    pub iso: bool,
    /// Whether any spring is a rope (else the kernels skip the slack test).
    pub rope: bool,
    /// Whether any spring is damped (else the audit skips the damping pass).
    pub damped: bool,
}

/// Which springs a set of coefficients covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// All springs as forces \[N] (stable springs in Nissen's force form).
    Forces,
    /// Every spring but the `stable` ones, as forces \[N] (their impulses come separately).
    ForcesWithoutStable,
    /// Only the `stable` springs, as impulses [N·s]: J = −(cs·x/h + cd·v)·m_red.
    StableImpulses,
}

impl SpringCoeffs {
    /// Compiles `springs` (the model's, or the values in effect) for step size `h` \[s], in
    /// `order` (kernel position → user index), or the user's order.
    pub(crate) fn compile_in(
        model: &Model,
        springs: &Springs,
        h: Real,
        form: Form,
        order: Option<&[u32]>,
    ) -> Self {
        let sp = springs;
        let m = sp.len();
        let mut out = SpringCoeffs {
            h,
            k: vec![0.0; m],
            c_axial: vec![0.0; m],
            c_iso: vec![0.0; m],
            compress: vec![1.0; m],
            iso: false,
            rope: false,
            damped: false,
        };
        for p in 0..m {
            let s = order.map_or(p, |o| o[p] as usize);
            let (k, c) = match (sp.kind[s], form) {
                (SpringKind::Stable, Form::ForcesWithoutStable) => (0.0, 0.0),
                (SpringKind::Stable, Form::Forces) => {
                    let mr = model.reduced_mass(s);
                    (sp.cs[s] * mr / (h * h), sp.cd[s] * mr / h)
                }
                (SpringKind::Stable, Form::StableImpulses) => {
                    let mr = model.reduced_mass(s);
                    (sp.cs[s] * mr / h, sp.cd[s] * mr)
                }
                (_, Form::StableImpulses) => (0.0, 0.0),
                (_, _) => (sp.k[s], sp.c[s]),
            };
            out.k[p] = k;
            // Nissen's damping acts on the velocity error along the spring.
            if sp.damping[s] == DampingMode::Isotropic && sp.kind[s] != SpringKind::Stable {
                out.c_iso[p] = c;
            } else {
                out.c_axial[p] = c;
            }
            if sp.kind[s] == SpringKind::Rope {
                out.compress[p] = 0.0;
            }
        }
        out.iso = out.c_iso.iter().any(|&c| c != 0.0);
        out.rope = out.compress.iter().any(|&c| c != 1.0);
        out.damped = out.iso || out.c_axial.iter().any(|&c| c != 0.0);
        if !out.iso {
            out.c_iso = Vec::new();
        }
        if !out.rope {
            out.compress = Vec::new();
        }
        out
    }

    /// Isotropic damping of kernel position `p` [N·s/m] (0 where no spring has any).
    #[inline(always)]
    pub(crate) fn c_iso(&self, p: usize) -> Real {
        if self.iso { self.c_iso[p] } else { 0.0 }
    }

    /// 1 if the spring at kernel position `p` pushes when compressed, 0 for a rope.
    #[inline(always)]
    pub(crate) fn compress(&self, p: usize) -> Real {
        if self.rope { self.compress[p] } else { 1.0 }
    }

    /// The isotropic damping of positions `r` [N·s/m], or an empty slice where no spring
    /// has any (the kernels' `ISO = false` variants read none).
    pub(crate) fn c_iso_in(&self, r: Range<usize>) -> &[Real] {
        if self.iso { &self.c_iso[r] } else { &[] }
    }

    /// The compression flags of positions `r`, or an empty slice where no spring is a rope
    /// (the kernels' `ROPE = false` variants read none).
    pub(crate) fn compress_in(&self, r: Range<usize>) -> &[Real] {
        if self.rope { &self.compress[r] } else { &[] }
    }

    /// The lengths of the isotropic damping and compression columns as kept (tests: an
    /// unused column is not kept).
    #[cfg(test)]
    pub(crate) fn columns_kept(&self) -> (usize, usize) {
        (self.c_iso.len(), self.compress.len())
    }
}

/// One spring's coefficients as the kernel reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Coef {
    /// Rest length L \[m].
    pub rest: Real,
    /// Stiffness k [N/m].
    pub k: Real,
    /// Axial damping c_ax [N·s/m].
    pub c_axial: Real,
    /// Isotropic damping c_iso [N·s/m].
    pub c_iso: Real,
    /// 1 for springs that push when compressed, 0 for ropes.
    pub compress: Real,
}

impl SpringCoeffs {
    /// The coefficients of kernel position `p`, with rest length `rest`.
    #[inline(always)]
    pub(crate) fn at(&self, p: usize, rest: Real) -> Coef {
        Coef {
            rest,
            k: self.k[p],
            c_axial: self.c_axial[p],
            c_iso: self.c_iso(p),
            compress: self.compress(p),
        }
    }
}
