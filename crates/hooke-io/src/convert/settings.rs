//! Settings and the environment between the file and the core.

use hooke::{FieldError, ForceField, SceneBuilder};

use super::names::{arr, v3};
use crate::format::{FieldFile, SettingsFile};

/// Puts the file's settings and environment into `b`. A file gives its step: `dt` must be
/// > 0 (the builder's 0 = automatic is not part of the format).
pub(super) fn settings_into(s: &SettingsFile, b: &mut SceneBuilder) -> Result<(), FieldError> {
    if !(s.dt.is_finite() && s.dt > 0.0) {
        return Err(FieldError::new(
            "settings.dt",
            format!("{} is not a valid step; give a finite dt > 0 s", s.dt),
        ));
    }
    b.duration = s.duration;
    let st = &mut b.settings;
    st.dt = s.dt;
    st.substeps = s.substeps;
    st.integrator = s.integrator;
    st.damping = s.damping;
    st.stable_form = s.stable_form;
    st.linear_solver = s.linear_solver;
    st.newton_iterations = s.newton_iterations;
    st.cg_preconditioner = s.cg_preconditioner;
    st.iterations = s.iterations;
    st.cg_tolerance = s.cg_tolerance;
    st.cg_max_iterations = s.cg_max_iterations;
    st.warm_start = s.warm_start;
    st.impulse_tolerance = s.impulse_tolerance;
    st.allow_divergence = s.allow_divergence;
    let env = &mut b.env;
    env.gravity = v3(s.gravity);
    env.wind = v3(s.wind);
    env.air_drag = s.air_drag;
    env.velocity_retention = s.velocity_retention;
    env.velocity_retention_per_step = s.velocity_retention_per_step;
    env.fields = s.fields.iter().map(field).collect();
    Ok(())
}

fn field(fl: &FieldFile) -> ForceField {
    ForceField {
        kind: fl.kind,
        value: v3(fl.value),
        nodes: fl.nodes.clone(),
    }
}

/// The file's settings of a scene described by `b`.
pub(super) fn settings_file(b: &SceneBuilder) -> SettingsFile {
    let (s, env) = (&b.settings, &b.env);
    SettingsFile {
        dt: s.dt,
        substeps: s.substeps,
        integrator: s.integrator,
        gravity: arr(env.gravity),
        wind: arr(env.wind),
        air_drag: env.air_drag,
        velocity_retention: env.velocity_retention,
        velocity_retention_per_step: env.velocity_retention_per_step,
        damping: s.damping,
        stable_form: s.stable_form,
        duration: b.duration,
        linear_solver: s.linear_solver,
        newton_iterations: s.newton_iterations,
        iterations: s.iterations,
        cg_preconditioner: s.cg_preconditioner,
        cg_tolerance: s.cg_tolerance,
        cg_max_iterations: s.cg_max_iterations,
        warm_start: s.warm_start,
        impulse_tolerance: s.impulse_tolerance,
        allow_divergence: s.allow_divergence,
        restitution_threshold: b.contacts.restitution_threshold,
        fields: env.fields.iter().map(field_file).collect(),
    }
}

fn field_file(fl: &ForceField) -> FieldFile {
    FieldFile {
        kind: fl.kind,
        value: arr(fl.value),
        nodes: fl.nodes.clone(),
    }
}
