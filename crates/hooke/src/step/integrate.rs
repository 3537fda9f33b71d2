//! Stage **integrate**: the integrator chosen in the settings advances positions and
//! velocities by h (see [`crate::solvers`]). The explicit integrators compute every
//! spring's force once and gather it per node (timed as the `springs` and `nodes` parts);
//! the large-step solvers run their own solve. Positions at the start are kept first when
//! contacts need them (friction judges a node's slide from there).

use super::{Flow, StepCtx, Workspace};
use crate::audit::measure::Rule;
use crate::state::State;

pub(super) fn run(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    if ctx.model.contacts.any() {
        ws.x_old.clear();
        ws.x_old.extend_from_slice(&st.x);
    }
    // The audit measures the implicit solvers' damping from where the step started.
    if ws.springs.forces.damped && Rule::of(ctx.settings.integrator).is_some() {
        ws.audit.v_start.clone_from(&st.v);
    }
    // The solver lives in the workspace it also works in: take it out while it steps.
    let mut solver = ws.solver.take().expect("compiled");
    let report = solver.step(ctx, st, &mut ws.for_solver());
    ws.solver = Some(solver);
    ws.finite = report.finite;
    Ok(())
}
