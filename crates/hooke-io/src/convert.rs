//! Conversion between the file types and the core's [`Scene`].

use hooke::error::FieldError;
use hooke::model::FieldKind;
use hooke::{
    Anchor, DampingMode, ForceField, Integrator, LinearSolver, Node, Path, Preconditioner, Real,
    Scene, SceneBuilder, Spring, SpringKind, StableForm, Vec3,
};

use crate::format::*;

fn v3(a: V3) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

fn arr(v: Vec3) -> V3 {
    v.to_array()
}

/// Integrators and their file names, in one table for both directions.
const INTEGRATORS: [(Integrator, IntegratorName); 10] = [
    (Integrator::ExplicitEuler, IntegratorName::ExplicitEuler),
    (Integrator::SymplecticEuler, IntegratorName::SymplecticEuler),
    (Integrator::Verlet, IntegratorName::Verlet),
    (Integrator::Rk4, IntegratorName::Rk4),
    (Integrator::BackwardEuler, IntegratorName::BackwardEuler),
    (
        Integrator::ImplicitMidpoint,
        IntegratorName::ImplicitMidpoint,
    ),
    (Integrator::Trapezoidal, IntegratorName::Trapezoidal),
    (Integrator::FastMassSpring, IntegratorName::FastMassSpring),
    (Integrator::Xpbd, IntegratorName::Xpbd),
    (Integrator::Impulse, IntegratorName::Impulse),
];

fn integrator(n: IntegratorName) -> Integrator {
    INTEGRATORS
        .iter()
        .find(|(_, f)| *f == n)
        .expect("every name is in the table")
        .0
}

fn integrator_name(i: Integrator) -> IntegratorName {
    INTEGRATORS
        .iter()
        .find(|(c, _)| *c == i)
        .expect("every integrator is in the table")
        .1
}

fn damping(n: DampingName) -> DampingMode {
    match n {
        DampingName::Axial => DampingMode::Axial,
        DampingName::Isotropic => DampingMode::Isotropic,
    }
}

fn damping_name(d: DampingMode) -> DampingName {
    match d {
        DampingMode::Axial => DampingName::Axial,
        DampingMode::Isotropic => DampingName::Isotropic,
    }
}

fn kind(n: KindName) -> SpringKind {
    match n {
        KindName::Spring => SpringKind::Spring,
        KindName::Rope => SpringKind::Rope,
        KindName::Stable => SpringKind::Stable,
    }
}

fn kind_name(k: SpringKind) -> KindName {
    match k {
        SpringKind::Spring => KindName::Spring,
        SpringKind::Rope => KindName::Rope,
        SpringKind::Stable => KindName::Stable,
    }
}

/// The path's origin: given, or the position that puts the node where it is at time `t`.
fn origin(given: Option<[f64; 3]>, node_x: Option<Vec3>, t: f64, shape: &Path) -> [f64; 3] {
    if let Some(o) = given {
        return o;
    }
    #[allow(clippy::useless_conversion)]
    let x = node_x.map_or([0.0; 3], |p| p.to_array().map(f64::from));
    match *shape {
        // Linear and sine paths are origin + g(t): subtract g(t).
        Path::Linear { .. } | Path::Sine { .. } => {
            let g = shape.position(t);
            [0, 1, 2].map(|i| x[i] - g[i])
        }
        // Rotate the node's position back by −ωt about the axis.
        Path::Circular {
            center,
            axis,
            angular_velocity,
            ..
        } => Path::Circular {
            origin: x,
            center,
            axis,
            angular_velocity: -angular_velocity,
        }
        .position(t),
    }
}

pub(crate) fn path(p: &PathFile, node_x: Option<Vec3>, t: f64) -> Path {
    let zero = [0.0; 3];
    match *p {
        PathFile::Linear {
            origin: o,
            velocity,
        } => {
            let shape = Path::Linear {
                origin: zero,
                velocity,
            };
            Path::Linear {
                origin: origin(o, node_x, t, &shape),
                velocity,
            }
        }
        PathFile::Circular {
            origin: o,
            center,
            axis,
            angular_velocity,
        } => {
            let shape = Path::Circular {
                origin: zero,
                center,
                axis,
                angular_velocity,
            };
            Path::Circular {
                origin: origin(o, node_x, t, &shape),
                center,
                axis,
                angular_velocity,
            }
        }
        PathFile::Sine {
            origin: o,
            amplitude,
            frequency,
            phase,
        } => {
            let shape = Path::Sine {
                origin: zero,
                amplitude,
                frequency,
                phase,
            };
            Path::Sine {
                origin: origin(o, node_x, t, &shape),
                amplitude,
                frequency,
                phase,
            }
        }
    }
}

pub(crate) fn path_file(p: &Path) -> PathFile {
    match *p {
        Path::Linear { origin, velocity } => PathFile::Linear {
            origin: Some(origin),
            velocity,
        },
        Path::Circular {
            origin,
            center,
            axis,
            angular_velocity,
        } => PathFile::Circular {
            origin: Some(origin),
            center,
            axis,
            angular_velocity,
        },
        Path::Sine {
            origin,
            amplitude,
            frequency,
            phase,
        } => PathFile::Sine {
            origin: Some(origin),
            amplitude,
            frequency,
            phase,
        },
    }
}

