//! Stage **integrate**: the integrator chosen in the settings advances positions and
//! velocities by h (see [`crate::solvers`]). The explicit integrators compute every
//! spring's force once and gather it per node (timed as the `springs` and `nodes` parts);
//! the large-step solvers run their own solve. Positions at the start are kept first when
//! contacts need them (friction judges a node's slide from there).

use super::{Flow, Integrating, StepCtx};
use crate::audit::measure::Rule;
use crate::real::unpack;
use crate::state::State;

pub(super) fn run(ctx: &StepCtx, st: &mut State, parts: Integrating) -> Flow {
    let Integrating {
        solver,
        mut ws,
        out,
    } = parts;
    if ctx.model.contacts.any() {
        out.x_old.clear();
        out.x_old.extend(st.x.iter().map(|&p| unpack(p)));
    }
    // The audit measures the implicit solvers' damping, and the work of moving colliders
    // inside a large-step solver, from where the step started.
    let damping = ws.springs.forces.damped && Rule::of(ctx.settings.integrator).is_some();
    if damping || super::collider_work::needed(ctx, solver.handles_surfaces()) {
        ws.audit.v_start.clear();
        ws.audit.v_start.extend(st.v.iter().map(|&p| unpack(p)));
    }
    // (Node sums the solver takes as it integrates are this step's, or none.)
    ws.audit.end_sums = None;
    out.finite = solver.step(ctx, st, &mut ws).finite;
    Ok(())
}
