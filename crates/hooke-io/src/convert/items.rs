//! Nodes, springs, anchors and the resume state between the file and the core.

use hooke::{
    Anchor, DampingMode, FieldError, Node, Pose, Quat, Real, SceneBuilder, Spring, SpringKind,
};

use super::names::{arr, v3};
use super::paths::{path, path_file};
use crate::format::{
    AnchorFile, ColliderPoseFile, FrictionAnchorFile, NodeFile, SpringFile, StateFile,
};

/// The core node of file node `i`; a free node must give its mass.
pub(super) fn node(n: &NodeFile, i: usize) -> Result<Node, FieldError> {
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
    Ok(Node {
        x: v3(n.x),
        v: v3(n.v),
        mass,
        pinned: n.pinned,
        radius: n.radius,
        roughness: super::contacts::roughness(&n.roughness),
    })
}

/// The file node of a core node.
pub(super) fn node_file(n: &Node) -> NodeFile {
    NodeFile {
        x: arr(n.x),
        v: arr(n.v),
        mass: Some(n.mass),
        pinned: n.pinned,
        radius: n.radius,
        roughness: super::contacts::roughness_file(&n.roughness),
    }
}

/// The core spring of a file spring; errors name `path` (`springs[3]`, `joins[0]`).
pub(crate) fn spring(sp: &SpringFile, path: &str) -> Result<Spring, FieldError> {
    let kind = sp.kind;
    let required = |name: &str, v: Option<Real>| {
        v.ok_or_else(|| {
            FieldError::new(
                format!("{path}.{name}"),
                format!("missing: a {} spring needs {name}", kind),
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
        damping: sp.damping,
        break_strain: sp.break_strain,
    })
}

/// The file spring of a core spring; its damping is written when it is not `default`.
pub(super) fn spring_file(sp: &Spring, default: DampingMode) -> SpringFile {
    let stable = sp.kind == SpringKind::Stable;
    SpringFile {
        a: sp.a,
        b: sp.b,
        k: (!stable).then_some(sp.k),
        c: (!stable).then_some(sp.c),
        cs: stable.then_some(sp.cs),
        cd: stable.then_some(sp.cd),
        rest: sp.rest,
        kind: sp.kind,
        damping: sp.damping.filter(|&d| d != default),
        break_strain: sp.break_strain,
    }
}

/// The core anchors of the file's, placed for time `t` \[s] (nodes at `x`).
pub(super) fn anchors(files: &[AnchorFile], nodes: &[NodeFile], t: f64) -> Vec<Anchor> {
    files
        .iter()
        .map(|a| {
            let node_x = nodes.get(a.node as usize).map(|n| v3(n.x));
            Anchor {
                node: a.node,
                path: path(&a.path, node_x, t),
            }
        })
        .collect()
}

/// The file anchors of the core's.
pub(super) fn anchors_file(anchors: &[Anchor]) -> Vec<AnchorFile> {
    anchors
        .iter()
        .map(|a| AnchorFile {
            node: a.node,
            path: path_file(&a.path),
        })
        .collect()
}

/// Puts a state to resume from into `b`.
pub(super) fn state_into(st: &StateFile, b: &mut SceneBuilder) {
    b.touching = st.touching.clone();
    b.friction_anchors = (st.friction_anchors.iter())
        .map(|a| (a.node, v3(a.at)))
        .collect();
    b.controllers = super::actuators::states(&st.controllers);
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
    b.books = st.audit.as_ref().map(super::books::books);
    b.muscle_rest = st.muscles.clone();
    b.collider_poses = (st.colliders.iter())
        .map(|c| {
            let rotation = Quat::from_array(c.rotation);
            (c.collider, Pose::new(rotation, v3(c.translation)))
        })
        .collect();
}

/// The state of `b` to write, or `None` for a scene at its start with no solver memory.
pub(super) fn state_file(b: &SceneBuilder) -> Option<StateFile> {
    let controllers = super::actuators::states_file(&b.controllers);
    let fresh = b.t == 0.0
        && b.step == 0
        && b.verlet_accel.is_none()
        && b.impulses.is_none()
        && b.last_dv.is_none()
        && b.touching.is_empty()
        && b.friction_anchors.is_empty()
        && controllers.is_empty()
        && b.books.is_none()
        && b.muscle_rest.is_empty()
        && b.collider_poses.is_empty();
    (!fresh).then(|| StateFile {
        t: b.t,
        step: b.step,
        verlet_accel: b
            .verlet_accel
            .as_ref()
            .map(|acc| acc.iter().map(|&a| arr(a)).collect()),
        impulses: b.impulses.clone(),
        last_dv: b
            .last_dv
            .as_ref()
            .map(|d| d.iter().map(|&a| arr(a)).collect()),
        touching: b.touching.clone(),
        friction_anchors: (b.friction_anchors.iter())
            .map(|&(node, at)| FrictionAnchorFile { node, at: arr(at) })
            .collect(),
        controllers,
        muscles: b.muscle_rest.clone(),
        audit: b.books.as_ref().and_then(super::books::books_file),
        colliders: (b.collider_poses.iter())
            .map(|&(collider, pose)| ColliderPoseFile {
                collider,
                rotation: pose.rotation.to_array(),
                translation: arr(pose.translation),
            })
            .collect(),
    })
}