/// The core spring of a file spring; errors name `path` (`springs[3]`, `joins[0]`).
pub(crate) fn spring(sp: &SpringFile, path: &str) -> Result<Spring, FieldError> {
    let kind = kind(sp.kind);
    let required = |name: &str, v: Option<Real>| {
        v.ok_or_else(|| {
            FieldError::new(
                format!("{path}.{name}"),
                format!("missing: a {} spring needs {name}", kind.name()),
            )
        })
    };
    let (k, cs) = match kind {
        SpringKind::Stable => (sp.k.unwrap_or(0.0), required("cs", sp.cs)?),
        _ => (required("k", sp.k)?, sp.cs.unwrap_or(0.0)),
    };
    Ok(Spring {
        a: sp.a,
        b: sp.b,
        kind,
        k,
        c: sp.c.unwrap_or(0.0),
        cs,
        cd: sp.cd.unwrap_or(0.0),
        rest: sp.rest,
        damping: sp.damping.map(damping),
        break_strain: sp.break_strain,
    })
}

/// Builds and validates a core scene from a parsed file.
pub fn from_file(f: SceneFile) -> Result<Scene, FieldError> {
    to_builder(f)?.build()
}

/// The scene builder of a parsed file, before validation (composites add their parts).
pub fn to_builder(f: SceneFile) -> Result<SceneBuilder, FieldError> {
    if f.format != FORMAT {
        return Err(FieldError::new(
            "format",
            format!(
                "{:?} is not a format this hooke reads; expected {FORMAT:?}",
                f.format
            ),
        ));
    }
    let s = &f.settings;
    let mut b = SceneBuilder::new(f.name.clone());
    b.description = f.description.clone();
    b.settings.dt = s.dt;
    b.settings.substeps = s.substeps;
    b.settings.integrator = integrator(s.integrator);
    b.settings.damping = damping(s.damping);
    b.settings.stable_form = match s.stable_form {
        StableFormName::Force => StableForm::Force,
        StableFormName::Impulse => StableForm::Impulse,
    };
    b.settings.duration = s.duration;
    b.settings.linear_solver = match s.linear_solver {
        LinearSolverName::Cg => LinearSolver::Cg,
        LinearSolverName::Direct => LinearSolver::Direct,
    };
    b.settings.newton_iterations = s.newton_iterations;
    b.settings.cg_preconditioner = match s.cg_preconditioner {
        PreconditionerName::Jacobi => Preconditioner::Jacobi,
        PreconditionerName::Laplacian => Preconditioner::Laplacian,
    };
    b.settings.iterations = s.iterations;
    b.settings.cg_tolerance = s.cg_tolerance;
    b.settings.cg_max_iterations = s.cg_max_iterations;
    b.settings.warm_start = s.warm_start;
    b.settings.impulse_tolerance = s.impulse_tolerance;
    b.env.gravity = v3(s.gravity);
    b.env.wind = v3(s.wind);
    b.env.air_drag = s.air_drag;
    b.env.velocity_retention = s.velocity_retention;
    b.env.velocity_retention_per_step = s.velocity_retention_per_step;
    b.env.fields = s
        .fields
        .iter()
        .map(|fl| ForceField {
            kind: match fl.kind {
                FieldKindName::Force => FieldKind::Force,
                FieldKindName::Acceleration => FieldKind::Acceleration,
            },
            value: v3(fl.value),
            nodes: fl.nodes.clone(),
        })
        .collect();
    for (i, n) in f.nodes.iter().enumerate() {
        let mass = match (n.mass, n.pinned) {
            (Some(m), _) => m,
            (None, true) => 0.0,
            (None, false) => {
                return Err(FieldError::new(
                    format!("nodes[{i}].mass"),
                    "missing: a free node needs a mass > 0 kg (or set \"pinned\": true)",
                ));
            }
        };
        b.add_node(Node {
            x: v3(n.x),
            v: v3(n.v),
            mass,
            pinned: n.pinned,
            radius: n.radius,
            roughness: crate::contacts::roughness(&n.roughness),
        });
    }
    for (i, sp) in f.springs.iter().enumerate() {
        b.add_spring(spring(sp, &format!("springs[{i}]"))?);
    }
    let t = f.state.as_ref().map_or(0.0, |st| st.t);
    for a in &f.anchors {
        let node_x = f.nodes.get(a.node as usize).map(|n| v3(n.x));
        b.anchors.push(Anchor {
            node: a.node,
            path: path(&a.path, node_x, t),
        });
    }
    b.contacts = crate::contacts::contacts(&f, t)?;
    b.actuators = crate::actuators::actuators(&f)?;
    b.surfaces = crate::surfaces::surfaces(&f.surfaces);
    if let Some(st) = &f.state {
        b.touching = st.touching.clone();
        b.controllers = crate::actuators::states(&st.controllers);
        b.t = st.t;
        b.step = st.step;
        b.verlet_accel = st
            .verlet_accel
            .as_ref()
            .map(|acc| acc.iter().map(|&a| v3(a)).collect());
        b.impulses = st.impulses.clone();
        b.last_dv = st
            .last_dv
            .as_ref()
            .map(|d| d.iter().map(|&a| v3(a)).collect());
    }
    Ok(b)
}

