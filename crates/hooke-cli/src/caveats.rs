//! `hooke check`'s caveats: what the stability estimate (springs only, linearised) does not
//! guarantee for the integrator in use, each with what to do about it. Found by the
//! watchdog's catalogue and the self-contact runs (docs/reliability.md, docs/solvers.md).

use hooke::contact::CollisionMode;
use hooke::{Integrator, Scene, SpringKind};

/// The caveats for `scene` with its settings, one line each (empty when there are none).
pub fn caveats(scene: &Scene) -> Vec<String> {
    [
        self_contact(scene),
        taut_ropes(scene),
        impulse_chains(scene),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Trying the scene is the only way to know what the estimate cannot say.
fn trial_hint(scene: &Scene) -> String {
    let seconds = scene.duration().clamp(0.5, 5.0);
    format!("try it: hooke check --trial {seconds}")
}

/// Node–node collisions under a large-step solver: the estimate covers the springs only.
fn self_contact(scene: &Scene) -> Option<String> {
    let s = scene.settings();
    let collisions = scene.model().contacts().collisions.mode != CollisionMode::Off;
    if !collisions || s.integrator.is_explicit() || s.integrator == Integrator::Impulse {
        return None;
    }
    let how = match s.integrator {
        Integrator::Xpbd => {
            "resolves node pairs by one relaxation sweep in each of its small substeps"
        }
        Integrator::FastMassSpring => {
            "takes node pairs inside its prefactored step as a plane for each node, the other held where the two would part by their shares of the overlap (a pair term on their relative motion only in the steps it leaves to Newton)"
        }
        _ => {
            "takes node pairs inside its step as a stiff penalty on their relative motion along their line of centres at the start of the step, found along their paths through it"
        }
    };
    Some(format!(
        "node–node collisions are not covered by the verdict: {} {how}, so at dt = {} s nothing guarantees that a body folding onto itself stays apart or keeps its energy (a cloth folding on the ground at 1/60 s does, tested; the watchdog stops a run that gains energy); {}, or use symplectic-euler at its own step, which keeps every pair apart",
        s.integrator,
        s.dt,
        trial_hint(scene)
    ))
}

/// Rope springs under backward Euler with one linearised solve a step.
fn taut_ropes(scene: &Scene) -> Option<String> {
    let s = scene.settings();
    let ropes = scene.model().springs().any_of_kind(SpringKind::Rope);
    if !ropes || s.integrator != Integrator::BackwardEuler || s.newton_iterations > 1 {
        return None;
    }
    Some(format!(
        "rope springs with one linearised solve a step (settings.newton_iterations = 1): a rope linearised slack can pass far beyond its length within one step as it goes taut (a slack rope at 1/60 s made 18 J from nothing); 3 Newton iterations were enough there; {}",
        trial_hint(scene)
    ))
}

/// Chains of Nissen's stable springs under the impulse solver with few iterations.
fn impulse_chains(scene: &Scene) -> Option<String> {
    let s = scene.settings();
    let stable = scene.model().springs().any_of_kind(SpringKind::Stable);
    let iterations = s.iterations.unwrap_or(10);
    if !stable || s.integrator != Integrator::Impulse || iterations >= 30 {
        return None;
    }
    Some(format!(
        "{iterations} impulse iterations a step can be too few for a chain of stable springs going taut (a chain of ten gained 5 J from nothing at 10; 30 were enough): raise settings.iterations; {}",
        trial_hint(scene)
    ))
}
