//! Spring coefficients compiled for one step size: what the spring kernels read besides
//! the layout (stiffness, axial and isotropic damping, the rope flag), with Nissen's stable
//! springs turned into forces or impulses for that step (see [`super`]).

use std::ops::Range;

use super::coef_classes::CoefClasses;
use crate::model::{DampingMode, Model, SpringKind, Springs};
use crate::real::Real;
use crate::simd::Coefs;

/// Spring coefficients compiled for one integration step size, in a given spring order
/// (the kernel order of a [`SpringLayout`](crate::layout::SpringLayout), or the user's order).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SpringCoeffs {
    /// The step size these coefficients are for \[s].
    pub h: Real,
    /// Effective stiffness [N/m]; empty where [`Self::classes`] holds it (read it through
    /// [`SpringCoeffs::k`]).
    k: Vec<Real>,
    /// Effective axial damping [N·s/m]; empty where [`Self::classes`] holds it (read it
    /// through [`SpringCoeffs::c_axial`]).
    c_axial: Vec<Real>,
    /// Stiffness and axial damping by class, where the springs have at most eight
    /// distinct pairs: 1 B a spring instead of 8.
    pub classes: Option<CoefClasses>,
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
    /// `order` (kernel position → user index), or the user's order: the stiffness and axial
    /// damping by class where the springs have at most eight distinct pairs (the model's
    /// class index shared where it can serve: [`CoefClasses::shared`]).
    pub(crate) fn compile_in(
        model: &Model,
        springs: &Springs,
        h: Real,
        form: Form,
        order: Option<&[u32]>,
    ) -> Self {
        let mut out = Self::compile_columns_in(model, springs, h, form, order);
        let model_index = springs.classes.bytes().filter(|_| order.is_none());
        out.classes = model_index
            .and_then(|index| CoefClasses::shared(index, &out.k, &out.c_axial))
            .or_else(|| CoefClasses::of(&out.k, &out.c_axial));
        if out.classes.is_some() {
            (out.k, out.c_axial) = (Vec::new(), Vec::new());
        }
        out
    }

    /// [`Self::compile_in`] with the stiffness and axial damping as columns, for a pass that
    /// reads them spring by spring many times (fast mass-spring's local step, XPBD's
    /// projections).
    pub(crate) fn compile_columns_in(
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
            classes: None,
            c_iso: vec![0.0; m],
            compress: vec![1.0; m],
            iso: false,
            rope: false,
            damped: false,
        };
        for p in 0..m {
            let s = order.map_or(p, |o| o[p] as usize);
            let cl = sp.class(s);
            let (k, c) = match (cl.kind, form) {
                (SpringKind::Stable, Form::ForcesWithoutStable) => (0.0, 0.0),
                (SpringKind::Stable, Form::Forces) => {
                    let mr = model.reduced_mass(s);
                    (cl.cs * mr / (h * h), cl.cd * mr / h)
                }
                (SpringKind::Stable, Form::StableImpulses) => {
                    let mr = model.reduced_mass(s);
                    (cl.cs * mr / h, cl.cd * mr)
                }
                (_, Form::StableImpulses) => (0.0, 0.0),
                (_, _) => (cl.k, cl.c),
            };
            out.k[p] = k;
            // Nissen's damping acts on the velocity error along the spring.
            if cl.damping == DampingMode::Isotropic && cl.kind != SpringKind::Stable {
                out.c_iso[p] = c;
            } else {
                out.c_axial[p] = c;
            }
            if cl.kind == SpringKind::Rope {
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

    /// The number of springs.
    pub(crate) fn len(&self) -> usize {
        match &self.classes {
            Some(c) => c.index.len(),
            None => self.k.len(),
        }
    }

    /// Stiffness of kernel position `p` [N/m].
    #[inline(always)]
    pub(crate) fn k(&self, p: usize) -> Real {
        match &self.classes {
            Some(c) => c.k(p),
            None => self.k[p],
        }
    }

    /// Axial damping of kernel position `p` [N·s/m].
    #[inline(always)]
    pub(crate) fn c_axial(&self, p: usize) -> Real {
        match &self.classes {
            Some(c) => c.c_axial(p),
            None => self.c_axial[p],
        }
    }

    /// Every position's stiffness [N/m] (for a pass that wants a column).
    pub(crate) fn k_column(&self) -> Vec<Real> {
        (0..self.len()).map(|p| self.k(p)).collect()
    }

    /// Every position's axial damping [N·s/m] (for a pass that wants a column).
    pub(crate) fn c_axial_column(&self) -> Vec<Real> {
        (0..self.len()).map(|p| self.c_axial(p)).collect()
    }

    /// The stiffness column [N/m] where kept (see [`Self::compile_columns_in`]).
    pub(crate) fn k_slice(&self) -> &[Real] {
        assert!(self.classes.is_none(), "stiffness kept by class");
        &self.k
    }

    /// The axial damping column [N·s/m] where kept (see [`Self::compile_columns_in`]).
    pub(crate) fn c_axial_slice(&self) -> &[Real] {
        assert!(self.classes.is_none(), "axial damping kept by class");
        &self.c_axial
    }

    /// The stiffness and axial damping of positions `r`, as the SIMD kernels read them.
    pub(crate) fn kernel_coefs(&self, r: Range<usize>) -> Coefs<'_> {
        match &self.classes {
            Some(c) => Coefs::Classes {
                index: &c.index[r],
                k: &c.k,
                c_axial: &c.c_axial,
            },
            None => Coefs::Columns {
                k: &self.k[r.clone()],
                c_axial: &self.c_axial[r],
            },
        }
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
            k: self.k(p),
            c_axial: self.c_axial(p),
            c_iso: self.c_iso(p),
            compress: self.compress(p),
        }
    }
}
