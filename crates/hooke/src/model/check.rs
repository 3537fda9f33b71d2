//! [`Model::validate`]: every invariant the step relies on; errors name the field.

use super::{Model, Springs};
use crate::error::FieldError;
use crate::validate::{at, finite3, nonneg_at};

impl Model {
    /// Checks every invariant the step relies on; errors name the field.
    pub(crate) fn validate(&self) -> Result<(), FieldError> {
        let n = self.nodes.len();
        self.validate_nodes()?;
        validate_springs(&self.springs, n)?;
        self.validate_env(n)?;
        self.contacts.validate()?;
        self.actuators.validate(n, self.springs.len())?;
        for (i, surface) in self.surfaces.iter().enumerate() {
            surface.validate(i, n)?;
        }
        self.validate_anchors(n)
    }

    fn validate_nodes(&self) -> Result<(), FieldError> {
        let nd = &self.nodes;
        let n = nd.len();
        if [nd.inv_mass.len(), nd.pinned.len(), nd.radius.len()]
            .into_iter()
            .any(|l| l != n)
            || !(nd.roughness.is_empty() || nd.roughness.len() == n)
        {
            return Err(FieldError::new("nodes", "per-node arrays differ in length"));
        }
        if n > u32::MAX as usize {
            return Err(FieldError::new(
                "nodes",
                format!("{n} nodes is more than 2^32 - 1"),
            ));
        }
        for i in 0..n {
            let m = nd.mass.at(i);
            if !m.is_finite() || m < 0.0 {
                return Err(FieldError::new(
                    at("nodes", i, "mass"),
                    format!("{m} is not a valid mass; give a finite mass >= 0 kg"),
                ));
            }
            if !nd.pinned(i) && m <= 0.0 {
                return Err(FieldError::new(
                    at("nodes", i, "mass"),
                    format!("{m}: a free node needs mass > 0 kg (or set \"pinned\": true)"),
                ));
            }
            let r = nd.radius(i);
            if !r.is_finite() || r < 0.0 {
                return Err(FieldError::new(
                    at("nodes", i, "radius"),
                    format!("{r} is not a valid radius; give a finite radius >= 0 m"),
                ));
            }
            nd.roughness(i).validate(i, n)?;
        }
        Ok(())
    }

    fn validate_anchors(&self, n: usize) -> Result<(), FieldError> {
        let mut seen = vec![false; n];
        for (i, anchor) in self.anchors.iter().enumerate() {
            let node = anchor.node as usize;
            if node >= n {
                return Err(FieldError::new(
                    at("anchors", i, "node"),
                    format!("{node} is not a node (the scene has {n} nodes)"),
                ));
            }
            if std::mem::replace(&mut seen[node], true) {
                return Err(FieldError::new(
                    at("anchors", i, "node"),
                    format!("node {node} already has an anchor"),
                ));
            }
            anchor.path.validate(&at("anchors", i, "path"))?;
        }
        Ok(())
    }

    fn validate_env(&self, n: usize) -> Result<(), FieldError> {
        let env = &self.env;
        finite3("settings.gravity", env.gravity)?;
        finite3("settings.wind", env.wind)?;
        if !(env.air_drag.is_finite() && env.air_drag >= 0.0) {
            return Err(FieldError::new(
                "settings.air_drag",
                format!(
                    "{} is not valid; give a finite drag >= 0 N·s/m",
                    env.air_drag
                ),
            ));
        }
        for (name, r) in [
            ("velocity_retention", env.velocity_retention),
            (
                "velocity_retention_per_step",
                env.velocity_retention_per_step,
            ),
        ] {
            if !(r.is_finite() && (0.0..=1.0).contains(&r)) {
                return Err(FieldError::new(
                    format!("settings.{name}"),
                    format!(
                        "{r} is outside [0, 1] (1 keeps all velocity; above 1 would add energy)"
                    ),
                ));
            }
        }
        for (i, f) in env.fields.iter().enumerate() {
            finite3(&at("settings.fields", i, "value"), f.value)?;
            for (j, &node) in f.nodes.iter().flatten().enumerate() {
                if node as usize >= n {
                    return Err(FieldError::new(
                        format!("settings.fields[{i}].nodes[{j}]"),
                        format!("{node} is not a node (the scene has {n} nodes)"),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn validate_springs(sp: &Springs, n: usize) -> Result<(), FieldError> {
    let m = sp.len();
    // Kernel offsets index the 2·m spring ends with u32.
    if 2 * m as u64 >= u32::MAX as u64 {
        return Err(FieldError::new(
            "springs",
            format!("{m} springs is more than 2^31 - 1"),
        ));
    }
    if [sp.b.len(), sp.rest.len(), sp.classes.len()]
        .into_iter()
        .any(|l| l != m)
    {
        return Err(FieldError::new(
            "springs",
            "per-spring arrays differ in length",
        ));
    }
    for s in 0..m {
        validate_ends(sp, s, n)?;
        validate_values(sp, s)?;
    }
    Ok(())
}

/// Spring `s` joins two different nodes of the `n`.
fn validate_ends(sp: &Springs, s: usize, n: usize) -> Result<(), FieldError> {
    for (end, v) in [("a", sp.a[s]), ("b", sp.b[s])] {
        if v as usize >= n {
            return Err(FieldError::new(
                at("springs", s, end),
                format!(
                    "{v} is not a node (the scene has {n} nodes, 0..{})",
                    n.max(1) - 1
                ),
            ));
        }
    }
    if sp.a[s] == sp.b[s] {
        return Err(FieldError::new(
            at("springs", s, "b"),
            format!(
                "{} is also end a: a spring cannot join a node to itself",
                sp.b[s]
            ),
        ));
    }
    Ok(())
}

/// Spring `s`'s rest length, coefficients and break strain are in range.
fn validate_values(sp: &Springs, s: usize) -> Result<(), FieldError> {
    let rest = sp.rest[s];
    if !rest.is_finite() || rest < 0.0 {
        return Err(FieldError::new(
            at("springs", s, "rest"),
            format!("{rest} is not a valid rest length; give a finite length >= 0 m"),
        ));
    }
    let cl = sp.class(s);
    nonneg_at(|| at("springs", s, "k"), cl.k, "N/m")?;
    let bs = cl.break_strain;
    if bs.is_nan() || bs <= 0.0 {
        return Err(FieldError::new(
            at("springs", s, "break_strain"),
            format!(
                "{bs} is not valid; give a strain > 0 (0.5 = tears at 150% of its rest length)"
            ),
        ));
    }
    nonneg_at(|| at("springs", s, "c"), cl.c, "N·s/m")?;
    for (name, v) in [("cs", cl.cs), ("cd", cl.cd)] {
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            return Err(FieldError::new(
                at("springs", s, name),
                format!(
                    "{v} is outside [0, 1] (Nissen's coefficients are fractions of the rigid limit)"
                ),
            ));
        }
    }
    Ok(())
}
