//! Stage **pressure**: for each closed surface with a gas, the enclosed volume (divergence
//! theorem, f64) gives the pressure p, and p/6·(x₁ − x₀)×(x₂ − x₀) goes to each face
//! corner. The result is added to the constant forces and held over the integration step,
//! which every integrator reads (pressure is explicit with all of them). See
//! [`crate::mesh`].

use super::{Flow, StepCtx, Workspace};
use crate::forces::ConstForces;
use crate::mesh;
use crate::real::{Real, Vec3};
use crate::state::State;

/// Only scenes with a gas in some surface.
pub(super) fn active(ctx: &StepCtx, _: &Workspace) -> bool {
    ctx.model.surfaces.iter().any(|s| s.pressure.is_some())
}

pub(super) fn run(ctx: &StepCtx, st: &State, fbase: ConstForces, gas: &mut Vec<Vec3>) -> Flow {
    gas.clear();
    gas.extend(fbase.iter());
    for s in &ctx.model.surfaces {
        if let Some(law) = &s.pressure {
            let p = law.at(mesh::volume_of(&st.x, &s.faces)) as Real;
            mesh::add_pressure_forces(&st.x, &s.faces, p, gas);
        }
    }
    Ok(())
}