/// The file form of a scene, with its current state (a checkpoint).
pub fn to_file(scene: &Scene) -> SceneFile {
    let m = &scene.model;
    let st = &scene.state;
    let s = &scene.settings;
    let env = &m.env;
    let settings = SettingsFile {
        dt: s.dt,
        substeps: s.substeps,
        integrator: integrator_name(s.integrator),
        gravity: arr(env.gravity),
        wind: arr(env.wind),
        air_drag: env.air_drag,
        velocity_retention: env.velocity_retention,
        velocity_retention_per_step: env.velocity_retention_per_step,
        damping: damping_name(s.damping),
        stable_form: match s.stable_form {
            StableForm::Force => StableFormName::Force,
            StableForm::Impulse => StableFormName::Impulse,
        },
        duration: s.duration,
        linear_solver: match s.linear_solver {
            LinearSolver::Cg => LinearSolverName::Cg,
            LinearSolver::Direct => LinearSolverName::Direct,
        },
        newton_iterations: s.newton_iterations,
        iterations: s.iterations,
        cg_preconditioner: match s.cg_preconditioner {
            Preconditioner::Jacobi => PreconditionerName::Jacobi,
            Preconditioner::Laplacian => PreconditionerName::Laplacian,
        },
        cg_tolerance: s.cg_tolerance,
        cg_max_iterations: s.cg_max_iterations,
        warm_start: s.warm_start,
        impulse_tolerance: s.impulse_tolerance,
        restitution_threshold: m.contacts.restitution_threshold,
        fields: env
            .fields
            .iter()
            .map(|fl| FieldFile {
                kind: match fl.kind {
                    FieldKind::Force => FieldKindName::Force,
                    FieldKind::Acceleration => FieldKindName::Acceleration,
                },
                value: arr(fl.value),
                nodes: fl.nodes.clone(),
            })
            .collect(),
    };
    let nodes = (0..m.nodes.len())
        .map(|i| NodeFile {
            x: arr(st.x[i]),
            v: arr(st.v[i]),
            mass: Some(m.nodes.mass[i]),
            pinned: m.nodes.pinned[i],
            radius: m.nodes.radius[i],
            roughness: crate::contacts::roughness_file(&m.nodes.roughness[i]),
        })
        .collect();
    let sp = &m.springs;
    let springs = (0..sp.len())
        .map(|i| {
            let stable = sp.kind[i] == SpringKind::Stable;
            SpringFile {
                a: sp.a[i],
                b: sp.b[i],
                k: (!stable).then_some(sp.k[i]),
                c: (!stable).then_some(sp.c[i]),
                cs: stable.then_some(sp.cs[i]),
                cd: stable.then_some(sp.cd[i]),
                rest: Some(sp.rest[i]),
                kind: kind_name(sp.kind[i]),
                damping: (sp.damping[i] != s.damping).then_some(damping_name(sp.damping[i])),
                break_strain: sp.break_strain[i].is_finite().then_some(sp.break_strain[i]),
            }
        })
        .collect();
    let anchors = m
        .anchors
        .iter()
        .map(|a| AnchorFile {
            node: a.node,
            path: path_file(&a.path),
        })
        .collect();
    let controllers = crate::actuators::states_file(&st.controllers);
    let state = (st.t != 0.0
        || st.step != 0
        || st.verlet_accel.is_some()
        || st.impulses.is_some()
        || st.last_dv.is_some()
        || !st.touching.is_empty()
        || !controllers.is_empty())
    .then(|| StateFile {
        t: st.t,
        step: st.step,
        verlet_accel: st
            .verlet_accel
            .as_ref()
            .map(|acc| acc.iter().map(|&a| arr(a)).collect()),
        impulses: st.impulses.clone(),
        last_dv: st
            .last_dv
            .as_ref()
            .map(|d| d.iter().map(|&a| arr(a)).collect()),
        touching: st.touching.clone(),
        controllers,
    });
    let (ground, terrain, colliders, collisions) = crate::contacts::contacts_file(&m.contacts);
    let (sensors, controllers, muscles) = crate::actuators::actuators_file(&m.actuators);
    SceneFile {
        format: FORMAT.to_string(),
        name: scene.name.clone(),
        description: scene.description.clone(),
        settings,
        nodes,
        springs,
        anchors,
        ground,
        terrain,
        colliders,
        collisions,
        sensors,
        controllers,
        muscles,
        surfaces: crate::surfaces::surfaces_file(&m.surfaces),
        parts: Vec::new(),
        joins: Vec::new(),
        state,
    }
}
